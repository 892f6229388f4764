// Per-item CPU cost of Order → Create, two builds side by side in one process.
//   BENCH_DISTS=<baseline dist>[,<candidate dist>] \
//     bash scripts/with-node24.sh npx vitest run --config bench/perItem.config.mts bench/perItem.mts
// (vitest, because the n8n-core runner of the tests needs its module aliases.)
// Each dist is a built package folder: npm run build, and copy the baseline's dist/ under
// node_modules/ (e.g. node_modules/.perf-baseline) so it resolves n8n-workflow. Both run the same 2,000 rows (reference and amount from expressions,
// everything else fixed, default options) through a real n8n-core workflow against
// the sandbox at 0 ms latency, alternating for BENCH_ROUNDS rounds; the fastest of
// each is kept. Env: BENCH_ORDERS_N (default 2000), BENCH_ROUNDS (default 5).
// BENCH_REFUSE=1 isolates our per-item path from n8n's: no expressions, and a credential
// limit of NGN 1 so the spending guard refuses every row before anything is sent
// (continueOnFail), leaving plan() = read, validate, check, per row.
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

import { test } from 'vitest';

import { startSandbox } from '../sandbox/server.mts';
import { runNode } from '../n8n-core-runner/runWorkflow.mts';

const REFUSE = process.env.BENCH_REFUSE === '1';
const N = Number(process.env.BENCH_ORDERS_N ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const dists = (process.env.BENCH_DISTS ?? '').split(',').filter(Boolean).map((dir) => resolve(dir));
if (dists.length === 0) throw new Error('set BENCH_DISTS=<dist>[,<dist>]');

const require = createRequire(import.meta.url);
/** Time inside Create's plan(): every item read, validated and checked, before anything is sent. */
const planMs = dists.map(() => 0);
const nodes = dists.map((dir, index) => {
	const { VoucherService } = require(`${dir}/nodes/VoucherService/VoucherService.node.js`);
	const create = require(`${dir}/nodes/VoucherService/actions/order/create.operation.js`);
	const plan = create.plan;
	create.plan = async function (this: unknown, ...args: unknown[]) {
		const started = process.hrtime.bigint();
		try {
			return await plan.apply(this, args);
		} finally {
			planMs[index] += Number(process.hrtime.bigint() - started) / 1e6;
		}
	};
	return new VoucherService();
});

const { VoucherServiceApi } = require(`${dists[0]}/credentials/VoucherServiceApi.credentials.js`);
const sandbox = await startSandbox({ processingDelayMs: 0, timeFactor: 0.0005, latencyMs: 0 });
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
console.log(`load average before: ${load()}`);

let run = 0;
/** Wall and CPU time (this process: n8n-core, the node and the sandbox) of one run, in ms. */
async function once(index: number): Promise<{ wall: number; cpu: number; plan: number }> {
	const nodeType = nodes[index];
	planMs[index] = 0;
	run++;
	const items = Array.from({ length: N }, (_, i) => ({ reference: `b${run}-${i}`, amount: 1000 }));
	const started = process.hrtime.bigint();
	const cpuBefore = process.cpuUsage();
	const result = await runNode({
		nodeType: nodeType as never,
		credentialTypes: [new VoucherServiceApi()],
		credentials: {
			voucherServiceApi: { baseUrl: sandbox.url, ...sandbox.keys, maxOrderTotal: REFUSE ? 1 : 0 },
		},
		parameters: {
			resource: 'order',
			operation: 'create',
			reference: REFUSE ? 'fixed-reference' : '={{ $json.reference }}',
			productCode: 'VCH-INSTANT',
			amount: REFUSE ? 1000 : '={{ $json.amount }}',
		},
		inputItems: items,
		continueOnFail: REFUSE,
	});
	const cpuUsed = process.cpuUsage(cpuBefore);
	const wall = Number(process.hrtime.bigint() - started) / 1e6;
	const cpu = (cpuUsed.user + cpuUsed.system) / 1000;
	const out = result.items[0] ?? [];
	if (result.error || out.length !== N || out.some((item) => Boolean(item.json.error) !== REFUSE)) {
		throw new Error(`run failed: ${result.error?.message ?? `${out.length} items`}`);
	}
	sandbox.reset();
	return { wall, cpu, plan: planMs[index] };
}

test('per-item cost, side by side', async () => {
	await once(0); // warm-up: n8n runtime, JIT
	const best = nodes.map(() => ({ wall: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY, plan: Number.POSITIVE_INFINITY }));
	const name = (index: number) => (index === 0 ? 'baseline ' : 'candidate');
	const perItem = (ms: number) => ((ms * 1000) / N).toFixed(0);
	for (let round = 1; round <= ROUNDS; round++) {
		const line: string[] = [];
		// Alternate which build goes first, so neither always runs on a warmer or quieter machine.
		const order = round % 2 === 0 ? [...nodes.keys()].reverse() : [...nodes.keys()];
		for (const index of order) {
			const { wall, cpu, plan } = await once(index);
			best[index].plan = Math.min(best[index].plan, plan);
			best[index].wall = Math.min(best[index].wall, wall);
			best[index].cpu = Math.min(best[index].cpu, cpu);
			line.push(`${name(index)} wall ${wall.toFixed(0)} ms cpu ${cpu.toFixed(0)} ms plan ${plan.toFixed(0)} ms`);
		}
		console.log(`round ${round}: ${line.join(', ')}`);
	}
	for (const [index, { wall, cpu, plan }] of best.entries()) {
		console.log(
			`${name(index)}: best per item: wall ${perItem(wall)} µs, CPU ${perItem(cpu)} µs, plan ${perItem(plan)} µs`,
		);
	}
	if (best.length === 2) {
		console.log(
			`saved per item: wall ${perItem(best[0].wall - best[1].wall)} µs, CPU ${perItem(best[0].cpu - best[1].cpu)} µs, plan ${perItem(best[0].plan - best[1].plan)} µs`,
		);
	}
	console.log(`load average after: ${load()}`);
	await sandbox.close();
}, 1_800_000);
