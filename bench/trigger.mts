// Benchmarks 3 and 4: webhook deliveries into an active workflow under
// `n8n start`, our Voucher Service Trigger against n8n's plain Webhook node
// (no verification, then NoOp), both active in the same n8n.
//   npm run bench:trigger
// Env: BENCH_TRIGGER_N1 (deliveries per variant at concurrency 1, default 100),
//      BENCH_TRIGGER_N16 (at concurrency 16, default 200), BENCH_REFUSED_N (per
//      kind of refusal, default 200).
// 3. Accepted: every delivery is signed (HMAC-SHA512 hex of the raw body in the
//    `signature` header) and unique, so dedup lets it through. Plain and ours
//    alternate in halves (plain, ours, plain, ours) and wait for n8n to finish
//    the executions each half started before the next half starts.
// 4. Refused: bad signatures (401), duplicates and filtered events (2xx, no
//    execution), checked to start no execution.
// Then (unless BENCH_PROFILE=0) a second n8n under --cpu-prof takes refused,
// ours-accepted and plain-accepted deliveries, and the profile is summarised
// over each load window (BENCH_PROFILE_N deliveries each, default 100).
import { createHmac } from 'node:crypto';

import { TRIGGER_NODE, executionCount, startBenchN8n, type BenchN8n } from './instance.mts';
import { fire, type Delivery, type LoadResult } from './load.mts';
import { withProfiledN8n } from './profile.mts';
import { atLeast, atMost, envInt, fmt, info, machine, print, say, table, type Row } from './report.mts';

const N1 = envInt('BENCH_TRIGGER_N1', 100);
const N16 = envInt('BENCH_TRIGGER_N16', 200);
const REFUSED_N = envInt('BENCH_REFUSED_N', 200);
const SECRET = 'whsec_bench_trigger_secret';
const OURS_HOOK = 'b3c4d5e6-0000-4000-8000-00000000bech';
const PLAIN_PATH = 'bench-plain-webhook';

const noOp = { id: 'noop', name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [220, 0], parameters: {} };
const connect = (from: string) => ({ [from]: { main: [[{ node: 'Received', type: 'main', index: 0 }]] } });

async function setUp(b: BenchN8n) {
	const cred = await b.rest.createCredential('Voucher webhooks (bench)', 'voucherServiceWebhookApi', { secret: SECRET });
	const plain = await b.rest.createWorkflow({
		name: 'bench plain webhook',
		nodes: [
			{
				id: 'plain',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: 'b3c4d5e6-0000-4000-8000-0000000plain',
				parameters: { httpMethod: 'POST', path: PLAIN_PATH, responseMode: 'onReceived', options: {} },
			},
			noOp,
		],
		connections: connect('Webhook'),
		settings: { executionOrder: 'v1' },
	});
	const ours = await b.rest.createWorkflow({
		name: 'bench voucher trigger',
		nodes: [
			{
				id: 'ours',
				name: 'Voucher Service Trigger',
				type: TRIGGER_NODE,
				typeVersion: 1,
				position: [0, 0],
				webhookId: OURS_HOOK,
				parameters: { events: ['ORDER_UPDATED', 'VOUCHER_UPDATED'], options: {} },
				credentials: { voucherServiceWebhookApi: { id: cred.id, name: cred.name } },
			},
			noOp,
		],
		connections: connect('Voucher Service Trigger'),
		settings: { executionOrder: 'v1' },
	});
	await b.rest.activateWorkflow(plain.id);
	await b.rest.activateWorkflow(ours.id);
	return {
		plain: { id: plain.id, url: `${b.n8n.url}/webhook/${PLAIN_PATH}` },
		ours: { id: ours.id, url: `${b.n8n.url}/webhook/${OURS_HOOK}/webhook` },
	};
}

let serial = 0;
function event(status = 'COMPLETED', orderNumber = `BENCH-${process.pid}-${++serial}`): string {
	return JSON.stringify({
		type: 'ORDER_UPDATED',
		data: { orderNumber, reference: `ref-${orderNumber}`, status, vouchers: [{ value: 1000, serial, code: 'X', pin: '1234' }] },
	});
}
const signed = (body: string): Delivery => ({ body, headers: { signature: createHmac('sha512', SECRET).update(body).digest('hex') } });

/** Waits until a workflow has `expected` executions (bounded), so the next measurement starts quiet. */
async function drain(b: BenchN8n, workflowId: string, expected: number): Promise<number> {
	const deadline = Date.now() + 120_000;
	let n = 0;
	while (Date.now() < deadline && (n = await executionCount(b.rest, workflowId)) < expected) await new Promise((r) => setTimeout(r, 500));
	await new Promise((r) => setTimeout(r, 1000));
	return n;
}

function merge(a: LoadResult, b: LoadResult): LoadResult & { halves: string } {
	// Rate over both halves; latency percentiles: the worse half's (conservative).
	const count = a.count + b.count;
	const seconds = a.seconds + b.seconds;
	const statuses = { ...a.statuses };
	for (const [k, v] of Object.entries(b.statuses)) statuses[Number(k)] = (statuses[Number(k)] ?? 0) + v;
	return { count, seconds, perSecond: count / seconds, p50: Math.max(a.p50, b.p50), p99: Math.max(a.p99, b.p99), statuses, monoStartUs: a.monoStartUs, monoEndUs: b.monoEndUs, halves: `${fmt(a.perSecond)} / ${fmt(b.perSecond)} /s` };
}

const b = await startBenchN8n();
try {
	const hooks = await setUp(b);
	const expected = { plain: 0, ours: 0 };
	const accepted = async (which: 'plain' | 'ours', concurrency: number, count: number) => {
		const r = await fire(hooks[which].url, concurrency, count, () => signed(event()));
		expected[which] += r.statuses[200] ?? 0;
		const done = await drain(b, hooks[which].id, expected[which]);
		say(`${which} c=${concurrency}: ${count} in ${fmt(r.seconds, 2)} s = ${fmt(r.perSecond)}/s, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, statuses ${JSON.stringify(r.statuses)}, executions ${done}/${expected[which]}`);
		return r;
	};
	// warm-up
	await accepted('plain', 4, 40);
	await accepted('ours', 4, 40);

	const rows3: Row[] = [];
	const plainAt: Record<number, LoadResult> = {};
	for (const [c, n] of [
		[1, N1],
		[16, N16],
	]) {
		const half = Math.ceil(n / 2);
		const p1 = await accepted('plain', c, half);
		const o1 = await accepted('ours', c, half);
		const p2 = await accepted('plain', c, half);
		const o2 = await accepted('ours', c, half);
		const plain = merge(p1, p2);
		const ours = merge(o1, o2);
		plainAt[c] = plain;
		rows3.push(
			info(`c=${c} plain Webhook node: p50`, `${fmt(plain.p50)} ms`, `statuses ${JSON.stringify(plain.statuses)}, halves ${plain.halves}`),
			info(`c=${c} ours: p50`, `${fmt(ours.p50)} ms`, `statuses ${JSON.stringify(ours.statuses)}, halves ${ours.halves}`),
			atLeast(`c=${c} accepted deliveries/s, ours vs plain`, ours.perSecond, plain.perSecond, 0.9, '/s'),
			atMost(`c=${c} p99 latency, ours vs plain`, ours.p99, plain.p99, 1.1, 'ms'),
		);
	}
	const totals = { plain: await executionCount(b.rest, hooks.plain.id), ours: await executionCount(b.rest, hooks.ours.id) };
	rows3.push(info('executions stored (plain / ours)', `${totals.plain} / ${totals.ours}`, `accepted ${expected.plain} / ${expected.ours}`));
	print(table(`Benchmark 3: accepted deliveries into an active workflow — ${machine()}`, rows3));

	// 4. refused: nothing may start an execution
	const before = await executionCount(b.rest, hooks.ours.id);
	const dupBody = event();
	const first = await fire(hooks.ours.url, 1, 1, () => signed(dupBody)); // the one real sighting
	const afterFirst = await drain(b, hooks.ours.id, before + 1);
	const kinds: Record<string, (i: number) => Delivery> = {
		'bad signature (401)': () => ({ body: event(), headers: { signature: 'ab'.repeat(64) } }),
		'duplicate (2xx, ignored)': () => signed(dupBody),
		'filtered: status PROCESSING (2xx, ignored)': () => signed(event('PROCESSING')),
	};
	const rows4: Row[] = [];
	const results: LoadResult[] = [];
	for (const [kind, make] of Object.entries(kinds)) {
		const r = await fire(hooks.ours.url, 16, REFUSED_N, make);
		results.push(r);
		say(`refused ${kind}: ${fmt(r.perSecond)}/s, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, ${JSON.stringify(r.statuses)}`);
		rows4.push(
			atLeast(`${kind}: answered/s at c=16 vs plain accepted/s at c=16`, r.perSecond, plainAt[16].perSecond, 10, '/s'),
			{ ...atMost(`${kind}: p99 at c=16 (goal < 50 ms)`, r.p99, 50, 1, 'ms'), met: r.p99 < 50, goal: '< 50 ms' },
			info(`${kind}: p50, statuses`, `${fmt(r.p50)} ms`, JSON.stringify(r.statuses)),
		);
	}
	await new Promise((r) => setTimeout(r, 3000));
	const after = await executionCount(b.rest, hooks.ours.id);
	rows4.push(info('executions started by refused deliveries', String(after - afterFirst), `first sighting ${JSON.stringify(first.statuses)} started ${afterFirst - before}`));
	print(table(`Benchmark 4: refused deliveries (no execution), ${REFUSED_N} each at concurrency 16 — ${machine()}`, rows4));
} finally {
	await b.stop();
}

if (envInt('BENCH_PROFILE', 1) > 0) {
	const n = envInt('BENCH_PROFILE_N', 100);
	await withProfiledN8n(async (p) => {
		const hooks = await setUp(p);
		await new Promise((r) => setTimeout(r, 3000)); // let activation finish
		await fire(hooks.plain.url, 4, 40, () => signed(event()));
		await fire(hooks.ours.url, 4, 40, () => signed(event()));
		const window = async (title: string, url: string, make: () => Delivery) => {
			const r = await fire(url, 16, n, make);
			await new Promise((res) => setTimeout(res, 2000)); // executions the window started finish inside it
			return { title: `${title}, ${n} at c=16 (${fmt(r.perSecond)}/s)`, nodeMonoStartUs: r.monoStartUs, nodeMonoEndUs: r.monoEndUs + 2_000_000, requests: n };
		};
		return [
			await window('ours, refused: bad signature', hooks.ours.url, () => ({ body: event(), headers: { signature: 'ab'.repeat(64) } })),
			await window('ours, accepted', hooks.ours.url, () => signed(event())),
			await window('plain Webhook node, accepted', hooks.plain.url, () => signed(event())),
		];
	});
}
