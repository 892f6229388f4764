// The example workflows in examples/, made ready for a given n8n: credentials
// bound by type, the CSV path filled in. Used by `npm run dev` and the e2e suite.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { REPO_ROOT } from './paths.mts';
import type { N8nRest, WorkflowJson } from './rest.mts';

const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
const CAMPAIGN_CSV = 'campaign-recipients.csv';

/** examples/**\/*.json, paths relative to examples/, in a stable order. */
export function exampleFiles(dir = EXAMPLES_DIR): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) out.push(...exampleFiles(path));
		else if (entry.name.endsWith('.json')) out.push(relative(EXAMPLES_DIR, path));
	}
	return out.sort();
}

export function readExample(file: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
}

export type CredentialRef = { id: string; name: string };

/** Points every node's credential of a known type at the given credential. */
function bindCredentials(
	wf: WorkflowJson,
	byType: Record<string, CredentialRef>,
): WorkflowJson {
	for (const node of wf.nodes) {
		for (const type of Object.keys(node.credentials ?? {})) {
			const cred = byType[type];
			if (cred) node.credentials![type] = { id: cred.id, name: cred.name };
		}
	}
	return wf;
}

/**
 * Copies the campaign CSV into `filesDir` (which n8n must be allowed to read:
 * N8N_RESTRICT_FILE_ACCESS_TO) and points the file-reading and -writing nodes at it.
 */
function useFilesDir(wf: WorkflowJson, filesDir: string): WorkflowJson {
	mkdirSync(filesDir, { recursive: true });
	copyFileSync(join(EXAMPLES_DIR, 'data', CAMPAIGN_CSV), join(filesDir, CAMPAIGN_CSV));
	for (const node of wf.nodes) {
		if (node.type !== 'n8n-nodes-base.readWriteFile') continue;
		// fileSelector is the path read; fileName the path written (the per-row results).
		for (const key of ['fileSelector', 'fileName']) {
			const path = node.parameters[key];
			if (typeof path === 'string') node.parameters[key] = join(filesDir, path.split('/').pop()!);
		}
	}
	return wf;
}

/** The production URL of the first node that has a webhookId (a trigger or Webhook node). */
export function productionWebhookUrl(n8nUrl: string, wf: WorkflowJson): string | undefined {
	for (const node of wf.nodes) {
		const webhookId = node.webhookId as string | undefined;
		if (!webhookId) continue;
		// n8n's Webhook node uses its "path" parameter as the whole path; other
		// webhook nodes get "<webhookId>/<path of their webhook description>".
		if (node.type === 'n8n-nodes-base.webhook')
			return `${n8nUrl}/webhook/${node.parameters.path as string}`;
		return `${n8nUrl}/webhook/${webhookId}/webhook`;
	}
	return undefined;
}

export interface ImportedExample {
	file: string;
	id: string;
	name: string;
	webhookUrl?: string;
	active: boolean;
}

/**
 * Imports every example; activates those started by webhooks whose credentials are all
 * given (an example that needs the user's own database stays inactive without one).
 */
export async function importExamples(
	rest: N8nRest,
	opts: { credentials: Record<string, CredentialRef>; filesDir: string; activate?: boolean },
): Promise<ImportedExample[]> {
	const imported: ImportedExample[] = [];
	for (const file of exampleFiles()) {
		const wf = useFilesDir(bindCredentials(readExample(file), opts.credentials), opts.filesDir);
		const { id } = await rest.createWorkflow(wf);
		const webhookUrl = productionWebhookUrl(rest.url, wf);
		let active = false;
		const bound = wf.nodes.every((n) =>
			Object.keys(n.credentials ?? {}).every((type) => opts.credentials[type]),
		);
		if (webhookUrl && bound && opts.activate !== false) {
			await rest.activateWorkflow(id);
			await rest.waitForWebhook(webhookUrl);
			active = true;
		}
		imported.push({ file, id, name: wf.name, webhookUrl, active });
	}
	return imported;
}
