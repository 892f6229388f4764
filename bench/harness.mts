// The harness (harness/*) is imported, never copied. Its files may move from
// .ts to .mts; each module is loaded under whichever name exists.
import { existsSync } from 'node:fs';

import type * as InstallModule from '../harness/install.ts';
import type * as N8nModule from '../harness/n8n.ts';
import type * as PackModule from '../harness/package-under-test.ts';
import type * as RestModule from '../harness/rest.ts';

export type { RunningN8n } from '../harness/n8n.ts';
export type { Execution, N8nRest, WorkflowJson } from '../harness/rest.ts';

async function load<T>(name: string): Promise<T> {
	const mts = new URL(`../harness/${name}.mts`, import.meta.url);
	return (await import(existsSync(mts) ? mts.href : `../harness/${name}.ts`)) as T;
}

type Harness = typeof InstallModule & typeof N8nModule & typeof PackModule & typeof RestModule;
let loaded: Promise<Harness> | undefined;

export function harness(): Promise<Harness> {
	loaded ??= (async () => ({
		...(await load<typeof InstallModule>('install')),
		...(await load<typeof N8nModule>('n8n')),
		...(await load<typeof PackModule>('package-under-test')),
		...(await load<typeof RestModule>('rest')),
	}))();
	return loaded;
}
