// What the pacing's slow start costs (issue #20 item 4): Order → Create over 100 and 1,000
// rows at 25 ms, with the pacing starting at the node's START_LIMIT (1: rounds of 1, 2, 4 …)
// and at other starts, side by side in one process.
//   npm run bench:pacing
// (vitest, because the n8n-core runner of the tests needs its module aliases.)
// The built package in BENCH_DIST (default dist) runs a real n8n-core workflow against the
// sandbox; between runs the start is set on the built transport module, so everything else
// is the same code. Four fields are mapped by expression, as a sheet maps them. Each row
// count alternates the starts for BENCH_ROUNDS rounds (default 5); the median and the spread
// of each are printed, with the load average before and after. Then what a high start costs
// the service: 1,000 rows against a sandbox that answers 429 over BENCH_RATE_LIMIT
// requests/s, with the 429s each start draws.
// Env: BENCH_DIST, BENCH_LATENCY_MS (default 25), BENCH_PACING_ROWS (default 100,1000),
//      BENCH_PACING_STARTS (default 1,4,16,32), BENCH_ROUNDS, BENCH_RATE_LIMIT (default 100;
//      0 skips it), BENCH_PACING_LIMITED_ROWS (default 1000).
import { loadavg } from 'node:os';

import { test } from 'vitest';

import { startSandbox } from '../sandbox/server.mts';
import { createOrders, envList, fromDist } from './builtNode.mts';

const LATENCY = Number(process.env.BENCH_LATENCY_MS ?? 25);
const ROWS = envList(process.env.BENCH_PACING_ROWS, [100, 1000]);
const STARTS = envList(process.env.BENCH_PACING_STARTS, [1, 4, 16, 32]);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RATE_LIMIT = Number(process.env.BENCH_RATE_LIMIT ?? 100);
const LIMITED_ROWS = Number(process.env.BENCH_PACING_LIMITED_ROWS ?? 1000);

const pacing = fromDist('nodes/VoucherService/transport/adaptiveConcurrency.js');
const shippedStart: number = pacing.START_LIMIT;
const sandbox = await startSandbox({
	processingDelayMs: 0,
	timeFactor: 0.0005,
	latencyMs: LATENCY,
});
const load = () =>
	loadavg()
		.map((value) => value.toFixed(2))
		.join(' / ');

let run = 0;
/**
 * Wall time of one run of `rows` orders, in ms, with the pacing starting at `start`. With
 * `failedRows`, rows that fail become error items (On Error: Continue) and are counted there.
 */
async function once(rows: number, start: number, failedRows?: { count: number }): Promise<number> {
	sandbox.reset();
	pacing.START_LIMIT = start;
	run++;
	const { result, wallMs: wall } = await createOrders(
		sandbox,
		`pace${run}`,
		rows,
		failedRows !== undefined,
	);
	const out = result.items[0] ?? [];
	if (failedRows) failedRows.count = out.filter((item) => item.json.error).length;
	else if (result.error || out.length !== rows || out.some((item) => item.json.error)) {
		throw new Error(`run failed: ${result.error?.message ?? `${out.length} items`}`);
	}
	return wall;
}

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

test('the pacing start, side by side', async () => {
	console.log(
		`load average 1 / 5 / 15 min before: ${load()}; ${LATENCY} ms latency; shipped start ${shippedStart}`,
	);
	await once(100, shippedStart); // warm-up: n8n runtime, JIT
	for (const rows of ROWS) {
		const walls = new Map(STARTS.map((start) => [start, [] as number[]]));
		for (let round = 0; round < ROUNDS; round++) {
			// Alternate the order, so no start always runs first on a warmer or quieter machine.
			const order = round % 2 === 0 ? STARTS : [...STARTS].reverse();
			for (const start of order) walls.get(start)?.push(await once(rows, start));
		}
		const base = median(walls.get(shippedStart) ?? walls.get(STARTS[0]) ?? []);
		for (const [start, values] of walls) {
			const spread = values.map((ms) => ms.toFixed(0)).join(' / ');
			console.log(
				`${rows} rows, start ${start}: median ${median(values).toFixed(0)} ms (${(median(values) / base).toFixed(2)} × start ${shippedStart}); rounds ${spread} ms`,
			);
		}
	}
	if (RATE_LIMIT > 0) {
		sandbox.configure({ rateLimitPerSecond: RATE_LIMIT });
		for (const start of STARTS) {
			const failed = { count: 0 };
			const wall = await once(LIMITED_ROWS, start, failed);
			const refused = sandbox.state.requests.filter((entry) => entry.status === 429).length;
			console.log(
				`${LIMITED_ROWS} rows against ${RATE_LIMIT} requests/s, start ${start}: ${wall.toFixed(0)} ms, ${refused} answered 429, ${failed.count} rows failed`,
			);
		}
		sandbox.configure({ rateLimitPerSecond: 0 });
	}
	pacing.START_LIMIT = shippedStart;
	console.log(`load average after: ${load()}`);
	await sandbox.close();
}, 1_800_000);
