// The compatibility matrix (npm run test:compat): one smoke suite, run against a real
// n8n of every version in real-n8n/versions.mts. compatSetup.mts installs and starts
// them all; the suite's describe blocks take them one after another.
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
	root,
	test: {
		include: ['test/compat/**/*.compat.test.mts'],
		globalSetup: ['test/compat/compatSetup.mts'],
		fileParallelism: false,
		pool: 'forks',
		testTimeout: 120_000,
		hookTimeout: 180_000,
		teardownTimeout: 60_000,
		reporters: ['default'],
	},
});
