import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { startSandbox } from '../../sandbox/server.mts';
import type { Sandbox } from '../../sandbox/server.mts';
import { call, postDownload } from './sandboxClient.mts';

let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox();
});
afterAll(() => sbx.close());
beforeEach(() => {
	sbx.configure({ faults: {}, latencyMs: 0 });
	sbx.reset();
});

const debits = () => sbx.state.ledger.filter((e) => e.kind === 'debit');

describe('faults before processing', () => {
	it('errorRate answers 500 text and creates nothing', async () => {
		sbx.configure({ faults: { errorRate: 1 } });
		const res = await postDownload(sbx, { reference: 'f-err' });
		expect(res.status).toBe(500);
		expect(res.text).toBe('Internal Server Error');
		expect(sbx.state.orders.size).toBe(0);
		expect(debits()).toHaveLength(0);
	});

	it('errorRate applies before authentication', async () => {
		sbx.configure({ faults: { errorRate: 1 } });
		expect((await call(sbx, 'GET', '/v2/countries', undefined, null)).status).toBe(500);
	});

	it('resetRate drops the connection and creates nothing', async () => {
		sbx.configure({ faults: { resetRate: 1 } });
		await expect(postDownload(sbx, { reference: 'f-reset' })).rejects.toThrow();
		expect(sbx.state.orders.size).toBe(0);
		expect(sbx.state.requests.at(-1)).toMatchObject({ fault: 'reset', status: null });
	});

	it('rateLimitRate answers 429 with Retry-After', async () => {
		sbx.configure({ faults: { rateLimitRate: 1, retryAfterSeconds: 7 } });
		const res = await call(sbx, 'GET', '/v2/countries');
		expect(res.status).toBe(429);
		expect(res.headers['retry-after']).toBe('7');
	});

	it('defaults Retry-After to 1 second', async () => {
		sbx.configure({ faults: { rateLimitRate: 1 } });
		expect((await call(sbx, 'GET', '/v2/countries')).headers['retry-after']).toBe('1');
	});

	it('random refusals and random 500s of one seed fall on the same requests (bench:ratelimit compares them)', async () => {
		const faulted = async (faults: object, status: number) => {
			sbx.configure({ faults });
			const statuses: number[] = [];
			for (let i = 0; i < 60; i++) statuses.push((await call(sbx, 'GET', '/v2/countries')).status);
			return statuses.flatMap((s, i) => (s === status ? [i] : []));
		};
		const refused = await faulted({ rateLimitRate: 0.1, seed: 7 }, 429);
		expect(refused.length).toBeGreaterThan(0);
		expect(refused.length).toBeLessThan(15);
		expect(await faulted({ errorRate: 0.1, seed: 7 }, 500)).toEqual(refused);
	});
});

describe('faults after commit', () => {
	it('commitThenDropRate commits the order and debits the wallet, then drops the connection', async () => {
		sbx.configure({ faults: { commitThenDropRate: 1 } });
		await expect(
			postDownload(sbx, { reference: 'f-drop', quantity: 2, amount: 10 }),
		).rejects.toThrow();
		sbx.configure({ faults: {} });

		const read = await call(sbx, 'GET', '/v2/orders/f-drop');
		expect(read.body.data).toMatchObject({ reference: 'f-drop', status: 'COMPLETED' });
		expect(read.body.data.vouchers).toHaveLength(2);
		expect(debits().map((e) => e.amountKobo)).toEqual([-2000]);

		const retry = await postDownload(sbx, { reference: 'f-drop', quantity: 2, amount: 10 });
		expect(retry.body.statusCode).toBe('09');
		expect(debits()).toHaveLength(1);
	});

	it('commitThen500Rate commits the order, then answers 500', async () => {
		sbx.configure({ faults: { commitThen500Rate: 1 } });
		const res = await postDownload(sbx, { reference: 'f-500' });
		expect(res.status).toBe(500);
		expect(res.text).toBe('Internal Server Error');
		expect(sbx.state.orders.get('f-500')?.status).toBe('COMPLETED');
		expect(debits()).toHaveLength(1);
	});
});

describe('a gateway in front of the service', () => {
	it('answers the next `count` requests of its method with an HTML page and no Retry-After, before anything is done', async () => {
		sbx.configure({ faults: { gateway: { status: 503, count: 2, method: 'POST' } } });
		expect((await call(sbx, 'GET', '/v2/countries')).status).toBe(200);
		for (const reference of ['g-1', 'g-2']) {
			const refused = await postDownload(sbx, { reference });
			expect(refused.status).toBe(503);
			expect(refused.headers['content-type']).toBe('text/html');
			expect(refused.headers['retry-after']).toBeUndefined();
			expect(refused.text).toContain('<title>503 Service Temporarily Unavailable</title>');
		}
		expect(sbx.state.orders.size).toBe(0);
		expect((await postDownload(sbx, { reference: 'g-3' })).status).toBe(200);
		expect(sbx.state.requests.map((entry) => entry.fault)).toEqual([
			null,
			'gateway',
			'gateway',
			null,
		]);
	});

	it('answers after the service has committed the order with afterCommit (a gateway timeout)', async () => {
		sbx.configure({ faults: { gateway: { status: 504, count: 1, afterCommit: true } } });
		const res = await postDownload(sbx, { reference: 'g-late' });
		expect(res.status).toBe(504);
		expect(res.text).toContain('504 Gateway Time-out');
		expect(sbx.state.orders.get('g-late')?.status).toBe('COMPLETED');
		expect(debits()).toHaveLength(1);
	});

	it.each([
		['text', 502, (res: { text: string }) => expect(res.text).toBe('502 Bad Gateway')],
		[
			'json',
			429,
			(res: { body: unknown }) => expect(res.body).toEqual({ message: '429 Too Many Requests' }),
		],
	] as const)('answers a %s body when told', async (body, status, check) => {
		sbx.configure({ faults: { gateway: { status, body } } });
		const res = await call(sbx, 'GET', '/v2/countries');
		expect(res.status).toBe(status);
		check(res);
	});

	it('answers 500 after letting `skip` requests of its method through (an upstream that broke)', async () => {
		await postDownload(sbx, { reference: 'g-held' });
		sbx.configure({ faults: { gateway: { status: 500, count: 1, skip: 1, method: 'GET' } } });
		expect((await call(sbx, 'GET', '/v2/orders/g-held')).status).toBe(200);
		const broken = await call(sbx, 'GET', '/v2/orders/g-held');
		expect(broken.status).toBe(500);
		expect(broken.text).toContain('<title>500 Internal Server Error</title>');
		expect((await call(sbx, 'GET', '/v2/orders/g-held')).status).toBe(200);
	});

	it('refuses a gateway it cannot play', () => {
		expect(() => sbx.configure({ faults: { gateway: { status: 418 as 502 } } })).toThrow(
			/faults.gateway must be/,
		);
	});
});

describe('fault selection', () => {
	it('applies only to the configured path prefixes', async () => {
		sbx.configure({ faults: { errorRate: 1, paths: ['/v2/orders'] } });
		expect((await call(sbx, 'GET', '/v2/countries')).status).toBe(200);
		expect((await call(sbx, 'GET', '/v2/orders/x')).status).toBe(500);
	});

	it('replays the same fault sequence for the same seed', async () => {
		const run = async (seed: number) => {
			sbx.configure({ faults: { errorRate: 0.3, rateLimitRate: 0.2, seed } });
			const statuses: number[] = [];
			for (let i = 0; i < 30; i++) statuses.push((await call(sbx, 'GET', '/v2/countries')).status);
			return statuses;
		};
		const first = await run(42);
		expect(await run(42)).toEqual(first);
		expect(new Set(first)).toEqual(new Set([200, 429, 500]));
		expect(await run(7)).not.toEqual(first);
	});

	it('adds latencyMs to every /v2 request', async () => {
		sbx.configure({ latencyMs: 250 });
		const started = performance.now();
		await call(sbx, 'GET', '/v2/countries');
		expect(performance.now() - started).toBeGreaterThanOrEqual(245);
	});
});

describe('faults drawn by request', () => {
	it('drawBy request: the same requests meet the same faults in any order', async () => {
		const faultsOf = async (paths: string[]) => {
			sbx.configure({ faults: { errorRate: 0.5, seed: 3, drawBy: 'request' } });
			const statuses = new Map<string, number[]>();
			for (const path of paths)
				statuses.set(path, [...(statuses.get(path) ?? []), (await call(sbx, 'GET', path)).status]);
			return statuses;
		};
		const paths = Array.from({ length: 12 }, (_, i) => `/v2/orders/r-${i % 6}`);
		const forward = await faultsOf(paths);
		const backward = await faultsOf([...paths].reverse());
		expect(backward).toEqual(forward);
		expect([...forward.values()].flat()).toContain(500);
		expect([...forward.values()].flat()).toContain(200);
	});
});

describe('rate limit', () => {
	afterAll(() => sbx.configure({ rateLimitPerSecond: 0 }));
	// The limiter's clock stands still unless a test moves it: what it admits does not depend on
	// how fast this machine sends the requests.
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ['Date'] });
		vi.setSystemTime(new Date('2026-11-25T09:00:00.000Z'));
	});
	afterEach(() => vi.useRealTimers());
	const countries = () => call(sbx, 'GET', '/v2/countries');

	it('answers 429 with Retry-After once the second is used up', async () => {
		sbx.configure({ rateLimitPerSecond: 1 });
		const statuses = [(await countries()).status, (await countries()).status];
		const refused = await countries();
		expect([...statuses, refused.status]).toEqual([200, 429, 429]);
		expect(refused.headers['retry-after']).toBe('1');
	});

	it('admits a burst of one second at the rate, not more', async () => {
		sbx.configure({ rateLimitPerSecond: 50 });
		const statuses = (await Promise.all(Array.from({ length: 80 }, countries))).map(
			(r) => r.status,
		);
		expect(statuses.filter((status) => status === 200)).toHaveLength(50);
		expect(statuses.filter((status) => status !== 200).every((status) => status === 429)).toBe(
			true,
		);
	});

	it('admits again once the bucket has refilled, and 0 turns the limit off', async () => {
		sbx.configure({ rateLimitPerSecond: 1 });
		await countries();
		expect((await countries()).status).toBe(429);
		vi.setSystemTime(Date.now() + 999);
		expect((await countries()).status).toBe(429);
		vi.setSystemTime(Date.now() + 1);
		expect((await countries()).status).toBe(200);
		sbx.configure({ rateLimitPerSecond: 0 });
		for (let i = 0; i < 5; i++) expect((await countries()).status).toBe(200);
	});
});
