import { sleep } from 'n8n-workflow';

/** Backoff settings. Kept together so the README's numbers have one source. */
export interface BackoffPolicy {
	/** Attempts in total, the first one included. */
	attempts: number;
	baseDelayMs: number;
	maxDelayMs: number;
}

/*
 * Budgets sized for a bad hour, not a good day: with 30% of requests failing, 10 reads
 * fail in a row about 6 times in a million, so a look-up after an unclear create is
 * practically always answered. Worst case about 20 s of waiting.
 */

/** Reads (GET) are safe to repeat: 5xx and network errors are retried. */
export const READ_RETRY: BackoffPolicy = { attempts: 10, baseDelayMs: 200, maxDelayMs: 3_000 };

/** A create that certainly did not reach the service is sent again, at most this often. */
export const CREATE_RETRY: BackoffPolicy = { attempts: 8, baseDelayMs: 200, maxDelayMs: 3_000 };

/*
 * "Not now", from the service or from any gateway in front of it: 429 (rate limited), 502 (bad
 * gateway), 503 (unavailable; nginx's limit_req refuses so by default, with an HTML page and no
 * Retry-After) and 504 (gateway timeout), whatever the body. Such an answer uses up no attempt
 * of the budgets above: it is resent at the pacing's pace (a create's 502, 503 or 504 only
 * after a look-up finds no order, see orders/core/placeOrder.ts). A run gives up only once
 * requests of the same method have gone this long without an admission: five one-minute
 * windows (the usual per-minute limit reopens several times over), yet a spent daily quota or
 * a gateway that is down fails the rows in minutes instead of holding the execution for hours.
 */
export const REFUSAL_PATIENCE_MS = 5 * 60_000;

/*
 * The patience of reads a person sits waiting for: the Template dropdown and Service → Check.
 * A gateway's short storm passes within it (nginx's burst refills in a second, an upstream
 * restarts in seconds), and it leaves room for several of the pacing's probes; longer, the
 * person learns more from an error than from a spinner. The probes grow apart (see
 * pacingActions.ts), so the last may land a few seconds after it.
 */
export const INTERACTIVE_PATIENCE_MS = 10_000;

/** A patience as the messages that report it give it. */
export const patienceInWords = (ms: number) =>
	ms >= 60_000 ? `${ms / 60_000} minutes` : `${ms / 1000} seconds`;

const NOT_NOW = new Set([429, 502, 503, 504]);

export const isNotNow = (httpStatus: number) => NOT_NOW.has(httpStatus);

/**
 * How long the requests of each method have gone without an admission. Per method: a gateway
 * whose route for creates is down while reads pass would otherwise be asked forever, as every
 * look-up between two creates would count as an admission.
 */
export class RefusalClock {
	private readonly refusedSince = new Map<string, number>();

	admitted(method: string): void {
		this.refusedSince.delete(method);
	}

	/** Records a refusal; returns how long this method has been refused. */
	refused(method: string): number {
		const now = Date.now();
		const since = this.refusedSince.get(method) ?? now;
		this.refusedSince.set(method, since);
		return now - since;
	}
}

/** Longest Retry-After we honour; a longer one is cut so a run cannot hang for hours. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Exponential backoff with "equal jitter": half of the step is fixed so delays still grow,
 * the other half is random so many items retrying together do not hit the service in step.
 */
export function backoffDelay(
	policy: BackoffPolicy,
	retryNumber: number,
	random = Math.random,
): number {
	const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retryNumber - 1));
	return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * Retry-After as delta-seconds or an HTTP date (which names a day or a month, so digits alone
 * are never one); blank or anything else is absent, a date already past is now.
 */
export function parseRetryAfter(header: unknown, now = Date.now()): number | undefined {
	const value = String((Array.isArray(header) ? header[0] : header) ?? '').trim();
	const ms = /^\d+(\.\d+)?$/.test(value)
		? Number(value) * 1000
		: /[a-z]/i.test(value)
			? Date.parse(value) - now
			: NaN;
	if (!Number.isFinite(ms)) return undefined;
	return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

export async function wait(ms: number): Promise<void> {
	if (ms > 0) await sleep(ms);
}
