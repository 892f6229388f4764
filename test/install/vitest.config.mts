// n8n's editor installer (Settings → Community Nodes) on the newest and the oldest n8n of
// the compatibility matrix: install, update and uninstall of our package from a registry
// on loopback (real-n8n/registry.mts, real-n8n/npm-shim.mts). Each version gets its own
// n8n, started by the suite itself, with nothing installed by hand.
import { realN8nSuiteConfig } from '../../real-n8n/suites.mts';

export default realN8nSuiteConfig({
	include: ['test/install/**/*.install.test.mts'],
	globalSetup: 'test/install/installSetup.mts',
	testTimeout: 180_000,
	hookTimeout: 300_000,
});
