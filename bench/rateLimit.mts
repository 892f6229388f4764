// Rate limits (issue #25): Order → Create per row, four fields mapped, default settings,
// against a sandbox that limits /v2 and commits nothing on a 429, and that accepts a used
// Reference (so a resend that bought twice would show as a double).
//   npm run bench:ratelimit
// (vitest, because the n8n-core runner of the tests needs its module aliases.)
// For each rate, as a token bucket (burst of one second) and as a fixed window of
// BENCH_WINDOW_SECONDS (default 3, windows on the clock's grid), signalled with Retry-After,
// with rate-limit headers on every answer (X-RateLimit-* with Reset in epoch seconds for the
// window, RateLimit-* with Reset in seconds left for the bucket) and with nothing: rows
// failed, wall against the floor (the time the limit needs to admit what it admitted, from
// the first request on), 429s as a share of requests, and doubles.
// Env: BENCH_DIST, BENCH_LATENCY_MS (default 25), BENCH_RATES (default 1,2,5,20,100),
//      BENCH_WINDOW_SECONDS, BENCH_ROWS_PER_RATE (default 12: rows = max(20, 12 × rate)).
import { test } from 'vitest';

import { beginRun, conditionsTable, fmt, machine, print, say } from './report.mts';
import { startSandbox } from '../sandbox/server.mts';
import type { RateLimitOptions } from '../sandbox/server.mts';
import { createOrders, envList } from './builtNode.mts';

const LATENCY = Number(process.env.BENCH_LATENCY_MS ?? 25);
const RATES = envList(process.env.BENCH_RATES, [1, 2, 5, 20, 100]);
const WINDOW_SECONDS = Number(process.env.BENCH_WINDOW_SECONDS ?? 3);
const ROWS_PER_RATE = Number(process.env.BENCH_ROWS_PER_RATE ?? 12);

const GOALS = { wallOverFloor: 1.25, refusedShare: 0.1 };

type Signal = 'retryAfter' | 'headers' | 'none';
const SIGNALS: Signal[] = ['retryAfter', 'headers', 'none'];
const KINDS: Array<RateLimitOptions['kind']> = ['tokenBucket', 'fixedWindow'];

function limitOf(kind: RateLimitOptions['kind'], signal: Signal, rate: number): RateLimitOptions {
	const seconds = kind === 'fixedWindow' ? WINDOW_SECONDS : 1;
	const told = kind === 'fixedWindow' ? 'xRateLimit' : 'rateLimit';
	return { kind, requests: rate * seconds, seconds, signal: signal === 'headers' ? told : signal };
}

/** What the limit needs to admit `admitted` requests, the first one counted at `firstAt` (ms). */
function floorMs({ kind, requests, seconds }: RateLimitOptions, admitted: number, firstAt: number) {
	const length = seconds * 1000;
	if (kind === 'tokenBucket') return (Math.max(0, admitted - requests) / requests) * length;
	const windows = Math.ceil(admitted / requests);
	if (windows <= 1) return 0;
	return Math.ceil(firstAt / length) * length - firstAt + (windows - 2) * length;
}

const sandbox = await startSandbox({
	processingDelayMs: 0,
	timeFactor: 0.0005,
	latencyMs: LATENCY,
	acceptDuplicateReferences: true,
});

let run = 0;
async function once(limit: RateLimitOptions | null, rows: number) {
	sandbox.configure({ rateLimit: limit });
	sandbox.reset();
	run++;
	const { result, wallMs } = await createOrders(sandbox, `limit${run}`, rows, true);
	const out = result.items[0] ?? [];
	const failed = result.error ? rows : out.filter((item) => item.json.error).length;
	const requests = sandbox.state.requests.filter((entry) => entry.path.startsWith('/v2'));
	const refused = requests.filter((entry) => entry.status === 429).length;
	const perReference = new Map<string | null, number>();
	for (const { kind, reference } of sandbox.state.ledger)
		if (kind === 'debit') perReference.set(reference, (perReference.get(reference) ?? 0) + 1);
	const doubles = [...perReference.values()].filter((count) => count > 1).length;
	// The limiter counts a request after the sandbox's latency.
	const firstAt = Date.parse(requests[0]?.time ?? new Date().toISOString()) + LATENCY;
	const floor = limit ? floorMs(limit, requests.length - refused, firstAt) : 0;
	return { wallMs, failed, refused, requests: requests.length, doubles, floor };
}

test('rate limits: rows failed, wall against the floor, 429s', async () => {
	await beginRun();
	say(machine());
	await once(null, 50); // warm-up: n8n runtime, JIT
	const lines = [
		'| Limit | Signal | Rows | Rows failed | Wall ÷ floor | 429s, share of requests | Doubles | Goals |',
		'|---|---|---|---|---|---|---|---|',
	];
	let missed = 0;
	for (const kind of KINDS)
		for (const rate of RATES)
			for (const signal of SIGNALS) {
				const limit = limitOf(kind, signal, rate);
				const rows = Math.max(20, ROWS_PER_RATE * rate);
				say(`${kind} ${rate}/s ${signal}: ${rows} rows`);
				const r = await once(limit, rows);
				const ratio = r.floor > 0 ? r.wallMs / r.floor : Infinity;
				const share = r.refused / r.requests;
				const goals = {
					'0 failed': r.failed === 0,
					[`wall ≤ ${GOALS.wallOverFloor} × floor`]: ratio <= GOALS.wallOverFloor,
					[`429s ≤ ${GOALS.refusedShare * 100} %`]: share <= GOALS.refusedShare,
					'0 doubles': r.doubles === 0,
				};
				const misses = Object.entries(goals).filter(([, met]) => !met);
				missed += misses.length;
				const name =
					kind === 'fixedWindow'
						? `${limit.requests} per ${limit.seconds} s fixed window`
						: `${rate}/s token bucket`;
				lines.push(
					`| ${name} | ${limit.signal} | ${rows} | ${r.failed} | ${fmt(ratio, 2)} × (${fmt(r.wallMs / 1000, 1)} s ÷ ${fmt(r.floor / 1000, 1)} s) | ${fmt(share * 100, 0)} % (${r.refused} of ${r.requests}) | ${r.doubles} | ${misses.length === 0 ? 'met' : `MISSED: ${misses.map(([goal]) => goal).join(', ')}`} |`,
				);
			}
	print(
		`### Rate limits, Order → Create per row (${LATENCY} ms answers; goals: 0 failed, wall ≤ ${GOALS.wallOverFloor} × floor, 429s ≤ ${GOALS.refusedShare * 100} %, 0 doubles)\n\n${lines.join('\n')}`,
	);
	print(`${missed === 0 ? 'All goals met.' : `${missed} goal(s) MISSED.`}`);
	print(conditionsTable('bench:ratelimit'));
	await sandbox.close();
}, 1_800_000);
