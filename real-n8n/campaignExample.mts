// What the paged campaign examples (examples/campaign-from-postgres, campaign-from-data-table)
// share as a harness sees them: in one folder, a campaign that starts by hand with its base
// Reference in Campaign settings, and the page sub-workflow it calls by id; imported as a user
// does, with `n8n import:workflow`, which keeps their ids.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { bindCredentials, preparedExample, readExample, type CredentialRef } from './examples.mts';
import { runN8nCommand } from './n8n.mts';
import type { N8nRest, WorkflowJson } from './rest.mts';

/** How a suite imports the example, beyond what a user of the suites' n8n does. */
export interface ImportOptions {
	/** The n8n (a row of versions.mts) whose CLI imports it; the suites' version by default. */
	version?: string;
	/** Changes each workflow before it is imported, as a user would change it in the editor. */
	adapt?: (wf: WorkflowJson) => void;
}

type Assignments = { assignments: Array<{ name: string; value: unknown }> };

const baseAssignment = (wf: WorkflowJson) =>
	(
		wf.nodes.find((n) => n.name === 'Campaign settings')!.parameters.assignments as Assignments
	).assignments.find((a) => a.name === 'baseReference')!;

export function campaignExample(folder: string) {
	const campaign = readExample(`${folder}/campaign.json`);
	const page = readExample(`${folder}/campaign-page.json`);

	/**
	 * Imports these workflows over what is there (same ids), their credentials those given by
	 * type, as a user picks them in the nodes: by name, the import could take another
	 * credential of that name. The files go to a new folder in `scratch`.
	 */
	const importInto = async (
		userFolder: string,
		credentials: Record<string, CredentialRef>,
		scratch: string,
		workflows: WorkflowJson[],
		{ version, adapt }: ImportOptions = {},
	) => {
		const dir = mkdtempSync(join(scratch, 'example-'));
		workflows.forEach((wf, i) => {
			adapt?.(wf);
			writeFileSync(join(dir, `${i}.json`), JSON.stringify(bindCredentials(wf, credentials)));
		});
		await runN8nCommand(userFolder, ['import:workflow', '--separate', `--input=${dir}`], version);
	};

	return {
		page,
		campaignId: campaign.id!,
		/** The sub-workflow, which n8n 2.x runs only once published. */
		pageId: page.id!,
		/** The campaign's manual trigger, the node a run starts from. */
		start: campaign.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger')!.name,
		/** The base Reference the example sets in its Campaign settings. */
		base: baseAssignment(campaign).value as string,
		/** The page and the campaign imported (see importInto). */
		async importBoth(
			userFolder: string,
			credentials: Record<string, CredentialRef>,
			scratch: string,
			options?: ImportOptions,
		) {
			await importInto(
				userFolder,
				credentials,
				scratch,
				[structuredClone(page), structuredClone(campaign)],
				options,
			);
		},
		/**
		 * Both saved through REST under their own ids (the campaign calls the page by id), their
		 * credentials bound by type, and the page published; the campaign's id. `savePages` keeps
		 * the page's successful executions too (the example keeps none), to read its nodes' times.
		 */
		async saveBoth(
			rest: N8nRest,
			credentials: Record<string, CredentialRef>,
			filesDir: string,
			savePages = false,
		): Promise<string> {
			const save = async (file: string) => {
				const wf = preparedExample(`${folder}/${file}`, { credentials, filesDir });
				if (savePages && wf.id === page.id) wf.settings = { ...wf.settings, saveDataSuccessExecution: 'all' };
				// POST /rest/workflows keeps an id given in the body, as import:workflow does.
				return (await rest.request('POST', '/rest/workflows', { ...wf, active: false })).id as string;
			};
			await rest.activateWorkflow(await save('campaign-page.json'));
			return await save('campaign.json');
		},
		/** The campaign alone under another base reference: a second campaign over the same table. */
		async importWithBase(
			userFolder: string,
			credentials: Record<string, CredentialRef>,
			scratch: string,
			base: string,
		) {
			const other = structuredClone(campaign);
			baseAssignment(other).value = base;
			await importInto(userFolder, credentials, scratch, [other]);
		},
	};
}
