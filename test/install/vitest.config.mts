// n8n's editor installer (Settings → Community Nodes) on the newest and the oldest n8n of
// the compatibility matrix: install, update and uninstall of our package from a registry
// on loopback (real-n8n/registry.mts, real-n8n/npm-shim.mts). Each version gets its own
// n8n, started by the suite itself, with nothing installed by hand.
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
	root,
	test: {
		include: ['test/install/**/*.install.test.mts'],
		globalSetup: ['test/install/installSetup.mts'],
		fileParallelism: false,
		pool: 'forks',
		testTimeout: 180_000,
		hookTimeout: 300_000,
		teardownTimeout: 60_000,
		reporters: ['default'],
	},
});
