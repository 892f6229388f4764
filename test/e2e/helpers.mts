import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { inject } from 'vitest';

import { N8nRest, type WorkflowJson } from '../../real-n8n/rest.mts';

export const API_CREDENTIAL = 'voucherServiceApi';
export const WEBHOOK_CREDENTIAL = 'voucherServiceWebhookApi';
export const ACTION_NODE = 'n8n-nodes-voucher-service.voucherService';
export const TRIGGER_NODE = 'n8n-nodes-voucher-service.voucherServiceTrigger';

const WORKFLOW_DIR = fileURLToPath(new URL('./workflows/', import.meta.url));

export const n8nUrl = (): string => inject('n8nUrl');

/** A REST client with the owner's session (set up by global-setup.mts). */
export async function ownerClient(): Promise<N8nRest> {
	const rest = new N8nRest(inject('n8nUrl'));
	rest.cookie = inject('ownerCookie');
	return rest;
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

export async function until<T>(
	what: string,
	fn: () => T | undefined | Promise<T | undefined>,
	timeoutMs = 30_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const v = await fn();
		if (v !== undefined && v !== false) return v as T;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 200));
	}
}
