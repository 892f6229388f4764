import { gatewayReply } from './faults.mts';
import { text } from './http.mts';
import type { Reply } from './http.mts';
import type { RateLimitOptions, RateLimits } from './types.mts';

/**
 * Rate limits as API gateways enforce them. A request over the limit is refused before
 * anything is processed: 429 `Too Many Requests`, or as nginx's `limit_req` refuses (the leaky
 * bucket), 503 or 429 with its HTML error page. How the limit shows (`signal`):
 * - `retryAfter`: `Retry-After` in whole seconds (at least 1, as HTTP allows only those) on a 429;
 * - `xRateLimit`: `X-RateLimit-Limit/Remaining/Reset` on every answer, Reset in epoch seconds;
 * - `rateLimit`: `RateLimit-Limit/Remaining/Reset` and `RateLimit-Policy` on every answer,
 *   Reset in seconds left;
 * - `none`: nothing, a bare 429.
 */
export interface RateLimiter {
	/** Counts one request: whether it is admitted, and the headers its answer carries. */
	admit(): { admitted: boolean; headers: Record<string, string> };
	/** The answer to a refused request, without the limit's headers. */
	readonly refusal: Reply;
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

/**
 * nginx's `limit_req` with `nodelay`: `burst` requests beyond the rate are admitted at once,
 * then one every `seconds / requests`. Its `excess` counts the requests beyond the rate still
 * to drain; a refused request changes nothing.
 */
function leakyBucket(
	requests: number,
	seconds: number,
	burst: number,
	now: () => number,
): () => Window {
	const perMs = requests / (seconds * 1000);
	let excess = 0;
	let last: number | undefined;
	return () => {
		const t = now();
		const next = last === undefined ? 0 : Math.max(0, excess - (t - last) * perMs + 1);
		const admitted = next <= burst;
		if (admitted) {
			excess = next;
			last = t;
		}
		const drained = Math.max(0, excess - (t - (last ?? t)) * perMs);
		return {
			admitted,
			limit: burst + 1,
			remaining: Math.floor(burst - drained),
			resetAt: t + drained / perMs,
			retryAt: t + Math.max(0, drained + 1 - burst) / perMs,
		};
	};
}

/**
 * The limit a request counts against: the first whose `method` is the request's or absent, as
 * nginx picks one `location`, each with its own `limit_req`; none when no limit matches.
 */
export function limitFor(limits: RateLimits, method: string): RateLimitOptions | undefined {
	return [limits].flat().find((limit) => limit.method === undefined || limit.method === method);
}

/** Requests a limit admits at once, from rest. */
const capacity = ({ kind, requests, burst = 0 }: RateLimitOptions) =>
	kind === 'leakyBucket' ? burst + 1 : requests;

/**
 * The least time a limit needs to admit `admitted` requests, the first counted at `firstAt`
 * (ms on the clock: a fixed window's grid is on it, so its first window may be partly gone).
 */
function floorOf(limit: RateLimitOptions, admitted: number, firstAt: number): number {
	const length = limit.seconds * 1000;
	if (limit.kind !== 'fixedWindow')
		return (Math.max(0, admitted - capacity(limit)) / limit.requests) * length;
	const windows = Math.ceil(admitted / limit.requests);
	if (windows <= 1) return 0;
	return Math.ceil(firstAt / length) * length - firstAt + (windows - 2) * length;
}

/**
 * The least time `limits` need to admit the requests they admitted (`admitted`: the method of
 * each), the first counted at `firstAt`: with limits per route, the largest of their floors,
 * each for the requests it counted, as the routes admit side by side.
 */
export function floorMs(limits: RateLimits, admitted: readonly string[], firstAt: number): number {
	return Math.max(
		0,
		...[limits]
			.flat()
			.map((limit) =>
				floorOf(
					limit,
					admitted.filter((method) => limitFor(limits, method) === limit).length,
					firstAt,
				),
			),
	);
}

const wholeSeconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** The limiter of each route: for a request's method, the one it counts against, if any. */
export function createRateLimiters(
	limits: RateLimits,
	now = () => Date.now(),
): (method: string) => RateLimiter | undefined {
	const limiters = new Map([limits].flat().map((limit) => [limit, createRateLimiter(limit, now)]));
	return (method) => {
		const limit = limitFor(limits, method);
		return limit && limiters.get(limit);
	};
}

/** One limit's limiter; its `method`, if any, is for createRateLimiters to route by. */
export function createRateLimiter(options: RateLimitOptions, now = () => Date.now()): RateLimiter {
	const { kind, requests, seconds, signal, burst = 0, status = 503 } = options;
	const count =
		kind === 'leakyBucket'
			? leakyBucket(requests, seconds, burst, now)
			: (kind === 'fixedWindow' ? fixedWindow : tokenBucket)(requests, seconds, now);
	return {
		refusal: kind === 'leakyBucket' ? gatewayReply({ status }) : text(429, 'Too Many Requests'),
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
