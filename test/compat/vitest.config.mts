// The compatibility matrix (npm run test:compat): one smoke suite, run against a real
// n8n of every version in real-n8n/versions.mts, and the Data Table example in the oldest
// of them with Data Tables. compatSetup.mts installs and starts them all; the suites'
// describe blocks take them one after another.
import { realN8nSuiteConfig } from '../../real-n8n/suites.mts';

export default realN8nSuiteConfig({
	include: ['test/compat/**/*.compat.test.mts'],
	globalSetup: 'test/compat/compatSetup.mts',
	testTimeout: 120_000,
	hookTimeout: 180_000,
});
