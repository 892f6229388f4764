// The trigger benchmarks' shared set-up: four active workflows in one n8n, each
// a trigger followed by NoOp — n8n's plain Webhook node (no verification), our
// Voucher Service Trigger, the minimal community trigger (bench/minimal-trigger)
// that answers at once, the floor n8n puts under any community trigger, and its
// twin that first reads a secret credential, the floor under any trigger that
// must know its secret to refuse a delivery.
import { createHmac } from 'node:crypto';

import { TRIGGER_NODE, WEBHOOK_CREDENTIAL, webhookCredential } from '../real-n8n/fixtures.mts';
import { linearWorkflow, type WorkflowJson } from '../real-n8n/rest.mts';
import { MINIMAL_SECRET_TRIGGER_NODE, MINIMAL_TRIGGER_NODE, executionCount, minimalTriggerTarball, startBenchN8n, type BenchN8n } from './harness.mts';
import { fmt } from './report.mts';
import type { Delivery, LoadResult } from './load.mts';

export const TRIGGER_SECRET = 'whsec_bench_trigger_secret';
const OURS_HOOK = 'b3c4d5e6-0000-4000-8000-00000000bech';
const FLOOR_HOOK = 'b3c4d5e6-0000-4000-8000-0000000floor';
const SECRET_FLOOR_HOOK = 'b3c4d5e6-0000-4000-8000-0secretfloor';
const PLAIN_PATH = 'bench-plain-webhook';

export type Hook = 'plain' | 'ours' | 'floor' | 'secretFloor';
export type Hooks = Record<Hook, { id: string; url: string }>;

/** n8n's settings each trigger benchmark runs under, side by side; BENCH_SETTINGS picks some (e.g. "lazy"). */
export const SETTINGS = [
	// 'false' is n8n's default, said outright because the queue suite's webhook processes set 'true'.
	{ name: 'defaults', env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'false' } as Record<string, string> },
	{ name: 'lazy', env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } as Record<string, string> },
].filter((s) => !process.env.BENCH_SETTINGS || process.env.BENCH_SETTINGS.split(',').includes(s.name));
export type Setting = (typeof SETTINGS)[number];

/** An n8n with our package and the minimal trigger installed the same way. */
export async function startTriggerN8n(env: Record<string, string> = {}): Promise<BenchN8n> {
	return await startBenchN8n(env, [minimalTriggerTarball()]);
}

const noOp = { id: 'noop', name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} };

/** Saves and activates `trigger` followed by NoOp; returns the workflow's id. Any n8n with a logged-in REST client: one process, or a queue-mode cluster's main. */
export async function activeTriggerWorkflow(b: Pick<BenchN8n, 'rest'>, name: string, trigger: WorkflowJson['nodes'][number]): Promise<string> {
	const wf = await b.rest.createWorkflow(linearWorkflow(name, [{ id: 'trigger', ...trigger }, noOp]));
	await b.rest.activateWorkflow(wf.id);
	return wf.id;
}

/** Our trigger (node version 2, as new nodes are) on both events, with `parameters` on top of its defaults. */
export function voucherTriggerNode(webhookId: string, credential: { id: string; name: string }, parameters: Record<string, unknown> = {}): WorkflowJson['nodes'][number] {
	return {
		name: 'Voucher Service Trigger',
		type: TRIGGER_NODE,
		typeVersion: 2,
		webhookId,
		parameters: { events: ['ORDER_UPDATED', 'VOUCHER_UPDATED'], options: {}, ...parameters },
		credentials: { [WEBHOOK_CREDENTIAL]: { id: credential.id, name: credential.name } },
	};
}

/** n8n's own Webhook node (v2, POST, answers on receipt, no verification) at /webhook/<path>. */
export function plainWebhookNode(webhookId: string, path: string): WorkflowJson['nodes'][number] {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

export async function setUpHooks(b: BenchN8n): Promise<Hooks> {
	const cred = await webhookCredential(b.rest, 'Voucher webhooks (bench)', TRIGGER_SECRET);
	const workflow = (name: string, trigger: WorkflowJson['nodes'][number]) => activeTriggerWorkflow(b, name, trigger);
	const plain = await workflow('bench plain webhook', plainWebhookNode('b3c4d5e6-0000-4000-8000-0000000plain', PLAIN_PATH));
	const ours = await workflow('bench voucher trigger', voucherTriggerNode(OURS_HOOK, cred));
	const floor = await workflow('bench minimal trigger', {
		name: 'Minimal Trigger',
		type: MINIMAL_TRIGGER_NODE,
		typeVersion: 1,
		webhookId: FLOOR_HOOK,
		parameters: {},
	});
	const floorCred = await b.rest.createCredential('Minimal trigger secret (bench)', 'minimalTriggerSecretApi', { secret: TRIGGER_SECRET });
	const secretFloor = await workflow('bench minimal secret trigger', {
		name: 'Minimal Secret Trigger',
		type: MINIMAL_SECRET_TRIGGER_NODE,
		typeVersion: 1,
		webhookId: SECRET_FLOOR_HOOK,
		parameters: {},
		credentials: { minimalTriggerSecretApi: { id: floorCred.id, name: floorCred.name } },
	});
	return {
		plain: { id: plain, url: `${b.n8n.url}/webhook/${PLAIN_PATH}` },
		ours: { id: ours, url: `${b.n8n.url}/webhook/${OURS_HOOK}/webhook` },
		floor: { id: floor, url: `${b.n8n.url}/webhook/${FLOOR_HOOK}/webhook` },
		secretFloor: { id: secretFloor, url: `${b.n8n.url}/webhook/${SECRET_FLOOR_HOOK}/webhook` },
	};
}

let serial = 0;
export function event(status = 'COMPLETED', orderNumber = `BENCH-${process.pid}-${++serial}`): string {
	return JSON.stringify({
		type: 'ORDER_UPDATED',
		data: { orderNumber, reference: `ref-${orderNumber}`, status, vouchers: [{ value: 1000, serial, code: 'X', pin: '1234' }] },
	});
}
export const signed = (body: string): Delivery => ({ body, headers: { signature: createHmac('sha512', TRIGGER_SECRET).update(body).digest('hex') } });
export const badSignature = (): Delivery => ({ body: event(), headers: { signature: 'ab'.repeat(64) } });
/** The floor's refusals: a 401 it writes itself, and a 2xx that starts nothing. */
export const floorRefuse = (): Delivery => ({ body: event(), headers: { 'x-floor': 'refuse' } });
export const floorIgnore = (): Delivery => ({ body: event(), headers: { 'x-floor': 'ignore' } });

/** Waits until a workflow has `expected` executions (bounded), so the next measurement starts quiet. */
export async function drain(b: BenchN8n, workflowId: string, expected: number): Promise<number> {
	const deadline = Date.now() + 120_000;
	let n = 0;
	while (Date.now() < deadline && (n = await executionCount(b.rest, workflowId)) < expected) await new Promise((r) => setTimeout(r, 500));
	await new Promise((r) => setTimeout(r, 1000));
	return n;
}

/** Rate over both halves; latency percentiles: the worse half's (conservative). */
export function merge(a: LoadResult, b: LoadResult): LoadResult & { halves: string } {
	const count = a.count + b.count;
	const seconds = a.seconds + b.seconds;
	const statuses = { ...a.statuses };
	for (const [k, v] of Object.entries(b.statuses)) statuses[Number(k)] = (statuses[Number(k)] ?? 0) + v;
	return {
		...a,
		count,
		seconds,
		perSecond: count / seconds,
		p50: Math.max(a.p50, b.p50),
		p99: Math.max(a.p99, b.p99),
		statuses,
		monoEndUs: b.monoEndUs,
		halves: `${fmt(a.perSecond)} / ${fmt(b.perSecond)} /s`,
	};
}
