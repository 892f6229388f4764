import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { RateLimits } from '../../../../sandbox/server.mts';
import { simulate } from './ratePacingSimulation.mts';

/*
 * Whole runs of the pacing on a fake clock (25 ms answers, Maximum Concurrency at its default)
 * against every shape of bench:ratelimit, as many rows as it sends: refusals as a share of every
 * request from the first, and wall time against the floor (what the limit needs to admit what
 * it admitted). Issue 32's goals are ≤ 10 % and ≤ 1.25 ×; where the pacing cannot meet them its
 * figure today is held, so a regression shows.
 */
const GOAL = { share: 0.1, wall: 1.25 };

/*
 * The misses, and why. A fixed window of 3 or 15 (1, 5 a second) is 1 + 2 or 1 + 2 + 4 + 8:
 * the slow start's next round, sent before anything is refused, is refused whole. A window that
 * tells nothing is found by probes, each step refused costing one (the share). At 1 or 2 a second, 20 or 24 rows allow 2 refusals: the
 * round that finds the limit takes them, and a growth of the pace, the probe for the period,
 * or the request that tells a lone Retry-After from a sporadic one, one more each.
 */
const KNOWN_MISSES: Record<string, Partial<typeof GOAL>> = {
	'tokenBucket 1/s none': { share: 0.14 },
	'tokenBucket 2/s retryAfter': { share: 0.15 },
	'fixedWindow 1/s retryAfter': { share: 0.24 },
	'fixedWindow 2/s retryAfter': { share: 0.15 },
	'fixedWindow 5/s retryAfter': { share: 0.24 },
	// Its edges cost refused probes, fine from where the next window may begin, and refused
	// heads: 0.38, 0.29 and 0.31 refused before, at 1.35, 1.06 and 1.09 × the floor, and 1.33
	// and 1.34 at 20 and 100 a second. The later executions gain (sharedPaces.simulation).
	'fixedWindow 1/s none': { share: 0.5 },
	'fixedWindow 2/s none': { share: 0.4 },
	'fixedWindow 5/s none': { share: 0.36 },
};

/** bench:ratelimit's shapes: its rows, windows of 3 s, headers of either form. */
function shapes(): Array<[string, RateLimits, number, { lookUp?: boolean }]> {
	const all: Array<[string, RateLimits, number, { lookUp?: boolean }]> = [];
	for (const kind of ['tokenBucket', 'fixedWindow'] as const)
		for (const rate of [1, 2, 5, 20, 100])
			for (const signal of ['retryAfter', 'headers', 'none'] as const) {
				const seconds = kind === 'fixedWindow' ? 3 : 1;
				const told = kind === 'fixedWindow' ? ('xRateLimit' as const) : ('rateLimit' as const);
				const limit = {
					kind,
					requests: rate * seconds,
					seconds,
					signal: signal === 'headers' ? told : signal,
				};
				all.push([`${kind} ${rate}/s ${signal}`, limit, Math.max(20, 12 * rate), {}]);
			}
	// nginx's limit_req: a 503 or a 429 reaches the pacing alike, a refusal without hints.
	const nginx = (requests: number, burst: number) =>
		({ kind: 'leakyBucket', requests, seconds: 1, burst, signal: 'none' }) as const;
	for (const [rate, burst] of [
		[5, 5],
		[20, 10],
	]) {
		all.push([`leakyBucket ${rate}/s burst ${burst}`, nginx(rate, burst), 12 * rate, {}]);
		// Reads and creates in one execution, against one limit on both: a pace per route would
		// learn the limit twice over.
		all.push([
			`leakyBucket ${rate}/s burst ${burst}, with look-ups`,
			nginx(rate, burst),
			12 * rate,
			{ lookUp: true },
		]);
	}
	/*
	 * Limits per route (issue 41): one pace for both, learnt from admissions of reads and creates
	 * sent in turn, kept the tighter route to about half its rate (1.61 and 2.05 ×) until a probe
	 * showed the routes apart (RoutePaces).
	 */
	for (const [reads, creates] of [
		[nginx(20, 10), nginx(5, 5)],
		[nginx(5, 5), nginx(20, 10)],
	])
		all.push([
			`leakyBucket per route, reads ${reads.requests}/s burst ${reads.burst}, creates ${creates.requests}/s burst ${creates.burst}, with look-ups`,
			[
				{ ...reads, method: 'GET' },
				{ ...creates, method: 'POST' },
			],
			60,
			{ lookUp: true },
		]);
	return all;
}

describe('the pacing against every shape of bench:ratelimit, simulated', () => {
	it.each(shapes())(
		'%s: refusals and wall against the floor',
		async (name, limit, rows, options) => {
			const run = await simulate({ limit }, rows, options);
			const bound = { ...GOAL, ...KNOWN_MISSES[name] };
			expect(run.refused / run.requests).toBeLessThanOrEqual(bound.share);
			expect(run.wallMs / run.floorMs).toBeLessThanOrEqual(bound.wall);
		},
	);
});

describe('the pacing without a limit', () => {
	it('refusals at random, a tenth, with Retry-After: 1, cost no more than half again as many 500s', async () => {
		// Seed 27 opens with two refused in a row, as a limit of one a second would: the pace it
		// taught held the run to a request a second until a lone refusal at it told otherwise.
		for (let seed = 21; seed <= 40; seed++) {
			const refusals = await simulate({ faults: { rateLimitRate: 0.1, seed } }, 1_000);
			const errors = await simulate({ faults: { errorRate: 0.1, seed } }, 1_000);
			expect(refusals.wallMs, `seed ${seed}`).toBeLessThanOrEqual(1.5 * errors.wallMs);
		}
	});

	it('a refusal at random with Retry-After: 1 (a tenth of answers) does not hold the others back a second', async () => {
		// Issue 41 item 3: were each to pause every request for its Retry-After, 1,000 rows would
		// take about 100 s more than without them. Each costs 1 to 100 ms (seeds 1 to 40): now and
		// then two or three in a row look like a limit and pause the run once.
		const clean = await simulate({ faults: {} }, 1_000);
		for (let seed = 1; seed <= 20; seed++) {
			const run = await simulate({ faults: { rateLimitRate: 0.1, seed } }, 1_000);
			expect(run.refused, `seed ${seed}`).toBeGreaterThan(50);
			expect(run.wallMs - clean.wallMs, `seed ${seed}`).toBeLessThanOrEqual(run.refused * 250);
		}
	});

	it('refusals at random among other faults (4 % 429, 36 % 500s or resets) cost about what the same answered 500 costs', async () => {
		// Issue 41's campaign: 40 % faults, a tenth of them 429s. Every 500 and reset once counted
		// as a refusal confirming a limit: 3.7 to 11 times the run with those 429s answered 500;
		// now 0.97 to 1.21, median 1.07.
		const ratios: number[] = [];
		for (const others of [{ errorRate: 0.36 }, { errorRate: 0.18, resetRate: 0.18 }]) {
			for (let seed = 1; seed <= 6; seed++) {
				const refusals = await simulate(
					{ faults: { rateLimitRate: 0.04, ...others, seed } },
					2_000,
				);
				const answered500 = { ...others, errorRate: others.errorRate + 0.04, seed };
				const errors = await simulate({ faults: answered500 }, 2_000);
				ratios.push(refusals.wallMs / errors.wallMs);
			}
		}
		ratios.sort((a, b) => a - b);
		expect(ratios[ratios.length >> 1]).toBeLessThanOrEqual(1.2);
		expect(ratios.at(-1)).toBeLessThanOrEqual(1.4);
	});

	it('costs a service that never refuses a few round trips: the rounds of the slow start', async () => {
		const rows = 1_000;
		const run = await simulate({ faults: {} }, rows);
		// 32 at a time from the start would take rows / 32 round trips of 25 ms.
		expect(run.wallMs).toBeLessThanOrEqual((Math.ceil(rows / 32) + 5) * 25);
		expect(run.requests).toBe(rows);
	});
});

describe('the pacing against a token bucket, its answers late', () => {
	/*
	 * A loaded host (busy loops on every core) reads answers late and out of order. Refusals and
	 * admissions then come mixed while the bucket is near empty; one admitted after a refusal
	 * made the pace be forgotten, and the next cycle, started there with whatever the bucket had
	 * left, taught a budget of one a second. Never refused at that pace, the run kept to it:
	 * 600 rows took 240 to 320 s (lateness 100 ms, seed 22; 200 ms, seed 4).
	 */
	const RATE = 100;
	const ROWS = 600;
	const limit = { kind: 'tokenBucket', requests: RATE, seconds: 1, signal: 'retryAfter' } as const;

	it(`places ${ROWS} rows within their time at the rate and 3 s more, answers up to 200 ms late`, async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 1, max: 2_147_483_646 }),
				fc.integer({ min: 0, max: 200 }),
				async (seed, lateByMs) => {
					const run = await simulate({ limit }, ROWS, { seed, lateByMs });
					expect(run.wallMs).toBeLessThanOrEqual((ROWS / RATE + 3) * 1000);
				},
			),
			{
				seed: 41,
				numRuns: 100,
				endOnFailure: true,
				examples: [
					[22, 100],
					[4, 200],
				],
			},
		);
	}, 300_000);
});

describe('the pacing against a fixed window without headers, from any start', () => {
	/*
	 * A run that starts late in a window of 60 every 3 s is refused at once; its first probe,
	 * admitted at the guessed wait, teaches a bucket's pace (2 every 40 ms). The next resumption
	 * then finds the window's period, and the run kept the budget of 2 for it: 2 every 2 s, 12 to
	 * 17 × the floor, in 4 of 61 runs searched (the examples).
	 */
	const limit = { kind: 'fixedWindow', requests: 60, seconds: 3, signal: 'none' } as const;

	it('places 240 rows within 3 × the floor, answers up to 50 ms late', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 0, max: 2_999 }),
				fc.integer({ min: 0, max: 50 }),
				async (startMs, lateByMs) => {
					const run = await simulate({ limit }, 240, { startMs, lateByMs, seed: startMs + 1 });
					expect(run.wallMs / run.floorMs).toBeLessThanOrEqual(3);
				},
			),
			{
				seed: 7,
				numRuns: 100,
				endOnFailure: true,
				examples: [
					[777, 20],
					[767, 20],
					[867, 1],
					[711, 35],
				],
			},
		);
	}, 300_000);
});

describe('executions at once on one account, sharing its pace', () => {
	/*
	 * Apart, each learnt the one limit behind them on its own: one took what the limit gave at
	 * each turn and the others learnt a request every few seconds, 1.3 to 3.5 × the floor behind
	 * a bucket (median of five starts), and behind a window that tells what it has left each spent
	 * it, up to 43 % refused.
	 */
	const executions = fc.integer({ min: 2, max: 4 });
	const concurrency = fc.constantFrom(1, 8, 32);
	const start = fc.integer({ min: 0, max: 2_999 });
	/** 100 rows each, a look-up before each create, answers up to 20 ms late. */
	const atOnce = (limit: RateLimits, executions: number, concurrency: number, startMs: number) =>
		simulate({ limit }, 100, { executions, concurrency, lookUp: true, startMs, lateByMs: 20 });

	it('behind a token bucket or nginx limit_req without hints: within 1.15 × the floor', async () => {
		const limits = fc.constantFrom<RateLimits>(
			{ kind: 'tokenBucket', requests: 10, seconds: 1, signal: 'none' },
			{ kind: 'leakyBucket', requests: 10, seconds: 1, burst: 5, signal: 'none' },
		);
		await fc.assert(
			fc.asyncProperty(limits, executions, concurrency, start, async (limit, n, c, startMs) => {
				const run = await atOnce(limit, n, c, startMs);
				expect(run.wallMs / run.floorMs).toBeLessThanOrEqual(1.15);
			}),
			{ seed: 11, numRuns: 40, endOnFailure: true },
		);
	}, 300_000);

	it('behind a fixed window that tells what it has left: at most 2 % refused', async () => {
		const limit = { kind: 'fixedWindow', requests: 30, seconds: 3, signal: 'xRateLimit' } as const;
		await fc.assert(
			fc.asyncProperty(executions, concurrency, start, async (n, c, startMs) => {
				const run = await atOnce(limit, n, c, startMs);
				expect(run.refused / run.requests).toBeLessThanOrEqual(0.02);
			}),
			{ seed: 12, numRuns: 40, endOnFailure: true },
		);
	}, 300_000);
});

describe('executions one after another behind a fixed window without headers', () => {
	// bench:ratelimit's fixed windows without headers, and the rows it sends.
	const WINDOWS = shapes()
		.filter(([name]) => /^fixedWindow .* none$/.test(name))
		.map(([, limit, rows]) => [limit, rows] as const);
	const [of300] = WINDOWS.filter(([limit]) => !Array.isArray(limit) && limit.requests === 300);

	/*
	 * Each begins where the last one left its window, spent or in part. Taking what such a window
	 * had left for the budget held later executions at 1 every 1.6 to 2.6 s, or a bucket's guessed
	 * second, behind 60 or 300 every 3 s: up to 15 × the floor (bench:ratelimit's windows, four
	 * in a row 0.2 to 10 s apart). Without it, under 4 ×.
	 */
	it('lets no later execution crawl, whatever the gap: at most 5 × the floor', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(...WINDOWS),
				fc.integer({ min: 0, max: 2_999 }),
				fc.integer({ min: 200, max: 10_000 }),
				async ([limit, rows], startMs, gapMs) => {
					const { runs } = await simulate({ limit }, rows, {
						startMs,
						inRow: 4,
						gapMs,
						lateByMs: 10,
						seed: startMs + 1,
					});
					for (const run of runs.slice(1)) expect(run.wallMs / run.floorMs).toBeLessThanOrEqual(5);
				},
			),
			{
				seed: 41,
				numRuns: 100,
				endOnFailure: true,
				// Found beside the search: the third execution took 14.7 × the floor, its rate
				// measured over the time before its first admission.
				examples: [[of300, 370, 2_000]],
			},
		);
	}, 600_000);
});
