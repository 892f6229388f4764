// End-to-end tests against a real n8n (see real-n8n/). One n8n is started by
// e2eSetup.mts for the whole run, with our packed package installed the
// way a community package is installed manually; files run one after another.
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
	root,
	test: {
		include: ['test/e2e/**/*.e2e.test.mts'],
		globalSetup: ['test/e2e/e2eSetup.mts'],
		fileParallelism: false,
		pool: 'forks',
		testTimeout: 120_000,
		hookTimeout: 180_000,
		// Installing n8n on a new machine takes ~5 min, chromium ~30 s.
		teardownTimeout: 60_000,
		reporters: ['default'],
	},
});
