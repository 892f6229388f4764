import type { RateLimitOptions } from './types.mts';

/**
 * Rate limits as API gateways enforce them. A request over the limit is answered 429 before
 * anything is processed. How the limit shows (`signal`):
 * - `retryAfter`: `Retry-After` in whole seconds (at least 1, as HTTP allows only those) on a 429;
 * - `xRateLimit`: `X-RateLimit-Limit/Remaining/Reset` on every answer, Reset in epoch seconds;
 * - `rateLimit`: `RateLimit-Limit/Remaining/Reset` and `RateLimit-Policy` on every answer,
 *   Reset in seconds left;
 * - `none`: nothing, a bare 429.
 */
export interface RateLimiter {
	/** Counts one request: whether it is admitted, and the headers its answer carries. */
	admit(): { admitted: boolean; headers: Record<string, string> };
}

interface Window {
	admitted: boolean;
	limit: number;
	remaining: number;
	/** When the allowance is fully back (token bucket) or the window ends, ms on the clock. */
	resetAt: number;
	/** When the next request would be admitted, ms on the clock. */
	retryAt: number;
}

/** `requests` per `seconds` on average, in bursts of up to `requests`. */
function tokenBucket(requests: number, seconds: number, now: () => number): () => Window {
	const perMs = requests / (seconds * 1000);
	let tokens = requests;
	let last = now();
	return () => {
		const t = now();
		tokens = Math.min(requests, tokens + (t - last) * perMs);
		last = t;
		const admitted = tokens >= 1;
		if (admitted) tokens -= 1;
		return {
			admitted,
			limit: requests,
			remaining: Math.floor(tokens),
			resetAt: t + (requests - tokens) / perMs,
			retryAt: t + Math.max(0, 1 - tokens) / perMs,
		};
	};
}

/** `requests` per window of `seconds`, windows on the clock's grid (a minute's start at the minute). */
function fixedWindow(requests: number, seconds: number, now: () => number): () => Window {
	const length = seconds * 1000;
	let start = -Infinity;
	let used = 0;
	return () => {
		const t = now();
		if (t >= start + length) {
			start = Math.floor(t / length) * length;
			used = 0;
		}
		const admitted = used < requests;
		if (admitted) used++;
		const end = start + length;
		return { admitted, limit: requests, remaining: requests - used, resetAt: end, retryAt: end };
	};
}

const wholeSeconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

export function createRateLimiter(options: RateLimitOptions, now = () => Date.now()): RateLimiter {
	const { kind, requests, seconds, signal } = options;
	const count = (kind === 'fixedWindow' ? fixedWindow : tokenBucket)(requests, seconds, now);
	return {
		admit() {
			const w = count();
			const t = now();
			const headers: Record<string, string> = {};
			if (signal === 'xRateLimit') {
				headers['x-ratelimit-limit'] = String(w.limit);
				headers['x-ratelimit-remaining'] = String(w.remaining);
				headers['x-ratelimit-reset'] = String(Math.ceil(w.resetAt / 1000));
			} else if (signal === 'rateLimit') {
				headers['ratelimit-limit'] = String(w.limit);
				headers['ratelimit-remaining'] = String(w.remaining);
				headers['ratelimit-reset'] = String(wholeSeconds(w.resetAt - t));
				headers['ratelimit-policy'] = `${w.limit};w=${seconds}`;
			} else if (signal === 'retryAfter' && !w.admitted) {
				headers['retry-after'] = String(Math.max(1, wholeSeconds(w.retryAt - t)));
			}
			return { admitted: w.admitted, headers };
		},
	};
}
