/**
 * A token-bucket rate limit like an API gateway's: `perSecond` requests per second on
 * average, bursts up to one second's worth. A request over the limit is answered
 * 429 with Retry-After in whole seconds (at least 1), as HTTP allows only those.
 */
export interface RateLimiter {
	/** Takes a token; returns the Retry-After seconds when none is left, else null. */
	admit(): number | null;
}

export function createRateLimiter(perSecond: number, now = () => performance.now()): RateLimiter {
	let tokens = perSecond;
	let last = now();
	return {
		admit() {
			const t = now();
			tokens = Math.min(perSecond, tokens + ((t - last) / 1000) * perSecond);
			last = t;
			if (tokens >= 1) {
				tokens -= 1;
				return null;
			}
			return Math.max(1, Math.ceil((1 - tokens) / perSecond));
		},
	};
}
