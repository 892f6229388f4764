/**
 * `npm run sim`'s workers (scripts/sim.mts starts one per core): each runs simWorker.mts,
 * with n8n-workflow aliased to the CJS build n8n loads, as the unit suite does.
 */
import { defineConfig } from 'vitest/config';

import { n8nWorkflowSingleCopy } from '../../n8n-core-runner/singleN8nWorkflow.mts';

export default defineConfig({
	resolve: { alias: n8nWorkflowSingleCopy },
	test: { include: ['test/sim/simWorker.mts'], testTimeout: 0, hookTimeout: 60_000 },
});
