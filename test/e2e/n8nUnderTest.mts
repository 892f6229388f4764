import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { inject } from 'vitest';

import { ACTION_NODE, API_CREDENTIAL, WEBHOOK_CREDENTIAL } from '../../real-n8n/fixtures.mts';
import {
	linearWorkflow,
	MANUAL_START,
	N8nRest,
	nodeOutput,
	sheetRows,
	type Execution,
	type WorkflowJson,
} from '../../real-n8n/rest.mts';
import { sign } from '../../sandbox/server.mts';

// The e2e files take the shared fixtures from here, with the helpers below.
export {
	ACTION_NODE,
	ACTION_TOOL_NODE,
	API_CREDENTIAL,
	TRIGGER_NODE,
	WEBHOOK_CREDENTIAL,
	sandboxApiCredential,
	until,
} from '../../real-n8n/fixtures.mts';

const WORKFLOW_DIR = fileURLToPath(new URL('./workflows/', import.meta.url));

export const n8nUrl = (): string => inject('n8nUrl');

/** A REST client with the owner's session (set up by e2eSetup.mts, or queueSetup.mts). */
export async function ownerClient(): Promise<N8nRest> {
	const rest = new N8nRest(inject('n8nUrl'));
	rest.cookie = inject('ownerCookie');
	return rest;
}

/** The name runActionOnRows gives our action node in its workflow. */
export const ACTION_NODE_NAME = 'Voucher Service';

/**
 * The rows, one item each (a sheet split into items), into our action node with these
 * parameters and On Error: Continue, as a user wires a sheet; the execution and the node's items.
 */
export async function runActionOnRows(
	rest: N8nRest,
	credential: { id: string; name: string },
	rows: object[],
	parameters: Record<string, unknown>,
	timeoutMs?: number,
): Promise<{ ex: Execution; output: Array<Record<string, unknown>> }> {
	const workflow = linearWorkflow(`rows ${Date.now()}`, [
		MANUAL_START,
		...sheetRows(rows),
		{
			name: ACTION_NODE_NAME,
			type: ACTION_NODE,
			typeVersion: 1,
			onError: 'continueRegularOutput',
			parameters,
			credentials: { [API_CREDENTIAL]: credential },
		},
	]);
	const { id } = await rest.createWorkflow(workflow);
	const ex = await rest.runWorkflow(id, 'Start', timeoutMs);
	return { ex, output: nodeOutput(ex, ACTION_NODE_NAME) };
}

export function workflowFiles(): string[] {
	return readdirSync(WORKFLOW_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
}

/**
 * Reads test/e2e/workflows/<name>.json and points its credential references
 * ("{{credential:<key>}}" ids) at credentials created for this run.
 */
export function rawWorkflow(name: string): WorkflowJson {
	return JSON.parse(readFileSync(join(WORKFLOW_DIR, `${name}.json`), 'utf8')) as WorkflowJson;
}

export function loadWorkflow(
	name: string,
	credentials: Record<string, { id: string; name: string }>,
): WorkflowJson {
	const wf = rawWorkflow(name);
	for (const node of wf.nodes) {
		for (const [type, ref] of Object.entries(node.credentials ?? {})) {
			const m = /^\{\{credential:(\w+)\}\}$/.exec(ref.id);
			if (!m) continue;
			const cred = credentials[m[1]];
			if (!cred) throw new Error(`workflow ${name}: no credential "${m[1]}" for ${type}`);
			node.credentials![type] = { id: cred.id, name: cred.name };
		}
	}
	return wf;
}

/**
 * The trigger-events workflow with a trigger of its own: a fresh webhook id (so its URL
 * is its own) and node id (so its deduplication memory starts empty).
 */
export function uniqueTriggerWorkflow(
	webhook: { id: string; name: string },
	name: string,
): WorkflowJson {
	const wf = loadWorkflow('trigger-events', { webhook });
	const trigger = wf.nodes[0];
	trigger.webhookId = randomUUID();
	trigger.id = randomUUID();
	wf.name = `${name} ${trigger.webhookId}`;
	return wf;
}

/** The node's webhook path is "webhook"; n8n puts the node's webhookId in front of it. */
export const triggerPath = (webhookId: string): string => `${webhookId}/webhook`;

/** A published uniqueTriggerWorkflow, listening; `path` follows `/webhook/` in each of its `urls`. */
export interface PublishedTrigger {
	id: string;
	name: string;
	credential: { id: string; name: string };
	path: string;
	urls: string[];
}

/**
 * A webhook credential holding `secret`, and a uniqueTriggerWorkflow using it (its trigger at
 * `typeVersion` when given), published and answering at every base URL of webhookUrls.
 */
export async function publishedTrigger(
	rest: N8nRest,
	name: string,
	secret: string,
	{ typeVersion }: { typeVersion?: number } = {},
): Promise<PublishedTrigger> {
	const credential = await rest.createCredential(`Voucher webhooks (${name})`, WEBHOOK_CREDENTIAL, {
		secret,
	});
	const workflow = uniqueTriggerWorkflow(credential, name);
	const trigger = workflow.nodes[0];
	if (typeVersion !== undefined) trigger.typeVersion = typeVersion;
	const path = triggerPath(trigger.webhookId as string);
	const urls = webhookUrls().map((base) => `${base}/webhook/${path}`);
	const { id } = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(id);
	for (const url of urls) await rest.waitForWebhook(url);
	return { id, name: workflow.name, credential, path, urls };
}

/** Base URLs that serve production webhooks: n8n itself, or each webhook process in queue mode. */
export const webhookUrls = (): string[] => inject('webhookUrls');

/** POSTs a webhook event, signed with `secret` when given; resolves to the status. */
export async function postEvent(url: string, body: string, secret?: string): Promise<number> {
	const res = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			...(secret === undefined ? {} : { signature: sign(secret, body) }),
		},
		body,
	});
	await res.arrayBuffer();
	return res.status;
}

/**
 * Restarts every n8n process (same folders, ports and database) and waits until they are up;
 * with `kill`, kills them first (SIGKILL) as a crash would, mid-way through what they run.
 */
export async function restartN8n(opts: { kill?: boolean } = {}): Promise<void> {
	const url = inject('restartUrl') + (opts.kill ? '?kill' : '');
	const res = await fetch(url, { method: 'POST' });
	if (res.status !== 204) throw new Error(`restart failed: ${res.status} ${await res.text()}`);
}

export interface ExecutionSummary {
	id: string;
	status: string;
}

/** Every execution of a workflow; n8n 2.41 pages the list with an opaque cursor. */
async function allExecutions(rest: N8nRest, workflowId: string): Promise<ExecutionSummary[]> {
	const byId = new Map<string, ExecutionSummary>();
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	let cursor: string | null = null;
	do {
		const page: { results: ExecutionSummary[]; nextCursor?: string | null } = await rest.request(
			'GET',
			`/rest/executions?filter=${filter}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
		);
		for (const e of page.results) byId.set(e.id, e);
		cursor = page.nextCursor ?? null;
	} while (cursor);
	return [...byId.values()];
}

/**
 * Waits until a workflow's executions have all finished and no new one appeared for
 * `quietMs`, then returns them.
 */
export async function settledExecutions(
	rest: N8nRest,
	workflowId: string,
	atLeast: number,
	quietMs = 3000,
	timeoutMs = 120_000,
): Promise<ExecutionSummary[]> {
	const deadline = Date.now() + timeoutMs;
	let previous = -1;
	let stableSince = Date.now();
	for (;;) {
		const list = await allExecutions(rest, workflowId);
		const finished = list.every((e) => !['new', 'running', 'waiting'].includes(e.status));
		if (list.length !== previous || !finished) {
			previous = list.length;
			stableSince = Date.now();
		} else if (list.length >= atLeast && Date.now() - stableSince >= quietMs) {
			return list;
		}
		if (Date.now() > deadline) {
			throw new Error(
				`executions of ${workflowId} did not settle (${list.length}, want ≥ ${atLeast})`,
			);
		}
		await new Promise((r) => setTimeout(r, 500));
	}
}
