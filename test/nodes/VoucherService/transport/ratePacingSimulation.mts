/**
 * A run of the node's pacing (AdaptiveConcurrency and its RatePacing, as they are) against the
 * sandbox's rate limiters and faults, on vitest's fake clock: `rows` creates, Maximum
 * Concurrency at its default, each answered `latencyMs` after it is sent (the limiter counts
 * it halfway), and up to `lateByMs` later at random, out of order, as a loaded host reads them.
 * A refusal is sent again at the pacing's time; a 500 is followed by a look-up, then, after the
 * create's backoff, by the create again, as placeOrder does. `lookUp`: each create follows a
 * read of its reference (If Reference Exists → Fail), sent until admitted; limits per route
 * count reads (GET) and creates (POST) apart, as the sandbox does, and each request names its
 * method to the pacing, as the client does.
 */
import { vi } from 'vitest';

import { AdaptiveConcurrency } from '../../../../nodes/VoucherService/transport/adaptiveConcurrency';
import { recallPace, rememberPace } from '../../../../nodes/VoucherService/transport/paceMemory';
import type { Pace } from '../../../../nodes/VoucherService/transport/pacingState';
import { readRateHints } from '../../../../nodes/VoucherService/transport/rateHints';
import { backoffDelay, CREATE_RETRY } from '../../../../nodes/VoucherService/transport/retry';
import {
	DEFAULT_CONCURRENCY,
	mapWithConcurrency,
} from '../../../../nodes/VoucherService/shared/concurrency';
import { createFaultRoller } from '../../../../sandbox/faults.mts';
import { createRateLimiters, floorMs } from '../../../../sandbox/rateLimit.mts';
import type { FaultOptions, RateLimits } from '../../../../sandbox/server.mts';

export interface SimulatedRun {
	wallMs: number;
	/** What the limit needs to admit what it admitted; 0 without a limit. */
	floorMs: number;
	/**
	 * Behind one fixed window: what it needs from the execution's start, where the window an
	 * earlier execution left may be partly or wholly spent (floorMs counts from the first send).
	 */
	startFloorMs?: number;
	refused: number;
	requests: number;
	/** The pace kept for the next execution (see the option `memoryKey`) when it ended. */
	remembered?: Pace;
}

/** A limit, or random faults with no limit behind them. */
export type Service = { limit: RateLimits } | { faults: FaultOptions };

const EPOCH = 1_700_000_000_000;

/** `failed`: a 500; `dropped`: no answer at all (a reset). */
type Answer = {
	outcome: 'admitted' | 'refused' | 'failed' | 'dropped';
	headers: Record<string, string>;
};

interface Options {
	latencyMs?: number;
	seed?: number;
	/** Where the run starts on the clock: a fixed window's grid is on it. */
	startMs?: number;
	lateByMs?: number;
	lookUp?: boolean;
	/** Where the pace is kept between executions (paceMemory.ts); none: nothing is kept. */
	memoryKey?: string;
}

export async function simulate(
	service: Service,
	rows: number,
	options: Options = {},
): Promise<SimulatedRun> {
	const [run] = await simulateExecutions(service, rows, 1, options);
	return run;
}

/**
 * `executions` runs one after another against one limit, each started `gapMs` after the last
 * one's last answer, as a workflow run again; each run's wall is from its own start.
 */
export async function simulateExecutions(
	service: Service,
	rows: number,
	executions: number,
	{ gapMs = 1_000, ...options }: Options & { gapMs?: number } = {},
): Promise<SimulatedRun[]> {
	vi.useFakeTimers({ now: EPOCH + (options.startMs ?? 0), loopLimit: 10_000_000 });
	try {
		const limiterFor = 'limit' in service ? createRateLimiters(service.limit) : undefined;
		const runs: SimulatedRun[] = [];
		const counted: number[] = [];
		for (let i = 0; i < executions; i++) {
			if (i > 0) vi.setSystemTime(Date.now() + gapMs);
			runs.push(await execute(service, limiterFor, rows, options, counted));
		}
		return runs;
	} finally {
		vi.useRealTimers();
	}
}

async function execute(
	service: Service,
	limiterFor: ReturnType<typeof createRateLimiters> | undefined,
	rows: number,
	{ latencyMs = 25, seed = 1, lateByMs = 0, lookUp = false, memoryKey }: Options,
	/** When the limit counted each request it admitted, over every execution so far. */
	counted: number[] = [],
): Promise<SimulatedRun> {
	const START = Date.now();
	const pacing = new AdaptiveConcurrency(DEFAULT_CONCURRENCY);
	if (memoryKey !== undefined)
		pacing.keepPace(recallPace(memoryKey), (pace) => rememberPace(memoryKey, pace));
	const fault = createFaultRoller('faults' in service ? service.faults : {});
	let refused = 0;
	let requests = 0;
	const admitted: string[] = [];
	let firstAt: number | undefined;
	let lastAnswerAt = START;
	const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
	// Its own draws, so the backoffs' stay as they were.
	let lateDraws = seed;
	const late = () => (lateDraws = (lateDraws * 48_271) % 2_147_483_647) / 2_147_483_647;
	const send = async (method = 'POST'): Promise<Answer['outcome']> => {
		const slot = await pacing.acquire(false, method);
		requests++;
		firstAt ??= Date.now() + latencyMs / 2;
		await after(latencyMs / 2);
		const answer = answerNow(method);
		if (answer.outcome === 'admitted') counted.push(Date.now());
		await after(latencyMs / 2);
		if (lateByMs > 0) await after(Math.floor(late() * lateByMs));
		if (answer.outcome === 'refused') refused++;
		if (answer.outcome === 'admitted') admitted.push(method);
		lastAnswerAt = Date.now();
		pacing.release(slot, {
			overloaded: answer.outcome === 'failed' || answer.outcome === 'dropped',
			unanswered: answer.outcome === 'dropped',
			refused: answer.outcome === 'refused',
			hints: readRateHints(answer.headers, Date.now()),
		});
		return answer.outcome;
	};
	const answerNow = (method: string): Answer => {
		if (limiterFor) {
			const limiter = limiterFor(method);
			if (!limiter) return { outcome: 'admitted', headers: {} };
			const { admitted, headers } = limiter.admit();
			return { outcome: admitted ? 'admitted' : 'refused', headers };
		}
		const kind = fault('/v2/orders', method);
		if (kind === 'rateLimit') return { outcome: 'refused', headers: { 'retry-after': '1' } };
		if (kind === 'reset') return { outcome: 'dropped', headers: {} };
		return { outcome: kind === 'error' ? 'failed' : 'admitted', headers: {} };
	};
	let draws = seed;
	const random = () => (draws = (draws * 16_807) % 2_147_483_647) / 2_147_483_647;
	const run = mapWithConcurrency(rows, DEFAULT_CONCURRENCY, async () => {
		if (lookUp) while ((await send('GET')) !== 'admitted');
		for (let failures = 0; ; ) {
			const outcome = await send();
			if (outcome === 'admitted') return;
			if (outcome === 'failed' || outcome === 'dropped') {
				await send('GET'); // the look-up, which finds nothing
				await after(backoffDelay(CREATE_RETRY, ++failures, random));
			}
		}
	});
	let finished = false;
	void run.finally(() => (finished = true));
	while (!finished) {
		await vi.advanceTimersToNextTimerAsync();
		if (Date.now() - START > 3_600_000) throw new Error('the run took over an hour');
	}
	return {
		wallMs: lastAnswerAt - START,
		floorMs: 'limit' in service ? floorMs(service.limit, admitted, firstAt!) : 0,
		startFloorMs:
			'limit' in service ? startFloor(service.limit, admitted.length, START, counted) : 0,
		refused,
		requests,
		remembered: memoryKey === undefined ? undefined : recallPace(memoryKey),
	};
}

/**
 * Behind one fixed window, the least time from `start` to admit `admitted` more, where the
 * window `start` is in already admitted what `counted` holds of it.
 */
function startFloor(limits: RateLimits, admitted: number, start: number, counted: number[]) {
	if (Array.isArray(limits) || limits.kind !== 'fixedWindow') return undefined;
	const length = limits.seconds * 1000;
	const windowStart = Math.floor(start / length) * length;
	const used = counted.filter((at) => at >= windowStart && at < start).length;
	const left = Math.max(0, limits.requests - used);
	if (admitted <= left) return 0;
	const windows = Math.ceil((admitted - left) / limits.requests);
	return windowStart + length - start + (windows - 1) * length;
}
