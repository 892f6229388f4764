import { defineConfig } from 'vitest/config';

import { n8nWorkflowSingleCopy } from '../n8n-core-runner/singleN8nWorkflow.mts';

export default defineConfig({
	resolve: { alias: n8nWorkflowSingleCopy },
	test: { include: ['bench/perItem.mts', 'bench/pacingStart.mts', 'bench/rateLimit.mts'], testTimeout: 1_800_000 },
});
