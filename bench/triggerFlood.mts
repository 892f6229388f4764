// Issue #27's measurements beside bench:trigger's accepted and refused deliveries:
// - the forged flood: BENCH_FLOOD_CLIENTS clients (default 32) post forged deliveries for
//   BENCH_FLOOD_S seconds (default 30) while BENCH_FLOOD_GENUINE genuine events (default
//   40) arrive 4 at a time, once at our trigger and once at n8n's Webhook node with Header
//   Auth, each under the same flood;
// - p99 at 16 at a time with 0 and with BENCH_REMEMBERED events (default 5,000)
//   remembered by a trigger node;
// - how often the run-once election gave up (its fixed log line, UNSETTLED_ELECTION).
import { readFileSync } from 'node:fs';

import { UNSETTLED_ELECTION } from '../nodes/VoucherServiceTrigger/unsettledElection.ts';
import { TRIGGER_SECRET, activeTriggerWorkflow, event, signed, voucherTriggerNode } from './triggerWorkflows.mts';
import { fire, type Delivery, type LoadResult } from './load.mts';
import { executionCount, type BenchN8n } from './harness.mts';
import { envInt, fmt, say } from './report.mts';
import { webhookCredential } from '../real-n8n/fixtures.mts';
import type { N8nRest } from '../real-n8n/rest.mts';

export const FLOOD_SECONDS = envInt('BENCH_FLOOD_S', 30);
export const FLOOD_CLIENTS = envInt('BENCH_FLOOD_CLIENTS', 32);
export const FLOOD_GENUINE = envInt('BENCH_FLOOD_GENUINE', 40);
export const REMEMBERED = envInt('BENCH_REMEMBERED', 5000);
const HEADER = 'x-bench-auth';

/** Lines of n8n's log in which the run-once election gave up. */
export function electionFallbacks(logFile: string): number {
	return readFileSync(logFile, 'utf8').split('\n').filter((line) => line.includes(UNSETTLED_ELECTION)).length;
}

export interface FloodResult {
	forged: { count: number; perSecond: number; statuses: Record<number, number> };
	genuine: LoadResult;
	/** Events the workflow ran, and how many ran other than exactly once. */
	ran: number;
	notOnce: number;
	seconds: number;
}

/** Every execution of a workflow, paged as n8n 2.41 pages them. */
async function executionIds(rest: N8nRest, workflowId: string): Promise<string[]> {
	const ids = new Set<string>();
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	let cursor: string | null = null;
	do {
		const page: { results: Array<{ id: string }>; nextCursor?: string | null } = await rest.request('GET', `/rest/executions?filter=${filter}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
		for (const e of page.results) ids.add(e.id);
		cursor = page.nextCursor ?? null;
	} while (cursor);
	return [...ids];
}

/** How many times each event id reached the node after the trigger ("Received"). */
async function runsPerEvent(rest: N8nRest, workflowId: string, idOf: (json: Record<string, unknown>) => string): Promise<Map<string, number>> {
	const runs = new Map<string, number>();
	for (const id of await executionIds(rest, workflowId)) {
		const ex = await rest.getExecution(id);
		const received = (ex.data.resultData.runData.Received?.[0]?.data?.main?.[0] ?? []) as Array<{ json: Record<string, unknown> }>;
		for (const item of received) runs.set(idOf(item.json), (runs.get(idOf(item.json)) ?? 0) + 1);
	}
	return runs;
}

async function waitForExecutions(rest: N8nRest, workflowId: string, expected: number): Promise<void> {
	const deadline = Date.now() + 120_000;
	while (Date.now() < deadline && (await executionCount(rest, workflowId)) < expected) await new Promise((r) => setTimeout(r, 500));
	await new Promise((r) => setTimeout(r, 3000)); // the elections' holds end
}

/** Forged deliveries from `clients` clients in a closed loop until `seconds` passed and `genuine` is done. */
async function flood(url: string, forge: () => Delivery, genuine: () => Promise<LoadResult>): Promise<{ forged: FloodResult['forged']; genuine: LoadResult; seconds: number }> {
	const started = performance.now();
	const statuses: Record<number, number> = {};
	let genuineDone = false;
	let count = 0;
	const client = async () => {
		while (!genuineDone || performance.now() - started < FLOOD_SECONDS * 1000) {
			const { body, headers } = forge();
			const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
			await res.arrayBuffer();
			statuses[res.status] = (statuses[res.status] ?? 0) + 1;
			count++;
		}
	};
	const clients = Array.from({ length: FLOOD_CLIENTS }, client);
	await new Promise((r) => setTimeout(r, 1000)); // the flood is on before the first genuine event
	const result = await genuine();
	genuineDone = true;
	await Promise.all(clients);
	const seconds = (performance.now() - started) / 1000;
	return { forged: { count, perSecond: count / seconds, statuses }, genuine: result, seconds };
}

const orderNumberOf = (json: Record<string, unknown>) => String((json.data as { orderNumber: string }).orderNumber);
const bodyOrderNumberOf = (json: Record<string, unknown>) => orderNumberOf(json.body as Record<string, unknown>);

/** The flood at our trigger (a fresh workflow) and at the Webhook node with Header Auth. */
export async function floodBoth(b: BenchN8n, label: string): Promise<{ ours: FloodResult; plain: FloodResult }> {
	const cred = await webhookCredential(b.rest, `Voucher webhooks (flood ${label})`, TRIGGER_SECRET);
	const oursHook = crypto.randomUUID();
	const ours = await activeTriggerWorkflow(b, `bench flood voucher trigger ${label}`, voucherTriggerNode(oursHook, cred));
	const header = await b.rest.createCredential(`Header auth (flood ${label})`, 'httpHeaderAuth', { name: HEADER, value: TRIGGER_SECRET });
	const path = `bench-flood-${crypto.randomUUID()}`;
	const plain = await activeTriggerWorkflow(b, `bench flood webhook header auth ${label}`, {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path, authentication: 'headerAuth', responseMode: 'onReceived', options: {} },
		credentials: { httpHeaderAuth: { id: header.id, name: header.name } },
	});
	const oursUrl = `${b.n8n.url}/webhook/${oursHook}/webhook`;
	const plainUrl = `${b.n8n.url}/webhook/${path}`;
	await b.rest.waitForWebhook(oursUrl);
	await b.rest.waitForWebhook(plainUrl);
	const measure = async (url: string, workflowId: string, forge: () => Delivery, real: (body: string) => Delivery, idOf: (json: Record<string, unknown>) => string): Promise<FloodResult> => {
		const bodies = Array.from({ length: FLOOD_GENUINE }, () => event());
		const r = await flood(url, forge, () => fire(url, 4, bodies.length, (i) => real(bodies[i])));
		await waitForExecutions(b.rest, workflowId, r.genuine.statuses[200] ?? 0);
		const runs = await runsPerEvent(b.rest, workflowId, idOf);
		const ids = bodies.map((body) => orderNumberOf(JSON.parse(body) as Record<string, unknown>));
		const notOnce = ids.filter((id) => runs.get(id) !== 1).length + [...runs.keys()].filter((id) => !ids.includes(id)).length;
		say(`flood ${label} at ${url}: forged ${r.forged.count} in ${fmt(r.seconds, 1)} s = ${fmt(r.forged.perSecond)}/s ${JSON.stringify(r.forged.statuses)}; genuine p99 ${fmt(r.genuine.p99)} ms ${JSON.stringify(r.genuine.statuses)}; ran ${runs.size}, not once ${notOnce}`);
		return { ...r, ran: runs.size, notOnce };
	};
	const forgedSignature = (): Delivery => ({ body: event(), headers: { signature: 'ab'.repeat(64) } });
	const oursResult = await measure(oursUrl, ours, forgedSignature, signed, orderNumberOf);
	const plainResult = await measure(plainUrl, plain, () => ({ body: event(), headers: { [HEADER]: 'forged' } }), (body) => ({ body, headers: { [HEADER]: TRIGGER_SECRET } }), bodyOrderNumberOf);
	return { ours: oursResult, plain: plainResult };
}

/**
 * A trigger workflow that has seen `REMEMBERED` events, and a maker of fresh ones that have
 * seen none, each with its own webhook URL.
 */
export async function rememberingTriggers(b: BenchN8n): Promise<{ seeded: { id: string; url: string }; fresh: (name: string) => Promise<{ id: string; url: string }> }> {
	const cred = await webhookCredential(b.rest, 'Voucher webhooks (remembered)', TRIGGER_SECRET);
	const fresh = async (name: string) => {
		const hook = crypto.randomUUID();
		const id = await activeTriggerWorkflow(b, name, voucherTriggerNode(hook, cred));
		const url = `${b.n8n.url}/webhook/${hook}/webhook`;
		await b.rest.waitForWebhook(url);
		return { id, url };
	};
	const seeded = await fresh('bench remembered events');
	say(`remembering ${REMEMBERED} events (each one's execution holds the election for about a second)`);
	const seed = await fire(seeded.url, 16, REMEMBERED, () => signed(event()));
	await waitForExecutions(b.rest, seeded.id, seed.statuses[200] ?? 0);
	return { seeded, fresh };
}

/**
 * p99 of signed deliveries at 16 at a time into a trigger node that remembers nothing and
 * into one that has seen `REMEMBERED` events, alternating in halves.
 */
export async function rememberedP99(b: BenchN8n, count: number): Promise<{ none: LoadResult[]; remembered: LoadResult[] }> {
	const { seeded, fresh } = await rememberingTriggers(b);
	const half = Math.ceil(count / 2);
	const none: LoadResult[] = [];
	const remembered: LoadResult[] = [];
	for (let round = 0; round < 2; round++) {
		const empty = await fresh(`bench remembers nothing ${round}`);
		none.push(await fire(empty.url, 16, half, () => signed(event())));
		await waitForExecutions(b.rest, empty.id, half);
		remembered.push(await fire(seeded.url, 16, half, () => signed(event())));
		await waitForExecutions(b.rest, seeded.id, REMEMBERED + (round + 1) * half);
	}
	return { none, remembered };
}
