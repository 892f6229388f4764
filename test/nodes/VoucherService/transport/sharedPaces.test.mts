import { describe, expect, it } from 'vitest';

import {
	IDLE_MS,
	joinPaces,
	paceKey,
} from '../../../../nodes/VoucherService/transport/sharedPaces';

describe('paces shared by the executions at once on one account', () => {
	let clock = 1_700_000_000_000;
	const now = () => clock;

	it('are one per base URL and key, named by a hash of the key, never the key', () => {
		const key = paceKey('https://api.example.com', 'pk_live_secret');
		expect(key).not.toContain('pk_live_secret');
		const [a, b] = [joinPaces(key, now), joinPaces(key, now)];
		const otherKey = joinPaces(paceKey('https://api.example.com', 'pk_other'), now);
		const otherUrl = joinPaces(paceKey('https://sandbox.example.com', 'pk_live_secret'), now);
		expect(a.paces).toBe(b.paces);
		expect(otherKey.paces).not.toBe(a.paces);
		expect(otherUrl.paces).not.toBe(a.paces);
		for (const joined of [a, b, otherKey, otherUrl]) joined.leave();
	});

	it('are kept only while an execution is on them: one that joins after the last left starts afresh', () => {
		const key = paceKey('https://api.example.com', 'pk_kept');
		const first = joinPaces(key, now);
		const second = joinPaces(key, now);
		first.leave();
		first.leave(); // counted once
		expect(joinPaces(key, now).paces).toBe(first.paces);
		second.leave();
	});

	it('are not joined once idle longer than any wait: their executions ended unsaid', () => {
		const key = paceKey('https://api.example.com', 'pk_stopped');
		const stopped = joinPaces(key, now); // never leaves
		clock += IDLE_MS + 1;
		const next = joinPaces(key, now);
		expect(next.paces).not.toBe(stopped.paces);
		next.leave();
		stopped.leave();
	});
});
