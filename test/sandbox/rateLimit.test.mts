import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createRateLimiter, floorMs, limitFor } from '../../sandbox/rateLimit.mts';
import { startSandbox } from '../../sandbox/server.mts';
import type { RateLimitOptions, Sandbox } from '../../sandbox/server.mts';
import { call, download } from './sandboxClient.mts';

/** The methods of `n` admitted requests. */
const times = (n: number, method = 'POST') => Array<string>(n).fill(method);

/** A limiter on a clock the test moves; `admit(n)` counts n requests at the current time. */
function limiterOn(options: RateLimitOptions) {
	let now = 1_700_000_000_000;
	const limiter = createRateLimiter(options, () => now);
	return {
		tick: (ms: number) => (now += ms),
		admit: () => limiter.admit(),
		admitted: (n: number) =>
			Array.from({ length: n }, () => limiter.admit()).filter((a) => a.admitted).length,
	};
}

describe('sandbox rate limits, on a moved clock', () => {
	it('a token bucket admits a burst of `requests`, then refills at requests/seconds', () => {
		const l = limiterOn({ kind: 'tokenBucket', requests: 4, seconds: 2, signal: 'retryAfter' });
		expect(l.admitted(10)).toBe(4);
		l.tick(500); // 2 per second: one token back
		expect(l.admitted(10)).toBe(1);
		l.tick(10_000);
		expect(l.admitted(10)).toBe(4);
	});

	it('a fixed window admits `requests` per window, windows on the clock grid', () => {
		const l = limiterOn({ kind: 'fixedWindow', requests: 3, seconds: 5, signal: 'none' });
		expect(l.admitted(10)).toBe(3);
		l.tick(4_999);
		expect(l.admitted(10)).toBe(0);
		l.tick(1);
		expect(l.admitted(10)).toBe(3);
		l.tick(12_000); // two windows later, still aligned to the first request
		expect(l.admitted(1)).toBe(1);
		l.tick(2_999);
		expect(l.admitted(10)).toBe(2);
		l.tick(1);
		expect(l.admitted(10)).toBe(3);
	});

	it('Retry-After only on a refusal, in whole seconds, at least one', () => {
		// The clock is 2 s into a 3-s window.
		const l = limiterOn({ kind: 'fixedWindow', requests: 1, seconds: 3, signal: 'retryAfter' });
		expect(l.admit()).toEqual({ admitted: true, headers: {} });
		l.tick(500);
		expect(l.admit()).toEqual({ admitted: false, headers: { 'retry-after': '1' } });
		const b = limiterOn({ kind: 'tokenBucket', requests: 2, seconds: 10, signal: 'retryAfter' });
		b.admitted(2);
		expect(b.admit().headers).toEqual({ 'retry-after': '5' });
	});

	it('X-RateLimit-* on every answer, Reset as the window end in epoch seconds', () => {
		const l = limiterOn({ kind: 'fixedWindow', requests: 2, seconds: 10, signal: 'xRateLimit' });
		const end = String(Math.ceil((1_700_000_000_000 + 10_000) / 1000));
		expect(l.admit().headers).toEqual({
			'x-ratelimit-limit': '2',
			'x-ratelimit-remaining': '1',
			'x-ratelimit-reset': end,
		});
		l.admit();
		expect(l.admit()).toEqual({
			admitted: false,
			headers: { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': end },
		});
	});

	it('RateLimit-* on every answer, Reset in seconds left, with the policy', () => {
		const l = limiterOn({ kind: 'tokenBucket', requests: 5, seconds: 1, signal: 'rateLimit' });
		expect(l.admit().headers).toEqual({
			'ratelimit-limit': '5',
			'ratelimit-remaining': '4',
			'ratelimit-reset': '1', // 0.2 s until full, rounded up
			'ratelimit-policy': '5;w=1',
		});
	});

	it('a leaky bucket (nginx limit_req, nodelay) admits 1 + burst at once, then one per 1/rate; a refusal changes nothing', () => {
		const l = limiterOn({ kind: 'leakyBucket', requests: 5, seconds: 1, burst: 5, signal: 'none' });
		expect(l.admitted(20)).toBe(6);
		l.tick(199);
		expect(l.admitted(1)).toBe(0);
		l.tick(1); // one drained every 200 ms, however many were refused meanwhile
		expect(l.admitted(5)).toBe(1);
		l.tick(1_000);
		expect(l.admitted(20)).toBe(5);
		l.tick(10_000);
		expect(l.admitted(20)).toBe(6);
		const none = limiterOn({ kind: 'leakyBucket', requests: 2, seconds: 1, signal: 'none' });
		expect(none.admitted(3)).toBe(1);
		none.tick(500);
		expect(none.admitted(3)).toBe(1);
	});

	it('the floor: what a limit needs to admit n requests from the first on', () => {
		const now = 1_700_000_000_000;
		const leaky = {
			kind: 'leakyBucket',
			requests: 20,
			seconds: 1,
			burst: 10,
			signal: 'none',
		} as const;
		expect(floorMs(leaky, times(11), now)).toBe(0);
		expect(floorMs(leaky, times(31), now)).toBe(1_000);
		const bucket = { kind: 'tokenBucket', requests: 5, seconds: 1, signal: 'none' } as const;
		expect(floorMs(bucket, times(15), now)).toBe(2_000);
		const window = { kind: 'fixedWindow', requests: 3, seconds: 3, signal: 'none' } as const;
		const gridStart = 3_000 * 566_666_667;
		expect(floorMs(window, times(3), gridStart + 1_000)).toBe(0);
		// The first window's end, then one more window: the third's three come at its start.
		expect(floorMs(window, times(7), gridStart + 1_000)).toBe(2_000 + 3_000);
	});

	// nginx locations: reads 20/s burst 10, creates 5/s burst 5.
	const reads = {
		kind: 'leakyBucket',
		requests: 20,
		seconds: 1,
		burst: 10,
		signal: 'none',
		method: 'GET',
	} as const;
	const creates = { ...reads, requests: 5, burst: 5, method: 'POST' } as const;

	it('limits per route: a request counts against the first whose method is its own or absent', () => {
		const rest = { kind: 'tokenBucket', requests: 1, seconds: 1, signal: 'none' } as const;
		expect(limitFor([reads, creates], 'GET')).toBe(reads);
		expect(limitFor([reads, creates], 'POST')).toBe(creates);
		expect(limitFor([reads, creates], 'DELETE')).toBeUndefined();
		expect(limitFor([creates, rest], 'GET')).toBe(rest);
		expect(limitFor([rest, creates], 'POST')).toBe(rest);
		expect(limitFor(rest, 'POST')).toBe(rest);
	});

	it("the floor of limits per route: the larger of each route's floor for what it admitted", () => {
		const now = 1_700_000_000_000;
		// 71 reads: 60 beyond the burst at 20/s, 3 s; 26 creates: 20 beyond it at 5/s, 4 s.
		expect(floorMs([reads, creates], [...times(71, 'GET'), ...times(26)], now)).toBe(4_000);
		expect(floorMs([reads, creates], [...times(91, 'GET'), ...times(26)], now)).toBe(4_000);
		expect(floorMs([reads, creates], [...times(111, 'GET'), ...times(26)], now)).toBe(5_000);
		// Each route counts only its own: the same requests under one limit of 20/s take 5.3 s.
		expect(floorMs({ ...reads, method: undefined }, times(117), now)).toBe(5_300);
		expect(floorMs([reads, creates], [], now)).toBe(0);
	});

	it('no signal: a bare refusal', () => {
		const l = limiterOn({ kind: 'tokenBucket', requests: 1, seconds: 1, signal: 'none' });
		l.admit();
		expect(l.admit()).toEqual({ admitted: false, headers: {} });
	});
});

describe('a rate-limited sandbox over HTTP', () => {
	let sbx: Sandbox;
	beforeAll(async () => {
		sbx = await startSandbox();
	});
	afterAll(() => sbx.close());
	beforeEach(() => {
		sbx.configure({ rateLimit: null, rateLimitPerSecond: 0, acceptDuplicateReferences: false });
		sbx.reset();
	});

	it('answers 429 over the limit and commits nothing; the headers come on admitted answers too', async () => {
		sbx.configure({
			rateLimit: { kind: 'fixedWindow', requests: 1, seconds: 60, signal: 'xRateLimit' },
		});
		const first = await call(sbx, 'POST', '/v2/orders', download({ reference: 'rl-1' }));
		expect(first.status).toBe(200);
		expect(first.headers['x-ratelimit-remaining']).toBe('0');
		const second = await call(sbx, 'POST', '/v2/orders', download({ reference: 'rl-2' }));
		expect(second.status).toBe(429);
		expect(second.headers['x-ratelimit-limit']).toBe('1');
		expect(second.headers['retry-after']).toBeUndefined();
		expect([...sbx.state.orders.keys()]).toEqual(['rl-1']);
		expect(sbx.state.ledger.filter((e) => e.kind === 'debit')).toHaveLength(1);
	});

	it('keeps rateLimitPerSecond: a token bucket with Retry-After; rateLimit replaces it', async () => {
		sbx.configure({ rateLimitPerSecond: 1 });
		await call(sbx, 'GET', '/v2/countries');
		const refused = await call(sbx, 'GET', '/v2/countries');
		expect(refused.status).toBe(429);
		expect(refused.headers['retry-after']).toBe('1');
		sbx.configure({
			rateLimit: { kind: 'tokenBucket', requests: 100, seconds: 1, signal: 'none' },
		});
		expect((await call(sbx, 'GET', '/v2/countries')).status).toBe(200);
	});

	it('acceptDuplicateReferences buys a used reference again (both debited)', async () => {
		sbx.configure({ acceptDuplicateReferences: true });
		const order = download({ reference: 'dup-1' });
		expect((await call(sbx, 'POST', '/v2/orders', order)).body.statusCode).toBe('00');
		expect((await call(sbx, 'POST', '/v2/orders', order)).body.statusCode).toBe('00');
		expect(sbx.state.ledger.filter((e) => e.kind === 'debit')).toHaveLength(2);
	});

	it('a leaky bucket refuses as nginx does: 503 and its HTML page by default, 429 if told, never Retry-After', async () => {
		sbx.configure({
			rateLimit: { kind: 'leakyBucket', requests: 1, seconds: 60, burst: 1, signal: 'none' },
		});
		for (const reference of ['lb-1', 'lb-2'])
			expect((await call(sbx, 'POST', '/v2/orders', download({ reference }))).status).toBe(200);
		const refused = await call(sbx, 'POST', '/v2/orders', download({ reference: 'lb-3' }));
		expect(refused.status).toBe(503);
		expect(refused.headers['content-type']).toBe('text/html');
		expect(refused.headers['retry-after']).toBeUndefined();
		expect(refused.text).toContain('<title>503 Service Temporarily Unavailable</title>');
		expect(refused.text).toContain('<center>nginx</center>');
		expect([...sbx.state.orders.keys()]).toEqual(['lb-1', 'lb-2']);
		sbx.configure({
			rateLimit: { kind: 'leakyBucket', requests: 1, seconds: 60, status: 429, signal: 'none' },
		});
		await call(sbx, 'GET', '/v2/countries');
		const busy = await call(sbx, 'GET', '/v2/countries');
		expect(busy.status).toBe(429);
		expect(busy.text).toContain('<title>429 Too Many Requests</title>');
	});

	it('limits per route stand side by side: creates refused at theirs while reads go on, each with its own refusal', async () => {
		sbx.configure({
			rateLimit: [
				{ kind: 'leakyBucket', requests: 1, seconds: 60, burst: 2, signal: 'none', method: 'GET' },
				{
					kind: 'leakyBucket',
					requests: 1,
					seconds: 60,
					status: 429,
					signal: 'none',
					method: 'POST',
				},
			],
		});
		const create = (reference: string) => call(sbx, 'POST', '/v2/orders', download({ reference }));
		const read = (reference: string) => call(sbx, 'GET', `/v2/orders/${reference}`);
		expect((await create('pr-1')).status).toBe(200);
		expect((await create('pr-2')).status).toBe(429);
		for (let i = 0; i < 3; i++) expect((await read('pr-1')).status).toBe(200);
		const refusedRead = await read('pr-1');
		expect(refusedRead.status).toBe(503);
		expect(refusedRead.text).toContain('<title>503 Service Temporarily Unavailable</title>');
		expect((await create('pr-3')).status).toBe(429);
		expect([...sbx.state.orders.keys()]).toEqual(['pr-1']);
		// A method no limit names is not limited.
		sbx.configure({
			rateLimit: [{ kind: 'fixedWindow', requests: 1, seconds: 60, signal: 'none', method: 'GET' }],
		});
		for (const reference of ['pr-4', 'pr-5', 'pr-6'])
			expect((await create(reference)).status).toBe(200);
		expect((await read('pr-4')).status).toBe(200);
		expect((await read('pr-4')).status).toBe(429);
	});

	it('refuses a malformed rateLimit option', () => {
		expect(() =>
			sbx.configure({
				rateLimit: { kind: 'slidingLog', requests: 1, seconds: 1, signal: 'none' } as never,
			}),
		).toThrow(/rateLimit must be/);
		expect(() =>
			sbx.configure({
				rateLimit: { kind: 'fixedWindow', requests: 0, seconds: 1, signal: 'none' },
			}),
		).toThrow(/rateLimit must be/);
		for (const bad of [
			{ kind: 'tokenBucket', requests: 1, seconds: 1, signal: 'none', burst: 2 },
			{ kind: 'leakyBucket', requests: 1, seconds: 1, signal: 'none', burst: 1.5 },
			{ kind: 'leakyBucket', requests: 1, seconds: 1, signal: 'none', status: 500 },
			{ kind: 'tokenBucket', requests: 1, seconds: 1, signal: 'none', method: 'get' },
			[],
			[{ kind: 'tokenBucket', requests: 1, seconds: 1, signal: 'none' }, { kind: 'x' }],
		])
			expect(() => sbx.configure({ rateLimit: bad as never })).toThrow(/rateLimit must be/);
	});
});
