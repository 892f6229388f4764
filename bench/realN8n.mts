// The benchmarks' view of real-n8n/: the same install, start/stop and REST client
// the e2e suite uses, imported, never copied.
import * as install from '../real-n8n/install.mts';
import * as n8n from '../real-n8n/n8n.mts';
import * as packageUnderTest from '../real-n8n/package-under-test.mts';
import * as rest from '../real-n8n/rest.mts';

export type { RunningN8n } from '../real-n8n/n8n.mts';
export type { Execution, N8nRest, WorkflowJson } from '../real-n8n/rest.mts';
export { MANUAL_START, linearWorkflow } from '../real-n8n/rest.mts';

const realN8nModules = { ...install, ...n8n, ...packageUnderTest, ...rest };

export function realN8n(): Promise<typeof realN8nModules> {
	return Promise.resolve(realN8nModules);
}
