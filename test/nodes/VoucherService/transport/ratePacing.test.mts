import { describe, expect, it } from 'vitest';

import { RatePacing } from '../../../../nodes/VoucherService/transport/ratePacing';

const NOW = 1_700_000_000_000;

/** A pacer on a clock the test moves. */
function pacerOn() {
	let now = NOW;
	const pacer = new RatePacing(() => now);
	const send = () => ({ sequence: pacer.onSend(), sentAt: now });
	return { pacer, send, tick: (ms: number) => (now += ms), now: () => now };
}

describe('rate pacing', () => {
	it('costs nothing until the service refuses or tells a limit', () => {
		const p = pacerOn();
		for (let i = 0; i < 1_000; i++) {
			const { sequence, sentAt } = p.send();
			p.pacer.onAnswer(sequence, sentAt, 'admitted', {});
		}
		expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
	});

	it('sends no more than Remaining (less what was sent since) before Reset, then one, whose answer tells the new window', () => {
		const p = pacerOn();
		const first = p.send();
		p.send(); // sent after `first` was counted
		p.pacer.onAnswer(first.sequence, first.sentAt, 'admitted', {
			remaining: 3,
			resetAt: NOW + 1_000,
		});
		p.send();
		p.send(); // 3 - 1 - 2 = 0 left
		expect(p.pacer.nextSendAt()).toBe(NOW + 1_000);
		p.tick(1_000);
		// A token bucket's Reset is when it is full, had nothing been sent meanwhile: not a count.
		expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
		const opening = p.send();
		expect(p.pacer.nextSendAt()).toBeGreaterThan(p.now());
		p.tick(20);
		p.pacer.onAnswer(opening.sequence, opening.sentAt, 'admitted', {
			remaining: 2,
			resetAt: p.now() + 1_000,
		});
		for (let i = 0; i < 2; i++) {
			expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
			p.send();
		}
		expect(p.pacer.nextSendAt()).toBe(p.now() + 1_000);
	});

	it('holds every request for a Retry-After, then sends what the last cycle admitted', () => {
		const p = pacerOn();
		const admitted = [p.send(), p.send(), p.send()];
		const refused = p.send();
		for (const a of admitted) p.pacer.onAnswer(a.sequence, a.sentAt, 'admitted');
		p.pacer.onAnswer(refused.sequence, refused.sentAt, 'refused', { retryAfterMs: 2_000 });
		// Nothing sent after it is out, and no pace learnt: one request tells it from a sporadic one.
		expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
		const tell = p.send();
		expect(p.pacer.nextSendAt()).toBeGreaterThanOrEqual(p.now() + 59_000);
		p.pacer.onAnswer(tell.sequence, tell.sentAt, 'refused', { retryAfterMs: 2_000 });
		expect(p.pacer.nextSendAt()).toBe(NOW + 2_000);
		p.tick(2_000);
		const cycle = [p.send(), p.send(), p.send()];
		// The period is not known yet: one probe at a time until a refusal tells it.
		const probe = p.send();
		for (const c of cycle) p.pacer.onAnswer(c.sequence, c.sentAt, 'admitted');
		expect(p.pacer.nextSendAt()).toBeGreaterThanOrEqual(p.now() + 59_000); // until it is answered
		p.tick(100);
		p.pacer.onAnswer(probe.sequence, probe.sentAt, 'refused', { retryAfterMs: 2_900 });
		const again = p.send(); // tells it from a sporadic refusal
		p.pacer.onAnswer(again.sequence, again.sentAt, 'refused', { retryAfterMs: 2_900 });
		expect(p.pacer.nextSendAt()).toBe(NOW + 5_000);
		p.tick(2_900);
		for (let i = 0; i < 3; i++) p.send();
		expect(p.pacer.nextSendAt()).toBe(NOW + 5_000 + 3_000 * 1.02); // 3 per 3 s, learnt, and a margin
	});

	it('with no hint, probes alone after a wait that grows while refused, and learns from the admission', () => {
		const p = pacerOn();
		const a = p.send();
		const b = p.send();
		p.pacer.onAnswer(a.sequence, a.sentAt, 'admitted');
		p.pacer.onAnswer(b.sequence, b.sentAt, 'refused');
		// One request's share of a second of what was admitted at once, from the admitted send.
		expect(p.pacer.nextSendAt()).toBe(NOW + 1_000);
		p.tick(1_000);
		const probe = p.send();
		expect(p.pacer.nextSendAt()).toBeGreaterThanOrEqual(p.now() + 59_000); // until it is answered
		p.pacer.onAnswer(probe.sequence, probe.sentAt, 'refused');
		expect(p.pacer.nextSendAt()).toBe(NOW + 1_600); // 1.6 × the first wait
		p.tick(600);
		const second = p.send();
		p.pacer.onAnswer(second.sequence, second.sentAt, 'admitted');
		// The first cycle began with whatever the limit had left (another client's window, say):
		// it tells no pace, and the ramp after the resumption goes on at once.
		expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
		const third = p.send();
		p.pacer.onAnswer(third.sequence, third.sentAt, 'refused');
		// The probe alone was admitted: one comes back in the 1.6 s it waited, and a margin.
		expect(p.pacer.nextSendAt()).toBe(NOW + 1_600 + 1_600 * 1.02);
	});

	it('forgets a refusal when a request sent after it is admitted: a sporadic one slows nothing', () => {
		const p = pacerOn();
		const [refused, later, last] = [p.send(), p.send(), p.send()];
		p.pacer.onAnswer(refused.sequence, refused.sentAt, 'refused', { retryAfterMs: 1_000 });
		expect(p.pacer.nextSendAt()).toBeGreaterThan(p.now()); // until a later request tells
		p.tick(5);
		p.pacer.onAnswer(later.sequence, later.sentAt, 'admitted');
		expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
		p.pacer.onAnswer(last.sequence, last.sentAt, 'admitted');
		for (let i = 0; i < 100; i++) {
			const next = p.send();
			p.pacer.onAnswer(next.sequence, next.sentAt, 'admitted');
			expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now()); // nothing was learnt
		}
	});

	it('tells a lone Retry-After refusal at no learnt pace with one request at once: admitted, it is forgotten', () => {
		const p = pacerOn();
		const admitted = [p.send(), p.send()];
		const refused = p.send();
		for (const a of admitted) p.pacer.onAnswer(a.sequence, a.sentAt, 'admitted');
		p.pacer.onAnswer(refused.sequence, refused.sentAt, 'refused', { retryAfterMs: 1_000 });
		const tell = p.send();
		expect(p.pacer.nextSendAt()).toBeGreaterThanOrEqual(p.now() + 59_000); // it alone
		p.tick(25);
		p.pacer.onAnswer(tell.sequence, tell.sentAt, 'admitted');
		for (let i = 0; i < 50; i++) {
			expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
			p.send();
		}
	});

	it('tells a refusal by refusals after it, not by requests that got no answer: those tell nothing', () => {
		const p = pacerOn();
		const [refused, dropped, later] = [p.send(), p.send(), p.send()];
		p.pacer.onAnswer(refused.sequence, refused.sentAt, 'refused', { retryAfterMs: 1_000 });
		p.tick(5);
		p.pacer.onAnswer(dropped.sequence, dropped.sentAt, 'unanswered');
		expect(p.pacer.nextSendAt()).toBeGreaterThan(p.now()); // the one still out tells
		p.pacer.onAnswer(later.sequence, later.sentAt, 'unanswered');
		// None out and none refused after it: still untold, so one request goes at once to tell.
		expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
		const tell = p.send();
		p.pacer.onAnswer(tell.sequence, tell.sentAt, 'admitted');
		for (let i = 0; i < 50; i++) {
			expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now()); // nothing was learnt
			p.send();
		}
	});

	it('learns from a refusal once three requests sent after it are refused too', () => {
		const p = pacerOn();
		const admitted = [p.send(), p.send()];
		const refused = [p.send(), p.send(), p.send(), p.send(), p.send()];
		for (const a of admitted) p.pacer.onAnswer(a.sequence, a.sentAt, 'admitted');
		p.pacer.onAnswer(refused[0].sequence, refused[0].sentAt, 'refused', { retryAfterMs: 2_000 });
		for (const r of refused.slice(1, 3)) p.pacer.onAnswer(r.sequence, r.sentAt, 'refused');
		expect(p.pacer.nextSendAt()).toBeGreaterThanOrEqual(p.now() + 59_000); // still to be told
		p.pacer.onAnswer(refused[3].sequence, refused[3].sentAt, 'refused');
		expect(p.pacer.nextSendAt()).toBe(NOW + 2_000);
		p.tick(2_000);
		p.send();
		p.send(); // what the cycle admitted
		p.send(); // a single probe for the period
		expect(p.pacer.nextSendAt()).toBeGreaterThanOrEqual(p.now() + 59_000);
	});

	it('after a refusal storm without hints, sends one probe at a time, each later, until one is admitted', () => {
		const p = pacerOn();
		const burst = Array.from({ length: 10 }, () => p.send());
		p.tick(25);
		p.pacer.onAnswer(burst[0].sequence, burst[0].sentAt, 'admitted');
		for (const r of burst.slice(1)) p.pacer.onAnswer(r.sequence, r.sentAt, 'refused');
		const probesAt: number[] = [];
		for (let i = 0; i < 6; i++) {
			p.tick(Math.max(0, p.pacer.nextSendAt() - p.now()));
			const probe = p.send();
			probesAt.push(probe.sentAt);
			expect(p.pacer.nextSendAt()).toBeGreaterThanOrEqual(p.now() + 59_000); // it alone
			p.tick(25);
			p.pacer.onAnswer(probe.sequence, probe.sentAt, i < 5 ? 'refused' : 'admitted');
		}
		const gaps = probesAt.slice(1).map((at, i) => at - probesAt[i]);
		for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThan(gaps[i - 1]);
		expect(p.pacer.nextSendAt()).toBeLessThan(p.now() + 59_000); // admitted: no longer alone
	});

	it('learns a period of at most a minute from a cycle that ended late', () => {
		const p = pacerOn();
		const first = p.send();
		p.pacer.onAnswer(first.sequence, first.sentAt, 'refused', { retryAfterMs: 1_000 });
		p.tick(1_000);
		const slow = p.send(); // the cycle's start; its refusal comes five minutes later
		p.tick(300_000);
		p.pacer.onAnswer(slow.sequence, slow.sentAt, 'refused', { retryAfterMs: 60_000 });
		p.tick(60_000);
		const next = p.send();
		p.pacer.onAnswer(next.sequence, next.sentAt, 'admitted');
		expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now() + 60_000);
	});

	it('holds requests back at most a minute when the clock is set back', () => {
		const p = pacerOn();
		for (let i = 0; i < 2; i++) {
			const refused = p.send(); // the second tells the first from a sporadic refusal
			p.pacer.onAnswer(refused.sequence, refused.sentAt, 'refused', { retryAfterMs: 2_000 });
		}
		p.tick(-600_000);
		expect(p.pacer.nextSendAt()).toBe(p.now() + 60_000);
		p.tick(60_000);
		expect(p.pacer.nextSendAt()).toBeLessThanOrEqual(p.now());
	});
});
