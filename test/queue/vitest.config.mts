// The queue-mode suite: n8n with PostgreSQL, Redis, a main process, two
// workers and two webhook processes (test/queue/queueSetup.mts). Runs the
// end-to-end files whose behaviour must hold on workers and webhook
// processes, plus the files here.
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
	root,
	test: {
		include: [
			'test/e2e/credentials.e2e.test.mts',
			'test/e2e/actions.e2e.test.mts',
			'test/e2e/trigger.e2e.test.mts',
			'test/e2e/redelivery.e2e.test.mts',
			'test/queue/**/*.queue.test.mts',
		],
		globalSetup: ['test/queue/queueSetup.mts'],
		fileParallelism: false,
		pool: 'forks',
		testTimeout: 180_000,
		hookTimeout: 300_000,
		teardownTimeout: 60_000,
		reporters: ['default'],
	},
});
