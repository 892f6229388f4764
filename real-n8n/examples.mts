// The example workflows in examples/, made ready for a given n8n: credentials
// bound by type, the paths of the files they read and write filled in. Used by
// `npm run dev` and the e2e suite.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

import type * as N8nWorkflow from 'n8n-workflow';
import type {
	INode,
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	INodeTypeDescription,
} from 'n8n-workflow';

import { REPO_ROOT } from './paths.mts';
import { versionFacts } from './versions.mts';
import type { N8nRest, WorkflowJson } from './rest.mts';

// n8n-workflow's CommonJS build, the one n8n loads: its ESM build imports files without
// their extension, which Node's own ESM loader (the demo runs under plain Node) refuses.
const { NodeHelpers } = createRequire(import.meta.url)('n8n-workflow') as typeof N8nWorkflow;

const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
/** The sheets the examples read (CSV and XLSX), copied where n8n may read them. */
const DATA_DIR = join(EXAMPLES_DIR, 'data');

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
export function bindCredentials(
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
 * Copies the example sheets of examples/data into `filesDir` (which n8n must be allowed to
 * read: N8N_RESTRICT_FILE_ACCESS_TO) and points the file-reading and -writing nodes there.
 */
function useFilesDir(wf: WorkflowJson, filesDir: string): WorkflowJson {
	mkdirSync(filesDir, { recursive: true });
	for (const file of readdirSync(DATA_DIR))
		copyFileSync(join(DATA_DIR, file), join(filesDir, file));
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

/** One example as importExamples imports it: credentials bound by type, file paths in `filesDir`. */
export function preparedExample(
	file: string,
	opts: { credentials: Record<string, CredentialRef>; filesDir: string },
): WorkflowJson {
	return useFilesDir(bindCredentials(readExample(file), opts.credentials), opts.filesDir);
}

/**
 * Saves an example under a new id, or with `keepIds` under its own when it has one (the
 * workflows of a folder example call each other by id).
 */
async function saveExample(rest: N8nRest, wf: WorkflowJson, keepIds: boolean): Promise<string> {
	if (!keepIds || !wf.id) return (await rest.createWorkflow(wf)).id;
	// POST /rest/workflows keeps an id given in the body, as import:workflow does.
	return (await rest.request('POST', '/rest/workflows', { ...wf, active: false })).id as string;
}

const isSubWorkflow = (wf: WorkflowJson) =>
	wf.nodes.some((n) => n.type === 'n8n-nodes-base.executeWorkflowTrigger');

/**
 * Imports every example; publishes those started by webhooks, and sub-workflows, whose
 * credentials are all given (an example that needs the user's own database stays inactive
 * without one).
 */
export async function importExamples(
	rest: N8nRest,
	opts: {
		credentials: Record<string, CredentialRef>;
		filesDir: string;
		activate?: boolean;
		/** Keep the examples' own ids: in a new n8n, where no workflow has them yet. */
		keepIds?: boolean;
	},
): Promise<ImportedExample[]> {
	const imported: ImportedExample[] = [];
	for (const file of exampleFiles()) {
		const wf = preparedExample(file, opts);
		const id = await saveExample(rest, wf, opts.keepIds ?? false);
		const webhookUrl = productionWebhookUrl(rest.url, wf);
		let active = false;
		const bound = wf.nodes.every((n) =>
			Object.keys(n.credentials ?? {}).every((type) => opts.credentials[type]),
		);
		const publish =
			webhookUrl || (isSubWorkflow(wf) && versionFacts(rest.version).publishSubWorkflows);
		if (publish && bound && opts.activate !== false) {
			await rest.activateWorkflow(id);
			if (webhookUrl) await rest.waitForWebhook(webhookUrl);
			active = true;
		}
		imported.push({ file, id, name: wf.name, webhookUrl, active });
	}
	return imported;
}

type ExampleNode = WorkflowJson['nodes'][number];

/** A node type as n8n describes it to the editor (`GET /types/nodes.json`), one entry per version set. */
export type NodeTypeDescription = Pick<
	INodeTypeDescription,
	'name' | 'version' | 'properties' | 'defaults'
> &
	Partial<INodeTypeDescription>;

/** The description of `type` at `typeVersion`, from n8n's list of node types. */
export function findNodeType(
	types: NodeTypeDescription[],
	type: string,
	typeVersion: number,
): NodeTypeDescription | undefined {
	return types.find((t) => t.name === type && [t.version].flat().includes(typeVersion));
}

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');
const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** An `options` value that is none of its fixed choices (lists loaded from the service are not checked). */
function badChoice(property: INodeProperties, value: unknown): boolean {
	if (property.type !== 'options' && property.type !== 'multiOptions') return false;
	if (property.typeOptions?.loadOptionsMethod || property.typeOptions?.loadOptions) return false;
	if (isExpression(value)) return false;
	const choices = (property.options ?? []).map((option) => (option as { value?: unknown }).value);
	return [value].flat().some((one) => !choices.includes(one));
}

/** Problems of one value against the properties of that name (collections recursively). */
function valueProblems(path: string, candidates: INodeProperties[], value: unknown): string[] {
	if (candidates.every((property) => badChoice(property, value)))
		return [`${path}: ${JSON.stringify(value)} is not one of its options`];
	// Nested values are checked against the first candidate of a collection type that fits.
	const collection = candidates.find(
		(p) => p.type === 'collection' || p.type === 'fixedCollection',
	);
	if (!collection || !isObject(value)) return [];
	const problems: string[] = [];
	if (collection.type === 'collection') {
		const options = (collection.options ?? []) as INodeProperties[];
		for (const [key, inner] of Object.entries(value)) {
			const named = options.filter((option) => option.name === key);
			if (named.length === 0) problems.push(`${path}.${key}: no such option`);
			else problems.push(...valueProblems(`${path}.${key}`, named, inner));
		}
		return problems;
	}
	const groups = (collection.options ?? []) as INodePropertyCollection[];
	for (const [key, entries] of Object.entries(value)) {
		const group = groups.find((g) => g.name === key);
		if (!group) {
			problems.push(`${path}.${key}: no such option`);
			continue;
		}
		[entries].flat().forEach((entry, index) => {
			if (!isObject(entry)) return;
			for (const [field, inner] of Object.entries(entry)) {
				const named = group.values.filter((v) => v.name === field);
				const at = `${path}.${key}[${index}].${field}`;
				if (named.length === 0) problems.push(`${at}: no such field`);
				else problems.push(...valueProblems(at, named, inner));
			}
		});
	}
	return problems;
}

/**
 * What is wrong with a node's parameters against its type's description: a parameter the
 * type does not have, one it has but hides given the node's other values, an option that is
 * not one of its choices, and (recursively) unknown options of collections and fixed
 * collections. An empty list means every parameter exists and is shown.
 */
export function parameterProblems(node: ExampleNode, description: NodeTypeDescription): string[] {
	const parameters = node.parameters as INodeParameters;
	const nodeForDisplay = { typeVersion: node.typeVersion };
	let values: INodeParameters = parameters;
	try {
		// With defaults filled in, as the editor decides what to show.
		values =
			NodeHelpers.getNodeParameters(
				description.properties,
				parameters,
				true,
				false,
				nodeForDisplay as INode,
				description as INodeTypeDescription,
			) ?? parameters;
	} catch {
		// Fall back to the values as saved.
	}
	const problems: string[] = [];
	for (const [name, value] of Object.entries(parameters)) {
		const named = description.properties.filter((property) => property.name === name);
		if (named.length === 0) {
			problems.push(`${name}: no such parameter`);
			continue;
		}
		const shown = named.filter((property) =>
			NodeHelpers.displayParameter(
				values,
				property,
				nodeForDisplay,
				description as INodeTypeDescription,
			),
		);
		if (shown.length === 0) {
			problems.push(`${name}: not shown for these settings (version ${node.typeVersion})`);
			continue;
		}
		problems.push(...valueProblems(name, shown, value));
	}
	return problems;
}
