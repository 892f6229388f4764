/**
 * Unit and integration tests: everything under test/ except the real-n8n suites (e2e, queue, compat, install),
 * which have their own configs. n8n-workflow is aliased to the CJS build n8n itself loads
 * (see n8n-core-runner/singleN8nWorkflow.mts for why).
 */
import { defineConfig } from 'vitest/config';

import { n8nWorkflowSingleCopy } from './n8n-core-runner/singleN8nWorkflow.mts';

export default defineConfig({
	resolve: { alias: n8nWorkflowSingleCopy },
	test: {
		include: ['test/**/*.test.{ts,mts}'],
		exclude: ['test/e2e/**', 'test/queue/**', 'test/compat/**', 'test/install/**', '**/node_modules/**'],
		testTimeout: 60_000,
		hookTimeout: 60_000,
	},
});
