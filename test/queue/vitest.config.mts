// The queue-mode suite: n8n with PostgreSQL, Redis, a main process, two
// workers and two webhook processes (test/queue/queueSetup.mts). Runs the
// end-to-end files whose behaviour must hold on workers and webhook
// processes, plus the files here.
import { realN8nSuiteConfig } from '../../real-n8n/suites.mts';

export default realN8nSuiteConfig({
	include: [
		'test/e2e/credentials.e2e.test.mts',
		'test/e2e/actions.e2e.test.mts',
		'test/e2e/trigger.e2e.test.mts',
		'test/e2e/redelivery.e2e.test.mts',
		'test/queue/**/*.queue.test.mts',
	],
	globalSetup: 'test/queue/queueSetup.mts',
	testTimeout: 180_000,
	hookTimeout: 300_000,
});
