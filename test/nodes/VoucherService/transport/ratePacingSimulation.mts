/**
 * A run of the rate pacing against the sandbox's rate limiter, on a simulated clock: `rows`
 * requests, each resent on 429 until admitted, at most `concurrency` in flight (the first
 * alone, as AdaptiveConcurrency sends it), each answered `latencyMs` after it is sent (the
 * limiter counts it halfway).
 */
import { readRateHints, RatePacing } from '../../../../nodes/VoucherService/transport/ratePacing';
import { createRateLimiter } from '../../../../sandbox/rateLimit.mts';
import type { RateLimitOptions } from '../../../../sandbox/server.mts';

export interface SimulatedRun {
	wallMs: number;
	floorMs: number;
	refused: number;
	requests: number;
}

/**
 * The time a limit needs to admit `admitted` requests from the first one on, sent at `firstAt`
 * (a fixed window's grid is on the clock, so its first window may be partly gone).
 */
function floorMs(
	{ kind, requests, seconds }: RateLimitOptions,
	admitted: number,
	firstAt: number,
): number {
	const length = seconds * 1000;
	if (kind === 'tokenBucket') return (Math.max(0, admitted - requests) / requests) * length;
	const windows = Math.ceil(admitted / requests);
	if (windows <= 1) return 0;
	return Math.ceil(firstAt / length) * length - firstAt + (windows - 2) * length;
}

export function simulate(
	limit: RateLimitOptions,
	rows: number,
	{ concurrency = 16, latencyMs = 25 } = {},
): SimulatedRun {
	const start = 1_700_000_000_000;
	let now = start;
	let limiterNow = now;
	const pacer = new RatePacing(() => now);
	const limiter = createRateLimiter(limit, () => limiterNow);
	let pending = rows;
	let refused = 0;
	let requests = 0;
	const answers: Array<{
		at: number;
		sequence: number;
		sentAt: number;
		admitted: boolean;
		headers: Record<string, string>;
	}> = [];
	let inFlightLimit = 1;
	while (pending > 0 || answers.length > 0) {
		while (pending > 0 && answers.length < inFlightLimit && pacer.nextSendAt() <= now) {
			const sequence = pacer.onSend();
			limiterNow = now + latencyMs / 2;
			const { admitted, headers } = limiter.admit();
			answers.push({ at: now + latencyMs, sequence, sentAt: now, admitted, headers });
			pending--;
			requests++;
		}
		answers.sort((a, b) => a.at - b.at);
		const canSend = pending > 0 && answers.length < inFlightLimit;
		const next = Math.min(answers[0]?.at ?? Infinity, canSend ? pacer.nextSendAt() : Infinity);
		if (next === Infinity) throw new Error('the pacing stalled');
		now = Math.max(now, next);
		while (answers.length > 0 && answers[0].at <= now) {
			const answer = answers.shift()!;
			inFlightLimit = concurrency;
			const outcome = answer.admitted ? 'admitted' : 'refused';
			pacer.onAnswer(answer.sequence, answer.sentAt, outcome, readRateHints(answer.headers, now));
			if (!answer.admitted) {
				refused++;
				pending++;
			}
		}
		if (now - start > 3_600_000) throw new Error('the run took over an hour');
	}
	return { wallMs: now - start, floorMs: floorMs(limit, rows, start), refused, requests };
}
