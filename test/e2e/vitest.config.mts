// End-to-end tests against a real n8n (see real-n8n/). One n8n is started by
// e2eSetup.mts for the whole run, with our packed package installed the
// way a community package is installed manually; files run one after another.
import { realN8nSuiteConfig } from '../../real-n8n/suites.mts';

export default realN8nSuiteConfig({
	include: ['test/e2e/**/*.e2e.test.mts'],
	globalSetup: 'test/e2e/e2eSetup.mts',
	testTimeout: 120_000,
	// Installing n8n on a new machine takes ~5 min, chromium ~30 s.
	hookTimeout: 180_000,
});
