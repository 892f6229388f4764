/**
 * The vitest alias that whatever uses n8n-core-runner/runWorkflow.mts needs: the unit tests
 * (vitest.config.mts spreads it into `resolve.alias`) and bench/perItem.config.mts.
 *
 * n8n-workflow ships ESM and CJS builds. n8n-core (CJS) always gets the CJS
 * one, and so does a community node inside n8n. Without this alias, vitest
 * gives test and node code the ESM build, so n8n classes exist twice and
 * `instanceof NodeApiError` etc. behave differently from n8n.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const n8nWorkflowSingleCopy = [
	{ find: /^n8n-workflow$/, replacement: require.resolve('n8n-workflow') },
];
