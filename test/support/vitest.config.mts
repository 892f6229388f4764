/**
 * Vitest config for tests that use test/support/runWorkflow.ts.
 *
 * n8n-workflow ships ESM and CJS builds. n8n-core (CJS) always gets the CJS
 * one, and so does a community node inside n8n. Without this alias, vitest
 * gives test and node code the ESM build, so n8n classes exist twice and
 * `instanceof NodeApiError` etc. behave differently from n8n. Other configs can
 * spread `n8nWorkflowSingleCopy` into their `resolve.alias`.
 */
import { createRequire } from 'node:module';

import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export const n8nWorkflowSingleCopy = [
	{ find: /^n8n-workflow$/, replacement: require.resolve('n8n-workflow') },
];

export default defineConfig({
	resolve: { alias: n8nWorkflowSingleCopy },
});
