import { describe, expect, it } from 'vitest';

import { readRateHints } from '../../../../nodes/VoucherService/transport/rateHints';

const NOW = 1_700_000_000_000;

describe('rate-limit hints from headers', () => {
	it('reads Retry-After in seconds and as an HTTP date', () => {
		expect(readRateHints({ 'retry-after': '3' }, NOW)).toEqual({ retryAfterMs: 3_000 });
		const date = new Date(NOW + 5_000).toUTCString();
		expect(readRateHints({ 'retry-after': date }, NOW)).toEqual({ retryAfterMs: 5_000 });
	});

	it('tells a Reset in epoch seconds (or ms) from one in seconds left', () => {
		const epoch = {
			'x-ratelimit-limit': '10',
			'x-ratelimit-remaining': '4',
			'x-ratelimit-reset': String(NOW / 1000 + 7),
		};
		expect(readRateHints(epoch, NOW)).toEqual({ remaining: 4, resetAt: NOW + 7_000 });
		const delta = { 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '7' };
		expect(readRateHints(delta, NOW)).toEqual({ remaining: 0, resetAt: NOW + 7_000 });
		expect(
			readRateHints({ 'ratelimit-remaining': '1', 'ratelimit-reset': String(NOW + 2_000) }, NOW),
		).toEqual({
			remaining: 1,
			resetAt: NOW + 2_000,
		});
	});

	it('keeps a Reset within a minute ahead and never in the past (clock skew)', () => {
		const far = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 3_600) };
		expect(readRateHints(far, NOW).resetAt).toBe(NOW + 60_000);
		const past = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 - 30) };
		expect(readRateHints(past, NOW).resetAt).toBe(NOW);
	});

	it("reads the one-header form, and no policy's quota or window (Remaining tells what is left)", () => {
		expect(readRateHints({ ratelimit: 'limit=100, remaining=50, reset=30' }, NOW)).toEqual({
			remaining: 50,
			resetAt: NOW + 30_000,
		});
		expect(
			readRateHints({ ratelimit: '"default";r=5;t=2', 'ratelimit-policy': '60;w=60' }, NOW),
		).toEqual({
			remaining: 5,
			resetAt: NOW + 2_000,
		});
	});

	it("reads the current draft's RateLimit, of several policies the one with the fewest left", () => {
		const current = { ratelimit: '"default";r=0;t=5', 'ratelimit-policy': '"default";q=100;w=60' };
		expect(readRateHints(current, NOW)).toEqual({
			remaining: 0,
			resetAt: NOW + 5_000,
		});
		// Two policies: the one with the fewest requests left binds.
		const two = {
			ratelimit: '"daily";r=900;t=50, "burst";r=0;t=2',
			'ratelimit-policy': '"daily";q=1000;w=86400, "burst";q=10;w=1',
		};
		expect(readRateHints(two, NOW)).toEqual({
			remaining: 0,
			resetAt: NOW + 2_000,
		});
	});

	it('reads the older drafts beside a RateLimit-Policy or a RateLimit-Limit list', () => {
		expect(
			readRateHints(
				{ ratelimit: 'limit=10, remaining=3, reset=4', 'ratelimit-policy': '10;w=1' },
				NOW,
			),
		).toEqual({ remaining: 3, resetAt: NOW + 4_000 });
		const list = {
			'ratelimit-limit': '10, 10;w=1, 50;w=60',
			'ratelimit-remaining': '3',
			'ratelimit-reset': '1',
		};
		expect(readRateHints(list, NOW)).toEqual({
			remaining: 3,
			resetAt: NOW + 1_000,
		});
	});

	it('reads a blank Retry-After as absent, a past date as now, and digits only as seconds', () => {
		expect(readRateHints({ 'retry-after': '' }, NOW)).toEqual({});
		expect(readRateHints({ 'retry-after': '   ' }, NOW)).toEqual({});
		expect(readRateHints({ 'retry-after': '0' }, NOW)).toEqual({ retryAfterMs: 0 });
		const past = new Date(NOW - 5_000).toUTCString();
		expect(readRateHints({ 'retry-after': past }, NOW)).toEqual({ retryAfterMs: 0 });
		expect(readRateHints({ 'retry-after': '-1' }, NOW)).toEqual({}); // a year, to Date.parse
	});

	it('ignores what is not a count', () => {
		expect(
			readRateHints(
				{ 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': '-1', 'retry-after': 'soon' },
				NOW,
			),
		).toEqual({});
		expect(readRateHints(undefined, NOW)).toEqual({});
	});
});
