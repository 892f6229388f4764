// What the paged campaign examples (examples/campaign-from-postgres, campaign-from-data-table)
// share as a harness sees them: in one folder, a campaign that starts by hand with its base
// Reference in Campaign settings, and the page sub-workflow it calls by id; imported as a user
// does, with `n8n import:workflow`, which keeps their ids.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { readExample } from './examples.mts';
import { runN8nCommand } from './n8n.mts';
import { REPO_ROOT } from './paths.mts';

type Assignments = { assignments: Array<{ name: string; value: unknown }> };

const baseAssignment = (parameters: Record<string, unknown>) =>
	(parameters.assignments as Assignments).assignments.find((a) => a.name === 'baseReference')!;

export function campaignExample(folder: string) {
	const campaign = readExample(`${folder}/campaign.json`);
	const page = readExample(`${folder}/campaign-page.json`);
	const settings = (wf: typeof campaign) =>
		wf.nodes.find((n) => n.name === 'Campaign settings')!.parameters;
	const dir = join(REPO_ROOT, 'examples', folder);

	/** Imports the example's files as a user does, over what is there (same ids). */
	const importInto = async (userFolder: string, from = dir) => {
		await runN8nCommand(userFolder, ['import:workflow', '--separate', `--input=${from}`]);
	};

	return {
		campaign,
		page,
		campaignId: campaign.id!,
		/** The sub-workflow, which n8n 2.x runs only once published. */
		pageId: page.id!,
		/** The campaign's manual trigger, the node a run starts from. */
		start: campaign.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger')!.name,
		/** The base Reference the example sets in its Campaign settings. */
		base: baseAssignment(settings(campaign)).value as string,
		importInto,
		/**
		 * Imports the campaign under another base reference, over the example's (same id): a
		 * second campaign over the same table. Its file goes to a new folder in `scratch`.
		 */
		async importWithBase(userFolder: string, base: string, scratch: string) {
			const other = structuredClone(campaign);
			baseAssignment(settings(other)).value = base;
			const to = mkdtempSync(join(scratch, 'campaign-'));
			writeFileSync(join(to, 'campaign.json'), JSON.stringify(other));
			await importInto(userFolder, to);
		},
	};
}
