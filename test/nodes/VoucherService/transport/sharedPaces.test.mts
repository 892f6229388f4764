import { describe, expect, it } from 'vitest';

import type { RoutePaces } from '../../../../nodes/VoucherService/transport/routePaces';
import {
	IDLE_MS,
	joinPaces,
	MAX_KEPT,
	PACE_LIFETIME_MS,
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

	/**
	 * Two of three admitted, then found again by probes: two every 1.1 s, learnt from admissions
	 * alone (as in ratePacing.transitions.test.mts).
	 */
	function learnPace(paces: RoutePaces) {
		const start = clock;
		const at = (ms: number, ...outcomes: Array<'admitted' | 'refused'>) => {
			clock = start + ms;
			const tickets = outcomes.map(() => paces.onSend('POST'));
			tickets.forEach((ticket, i) => paces.onAnswer(ticket, outcomes[i]));
		};
		at(0, 'admitted', 'admitted', 'refused');
		at(500, 'refused');
		at(800, 'admitted');
		at(800, 'admitted', 'refused');
		at(1_600, 'admitted');
		at(2_800, 'admitted', 'admitted');
		expect(paces.nextSendAt('POST')).toBeGreaterThan(clock);
	}

	it('go on while an execution is on them, and a pace learnt is kept when the last leaves', () => {
		const key = paceKey('https://api.example.com', 'pk_kept');
		const first = joinPaces(key, now);
		const second = joinPaces(key, now);
		first.leave();
		first.leave(); // counted once
		expect(joinPaces(key, now).paces).toBe(first.paces);
		learnPace(first.paces);
		second.leave();
		clock += 100;
		const next = joinPaces(key, now);
		expect(next.paces).toBe(first.paces);
		expect(next.paces.nextSendAt('POST')).toBeGreaterThan(clock);
		next.leave();
	});

	it('are not kept when nothing was learnt, nor past their lifetime after the last request', () => {
		const key = paceKey('https://api.example.com', 'pk_nothing');
		const unlearnt = joinPaces(key, now);
		unlearnt.leave();
		expect(joinPaces(key, now).paces).not.toBe(unlearnt.paces);

		const learnt = joinPaces(paceKey('https://api.example.com', 'pk_old'), now);
		learnPace(learnt.paces);
		learnt.leave();
		clock += PACE_LIFETIME_MS + 1;
		const later = joinPaces(paceKey('https://api.example.com', 'pk_old'), now);
		expect(later.paces).not.toBe(learnt.paces);
		expect(later.paces.nextSendAt('POST')).toBeLessThanOrEqual(clock);
		later.leave();
	});

	it(`keep at most ${MAX_KEPT} paces no execution is on, the oldest going first`, () => {
		const keyOf = (i: number) => paceKey('https://api.example.com', `pk_many_${i}`);
		const kept = Array.from({ length: MAX_KEPT + 1 }, (_, i) => {
			const joined = joinPaces(keyOf(i), now);
			learnPace(joined.paces);
			joined.leave();
			return joined.paces;
		});
		const [oldest, second] = [joinPaces(keyOf(0), now), joinPaces(keyOf(1), now)];
		expect(oldest.paces).not.toBe(kept[0]);
		expect(second.paces).toBe(kept[1]);
		oldest.leave();
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
