import { describe, expect, it } from 'vitest';

import type { Outcome } from '../../../../nodes/VoucherService/transport/pacingState';
import { RoutePaces } from '../../../../nodes/VoucherService/transport/routePaces';
import type { RateTicket } from '../../../../nodes/VoucherService/transport/routePaces';

const NOW = 1_700_000_000_000;

/**
 * Paces on a clock the test moves. `held` starts where creates (POST) were refused: the shared
 * pace holds every route back and sends lone probes for when admissions resume.
 */
function pacesOn() {
	let now = NOW;
	const paces = new RoutePaces(() => now);
	const answer = (ticket: RateTicket, outcome: Outcome) => {
		now += 25;
		paces.onAnswer(ticket, outcome);
	};
	const held = () => {
		answer(paces.onSend('POST'), 'refused');
		expect(paces.nextSendAt('POST')).toBeGreaterThan(now);
	};
	/** Creates as the shared pace lets them, until it holds after one: that one. */
	const paced = () => {
		for (;;) {
			now = Math.max(now, paces.nextSendAt('POST'));
			const create = paces.onSend('POST');
			if (paces.nextSendAt('POST') > now) return create;
		}
	};
	/** A read sent now: a probe if no pace counts it. */
	const read = () => paces.onSend('GET');
	const mayRead = () => paces.nextSendAt('GET') <= now;
	return {
		paces,
		answer,
		held,
		paced,
		read,
		mayRead,
		now: () => now,
		tick: (ms: number) => (now += ms),
	};
}

describe('paces per route', () => {
	it('send every route on one pace until the answers show two limits', () => {
		const p = pacesOn();
		p.held();
		// Nothing sent beside: the read waits for the shared pace like the creates.
		expect(p.mayRead()).toBe(false);
		expect(p.paces.nextSendAt('GET')).toBe(p.paces.nextSendAt('POST'));
	});

	it('give a route its own pace when its probe is admitted beside a refused request of another', () => {
		const p = pacesOn();
		p.held();
		const create = p.paced();
		expect(p.mayRead()).toBe(true);
		const probe = p.read();
		expect(probe.pace).toBeUndefined();
		p.answer(create, 'refused');
		p.answer(probe, 'admitted');
		// Creates are still held; reads go on a pace of their own, fresh.
		expect(p.paces.nextSendAt('POST')).toBeGreaterThan(NOW + 50);
		expect(p.mayRead()).toBe(true);
		const reads = p.read();
		expect(reads.pace).toBeDefined();
		expect(reads.pace).not.toBe(create.pace);
		expect(p.read().pace).toBe(reads.pace);
	});

	it('keep one pace, and probe no more, when the probe is refused beside a refused request', () => {
		const p = pacesOn();
		p.held();
		const create = p.paced();
		const probe = p.read();
		p.answer(create, 'refused');
		p.answer(probe, 'refused');
		p.paced();
		expect(p.mayRead()).toBe(false);
		// Nor any other route: one limit for all.
		expect(p.paces.nextSendAt('PUT')).toBe(p.paces.nextSendAt('POST'));
	});

	it('stop a route probing whose probe is refused beside an admitted request, and let others', () => {
		const p = pacesOn();
		p.held();
		const create = p.paced();
		const probe = p.read();
		p.answer(probe, 'refused');
		p.answer(create, 'admitted');
		// A read admitted on the shared pace since: still no probe.
		p.answer(p.read(), 'admitted');
		p.held();
		p.paced();
		expect(p.mayRead()).toBe(false);
		expect(p.paces.nextSendAt('PUT')).toBe(p.now());
		expect(p.paces.onSend('PUT').pace).toBeUndefined();
	});

	it('decide nothing when both are admitted: a later probe may tell', () => {
		const p = pacesOn();
		p.held();
		const create = p.paced();
		const probe = p.read();
		p.answer(create, 'admitted');
		p.answer(probe, 'admitted');
		const read = p.read();
		expect(read.pace).toBe(create.pace);
		p.answer(read, 'admitted');
		p.held();
		p.paced();
		expect(p.read().pace).toBeUndefined();
	});

	it('probe only in the same millisecond as the send beside it, one at a time', () => {
		const p = pacesOn();
		p.held();
		p.paced();
		p.tick(1);
		expect(p.mayRead()).toBe(false);
		p.tick(-1);
		expect(p.read().pace).toBeUndefined();
		expect(p.mayRead()).toBe(false);
		// Nor beside a later send while that probe is out.
		p.paces.onSend('POST');
		expect(p.mayRead()).toBe(false);
	});

	it('probe from no route refused last', () => {
		const p = pacesOn();
		p.answer(p.read(), 'refused');
		p.held();
		p.paced();
		expect(p.mayRead()).toBe(false);
	});
});
