/**
 * A run of the node's pacing (AdaptiveConcurrency and its RatePacing, as they are) against the
 * sandbox's rate limiters and faults, on vitest's fake clock: `rows` creates for each of
 * `executions` at once on one account (their paces shared, as the client shares them), each at
 * Maximum Concurrency `concurrency` (its default unless given), each create answered
 * `latencyMs` after it is sent (the limiter counts it halfway), and up to `lateByMs` later at
 * random, out of order, as a loaded host reads them. A refusal is sent again at the pacing's
 * time; a 500 is followed by a look-up, then, after the create's backoff, by the create again,
 * as placeOrder does. `lookUp`: each create follows a read of its reference (If Reference
 * Exists → Fail), sent until admitted; limits per route count reads (GET) and creates (POST)
 * apart, as the sandbox does, and each request names its method to the pacing, as the client
 * does. `inRow`: so many such runs one after the other, `gapMs` apart, on one account, which
 * keeps a pace for the next as the client does; each run's own figures are in `runs`. Each
 * simulation has an account of its own.
 */
import { vi } from 'vitest';

import { AdaptiveConcurrency } from '../../../../nodes/VoucherService/transport/adaptiveConcurrency';
import { readRateHints } from '../../../../nodes/VoucherService/transport/rateHints';
import { joinPaces } from '../../../../nodes/VoucherService/transport/sharedPaces';
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
	refused: number;
	requests: number;
	/** The figures of each of the runs in a row, the first first. */
	runs: Omit<SimulatedRun, 'runs'>[];
}

let accounts = 0;

/** A limit, or random faults with no limit behind them. */
export type Service = { limit: RateLimits } | { faults: FaultOptions };

const EPOCH = 1_700_000_000_000;

/** Draws in (0, 1) from `seed`, a Lehmer generator with `multiplier`, the same for one seed. */
function drawsOf(seed: number, multiplier: number): () => number {
	let state = seed;
	return () => (state = (state * multiplier) % 2_147_483_647) / 2_147_483_647;
}

/** `failed`: a 500; `dropped`: no answer at all (a reset). */
type Answer = {
	outcome: 'admitted' | 'refused' | 'failed' | 'dropped';
	headers: Record<string, string>;
};

/** `services`: one for every run, or one for each run in a row (a limit lifted between runs). */
export async function simulate(
	services: Service | Service[],
	rows: number,
	{
		latencyMs = 25,
		seed = 1,
		startMs = 0,
		lateByMs = 0,
		sendLateByMs = 0,
		lookUp = false,
		executions = 1,
		concurrency = DEFAULT_CONCURRENCY,
		inRow = Array.isArray(services) ? services.length : 1,
		gapMs = 0,
	} = {},
): Promise<SimulatedRun> {
	const serviceOf = (run: number) => (Array.isArray(services) ? services[run] : services);
	// Where the run starts on the clock: a fixed window's grid is on it.
	const START = EPOCH + startMs;
	vi.useFakeTimers({ now: START, loopLimit: 10_000_000 });
	const account = `account ${++accounts}`;
	let joined: Array<ReturnType<typeof joinPaces>> = [];
	try {
		let service = serviceOf(0);
		const limiters = new Map<Service, ReturnType<typeof createRateLimiters>>();
		const limiterOf = (of: Service) => {
			if (!('limit' in of)) return undefined;
			if (!limiters.has(of)) limiters.set(of, createRateLimiters(of.limit));
			return limiters.get(of);
		};
		const fault = createFaultRoller('faults' in service ? service.faults : {});
		let refused = 0;
		let requests = 0;
		let admitted: string[] = [];
		let firstAt: number | undefined;
		let lastAnswerAt = START;
		const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
		// Each its own draws, so the backoffs' stay as they were.
		const late = drawsOf(seed, 48_271);
		const sendLate = drawsOf(seed, 69_621);
		const send = async (
			pacing: AdaptiveConcurrency,
			method = 'POST',
		): Promise<Answer['outcome']> => {
			const slot = await pacing.acquire(false, method);
			requests++;
			if (sendLateByMs > 0) await after(Math.floor(sendLate() * sendLateByMs));
			firstAt ??= Date.now() + latencyMs / 2;
			await after(latencyMs / 2);
			const answer = answerNow(method);
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
			const limiterFor = limiterOf(service);
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
		const random = drawsOf(seed, 16_807);
		const runOne = (pacing: AdaptiveConcurrency) =>
			mapWithConcurrency(rows, concurrency, async () => {
				if (lookUp) while ((await send(pacing, 'GET')) !== 'admitted');
				for (let failures = 0; ; ) {
					const outcome = await send(pacing);
					if (outcome === 'admitted') return;
					if (outcome === 'failed' || outcome === 'dropped') {
						await send(pacing, 'GET'); // the look-up, which finds nothing
						await after(backoffDelay(CREATE_RETRY, ++failures, random));
					}
				}
			});
		const runs: SimulatedRun['runs'] = [];
		for (let index = 0; index < inRow; index++) {
			const startedAt = Date.now();
			service = serviceOf(index);
			[refused, requests, admitted, firstAt] = [0, 0, [], undefined];
			// Executions at once share the account's paces, as the client has them (sharedPaces.ts).
			joined = Array.from({ length: executions }, () => joinPaces(account, Date.now));
			const pacings = joined.map(({ paces }) => {
				const pacing = new AdaptiveConcurrency(concurrency);
				pacing.sharePaces(paces);
				return pacing;
			});
			const run = Promise.all(pacings.map(runOne));
			let finished = false;
			void run.finally(() => (finished = true));
			while (!finished) {
				await vi.advanceTimersToNextTimerAsync();
				if (Date.now() - START > 3_600_000) throw new Error('the run took over an hour');
			}
			for (const { leave } of joined) leave();
			joined = [];
			runs.push({
				wallMs: lastAnswerAt - startedAt,
				floorMs: 'limit' in service ? floorMs(service.limit, admitted, firstAt!) : 0,
				refused,
				requests,
			});
			if (index < inRow - 1) vi.advanceTimersByTime(gapMs);
		}
		const sum = (key: 'refused' | 'requests' | 'floorMs') =>
			runs.reduce((total, run) => total + run[key], 0);
		return {
			wallMs: lastAnswerAt - START,
			floorMs: sum('floorMs'),
			refused: sum('refused'),
			requests: sum('requests'),
			runs,
		};
	} finally {
		for (const { leave } of joined) leave();
		vi.useRealTimers();
	}
}
