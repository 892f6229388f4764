import { describe, expect, it } from 'vitest';

import {
	MAX_PACES,
	MAX_REMEMBERED_PERIOD_MS,
	PACE_LIFETIME_MS,
	paceKey,
	recallPace,
	rememberPace,
} from '../../../../nodes/VoucherService/transport/paceMemory';
import type { RateLimits } from '../../../../sandbox/server.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();
const key = () => paceKey(sandbox.url, sandbox.keys.publicKey);

const createEach = {
	resource: 'order',
	operation: 'create',
	reference: '={{ $json.reference }}',
	productCode: 'VCH-INSTANT',
	amount: 100,
	quantity: 1,
};

const WINDOW: RateLimits = { kind: 'fixedWindow', requests: 10, seconds: 1, signal: 'none' };

/** One execution of `rows` creates against a fresh `limit`: its share of requests refused, and its time. */
async function execution(limit: RateLimits, rows = 40) {
	sandbox.reset();
	sandbox.configure({ rateLimit: limit });
	const prefix = uniqueReference('memory');
	const items = Array.from({ length: rows }, (_, i) => ({ reference: `${prefix}-${i}` }));
	const started = performance.now();
	const result = await runVoucher(sandbox, createEach, { items });
	const ms = performance.now() - started;
	expect(result.json.filter((json) => json.error)).toEqual([]);
	expect(sandbox.state.orders.size).toBe(rows);
	const requests = apiRequests(sandbox);
	const refused = requests.filter((entry) => entry.status === 429).length;
	return { share: refused / requests.length, ms };
}

/*
 * Just after an edge of the sandbox's window, on the clock's grid of whole seconds. Started in
 * its last tenth, the first execution's slow start spans two windows and the run ends before a
 * period is learnt, so nothing is kept: this test failed 2 runs of 7 so.
 */
const windowStart = () =>
	new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 20));

describe('a pace remembered between executions, over HTTP', () => {
	it(
		'starts the next execution at the pace the last one learnt, until it expires',
		{ timeout: 120_000 },
		async () => {
			rememberPace(key(), undefined);
			await windowStart();
			const first = await execution(WINDOW);
			const learnt = recallPace(key());
			expect(learnt?.periodMs).toBeGreaterThan(0);

			const second = await execution(WINDOW);
			console.log(`refused: first execution ${first.share}, second ${second.share}`);
			expect(first.share).toBeGreaterThan(0.1);
			expect(second.share).toBeLessThanOrEqual(0.1);

			// The same pace, learnt a lifetime ago: the next execution learns again from nothing.
			rememberPace(key(), learnt, Date.now() - PACE_LIFETIME_MS);
			const expired = await execution(WINDOW);
			expect(expired.share).toBeGreaterThan(0.1);
		},
	);

	it('keeps nothing from a service that says when to come back (Retry-After)', async () => {
		rememberPace(key(), undefined);
		await execution({ kind: 'tokenBucket', requests: 10, seconds: 1, signal: 'retryAfter' });
		expect(apiRequests(sandbox).some((entry) => entry.status === 429)).toBe(true);
		expect(recallPace(key())).toBeUndefined();
	});

	it(
		'drops a remembered pace as soon as the service tells its window (Remaining, Reset)',
		{ timeout: 30_000 },
		async () => {
			// Held to it, 40 creates would take 39 s.
			rememberPace(key(), { budget: 1, periodMs: 1_000 });
			const told = await execution({ ...WINDOW, requests: 20, signal: 'xRateLimit' });
			expect(told.ms).toBeLessThan(10_000);
			expect(recallPace(key())).toBeUndefined();
		},
	);

	it('is kept apart per base URL and public key', async () => {
		rememberPace(key(), undefined);
		await execution(WINDOW);
		expect(recallPace(key())).toBeDefined();
		expect(recallPace(paceKey(`${sandbox.url}/other`, sandbox.keys.publicKey))).toBeUndefined();
		expect(recallPace(paceKey(sandbox.url, `${sandbox.keys.publicKey}x`))).toBeUndefined();
	});
});

describe('the memory of paces', () => {
	it('keys by the base URL and a hash of the public key, never the key itself', () => {
		const one = paceKey('https://api.example.com', 'pk_live_secretish');
		expect(one).not.toContain('pk_live_secretish');
		expect(one).toBe(paceKey('https://api.example.com', 'pk_live_secretish'));
		expect(one).not.toBe(paceKey('https://api.example.com', 'pk_live_other'));
		expect(one).not.toBe(paceKey('https://other.example.com', 'pk_live_secretish'));
		rememberPace(one, { budget: 3, periodMs: 1_000 });
		expect(recallPace(paceKey('https://api.example.com', 'pk_live_other'))).toBeUndefined();
		expect(recallPace(paceKey('https://other.example.com', 'pk_live_secretish'))).toBeUndefined();
	});

	it('forgets a pace after its lifetime, and keeps at most MAX_PACES, the newest', () => {
		const now = 1_700_000_000_000;
		rememberPace('a', { budget: 3, periodMs: 1_000 }, now);
		expect(recallPace('a', now + PACE_LIFETIME_MS - 1)).toEqual({ budget: 3, periodMs: 1_000 });
		expect(recallPace('a', now + PACE_LIFETIME_MS)).toBeUndefined();
		for (let i = 0; i <= MAX_PACES; i++) rememberPace(`k${i}`, { budget: 2 + i, periodMs: 1 }, now);
		expect(recallPace('k0', now)).toBeUndefined();
		expect(recallPace(`k${MAX_PACES}`, now)).toEqual({ budget: 2 + MAX_PACES, periodMs: 1 });
		expect(recallPace('k1', now)).toEqual({ budget: 3, periodMs: 1 });
	});

	it('counts the lifetime of a pace that grew from the pace it grew from', () => {
		const now = 1_700_000_000_000;
		rememberPace('g', { budget: 3, periodMs: 1_000 }, now);
		rememberPace('g', { budget: 4, periodMs: 1_000 }, now + 60_000);
		expect(recallPace('g', now + PACE_LIFETIME_MS - 1)).toEqual({ budget: 4, periodMs: 1_000 });
		expect(recallPace('g', now + PACE_LIFETIME_MS)).toBeUndefined();
		// A slower one was refused at: its lifetime starts again.
		rememberPace('g', { budget: 3, periodMs: 1_000 }, now);
		rememberPace('g', { budget: 2, periodMs: 1_000 }, now + 60_000);
		expect(recallPace('g', now + PACE_LIFETIME_MS)).toEqual({ budget: 2, periodMs: 1_000 });
	});

	it('keeps no pace with a period over the cap nor of one request, and forgets on none', () => {
		rememberPace('b', { budget: 1, periodMs: 1_000 });
		expect(recallPace('b')).toBeUndefined();
		rememberPace('b', { budget: 3, periodMs: MAX_REMEMBERED_PERIOD_MS });
		expect(recallPace('b')).toEqual({ budget: 3, periodMs: MAX_REMEMBERED_PERIOD_MS });
		rememberPace('b', { budget: 3, periodMs: MAX_REMEMBERED_PERIOD_MS + 1 });
		expect(recallPace('b')).toBeUndefined();
		rememberPace('b', { budget: 3, periodMs: 1_000 });
		rememberPace('b', undefined);
		expect(recallPace('b')).toBeUndefined();
	});
});
