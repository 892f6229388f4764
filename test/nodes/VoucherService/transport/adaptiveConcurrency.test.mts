import { sleep } from 'n8n-workflow';
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
	AdaptiveConcurrency,
	START_LIMIT,
} from '../../../../nodes/VoucherService/transport/adaptiveConcurrency';
import type { Slot } from '../../../../nodes/VoucherService/transport/adaptiveConcurrency';
import { readRateHints } from '../../../../nodes/VoucherService/transport/rateHints';
import { createRateLimiter } from '../../../../sandbox/rateLimit.mts';

/**
 * A pacer on a clock the test moves, with helpers to fill it and answer what is in flight.
 * Its first request (which goes alone) is already answered, in 10 ms.
 */
async function pacerOn(maxLimit: number) {
	let now = 1_000;
	const pacer = new AdaptiveConcurrency(maxLimit, () => now);
	const opening = await pacer.acquire();
	now += 10;
	pacer.release(opening, { overloaded: false });
	const inFlight: Slot[] = [];
	return {
		pacer,
		inFlight,
		tick: (ms: number) => (now += ms),
		/** Asks for `count` slots (burst ones with `burst`); returns how many were granted at once. */
		async ask(count: number, burst = false): Promise<number> {
			let granted = 0;
			for (let i = 0; i < count; i++) {
				void pacer.acquire(burst).then((slot) => {
					inFlight.push(slot);
					granted++;
				});
			}
			await Promise.resolve();
			await Promise.resolve();
			return granted;
		},
		/** Answers every request in flight after `latencyMs`, all alike. */
		async answerAll(latencyMs: number, overloaded = false) {
			now += latencyMs;
			for (const slot of inFlight.splice(0)) pacer.release(slot, { overloaded });
			await Promise.resolve();
		},
	};
}

describe('adaptive concurrency', () => {
	it('sends the first request alone: its answer may tell a rate limit before a burst meets it', async () => {
		let now = 1_000;
		const pacer = new AdaptiveConcurrency(32, () => now);
		const granted: Slot[] = [];
		for (let i = 0; i < 5; i++) void pacer.acquire(i > 2).then((slot) => granted.push(slot));
		await Promise.resolve();
		await Promise.resolve();
		expect(granted).toHaveLength(1);
		now += 20;
		pacer.release(granted[0], { overloaded: false });
		await Promise.resolve();
		await Promise.resolve();
		// Then a round of two, and the burst requests that waited behind the opening one, at once.
		expect(granted).toHaveLength(1 + 2 * START_LIMIT + 2);
		expect(granted.slice(-2).map((slot) => slot.round)).toEqual([undefined, undefined]);
	});

	it('doubles per round of fast, clean answers after the opening request', async () => {
		const p = await pacerOn(32);
		expect(await p.ask(1000)).toBe(2 * START_LIMIT);
		await p.answerAll(20);
		expect(p.inFlight).toHaveLength(4 * START_LIMIT);
		await p.answerAll(20);
		expect(p.inFlight).toHaveLength(8 * START_LIMIT);
	});

	it('starts a round of the slow start only when every answer of the last is in', async () => {
		const p = await pacerOn(32);
		await p.ask(1000);
		await p.answerAll(20); // a round of 4
		await p.ask(0);
		const [last, ...rest] = p.inFlight.splice(0);
		expect(rest).toHaveLength(3);
		for (const slot of rest) p.pacer.release(slot, { overloaded: false });
		await p.ask(0);
		// A limit reached by the answers already in would refuse the whole next round.
		expect(p.inFlight).toEqual([]);
		p.pacer.release(last, { overloaded: false });
		await p.ask(0);
		expect(p.inFlight).toHaveLength(8);
	});

	it('starts at 16 once the service has told how many requests it admits', async () => {
		let now = 1_000;
		const pacer = new AdaptiveConcurrency(32, () => now);
		const opening = await pacer.acquire();
		now += 10;
		const hints = { limit: 100, remaining: 99, resetAt: now + 1_000 };
		pacer.release(opening, { overloaded: false, hints });
		let granted = 0;
		for (let i = 0; i < 100; i++) void pacer.acquire().then(() => granted++);
		await Promise.resolve();
		await Promise.resolve();
		expect(granted).toBe(16);
	});

	it('goes no further than the Maximum Concurrency in its rounds', async () => {
		const p = await pacerOn(3);
		expect(await p.ask(100)).toBe(2);
		await p.answerAll(20);
		expect(p.inFlight).toHaveLength(3);
	});

	it('never exceeds the Maximum Concurrency', async () => {
		const p = await pacerOn(6);
		await p.ask(1000);
		for (let round = 0; round < 20; round++) await p.answerAll(20);
		expect(p.inFlight).toHaveLength(6);
		expect(p.pacer.currentLimit).toBe(6);
	});

	it('halves once per round on 5xx, then grows by one per round', async () => {
		const p = await pacerOn(32);
		await p.ask(1000);
		await p.answerAll(20);
		await p.answerAll(20); // 8 in flight
		await p.answerAll(20, true); // the whole round overloaded: one halving, not one per answer
		const halved = 4;
		expect(p.pacer.currentLimit).toBe(halved);
		expect(p.inFlight).toHaveLength(halved);
		await p.answerAll(20);
		expect(p.pacer.currentLimit).toBe(halved + 1);
		await p.answerAll(20);
		expect(p.pacer.currentLimit).toBe(halved + 2);
	});

	it('treats a round of answers far slower than the fastest seen as overload', async () => {
		const p = await pacerOn(32);
		await p.ask(1000);
		await p.answerAll(10); // limit 4, fastest answer 10 ms
		await p.answerAll(500);
		expect(p.pacer.currentLimit).toBeLessThan(4);
	});

	it('does not halve for one slow answer among fast ones (a busy host, not a busy service)', async () => {
		const p = await pacerOn(32);
		await p.ask(1000);
		await p.answerAll(10);
		await p.answerAll(10); // limit 16
		const [slow, ...fast] = p.inFlight.splice(0);
		p.tick(10);
		for (const slot of fast) p.pacer.release(slot, { overloaded: false });
		p.tick(290);
		p.pacer.release(slow, { overloaded: false });
		expect(p.pacer.currentLimit).toBeGreaterThanOrEqual(16);
	});

	it('does not grow a limit the node is not using', async () => {
		const p = await pacerOn(32);
		await p.ask(6);
		await p.answerAll(10);
		await p.ask(0); // the round of 4 granted
		await p.answerAll(10); // limit 8, of which 2 are needed from now on
		for (let round = 0; round < 5; round++) {
			await p.ask(2);
			await p.answerAll(10);
		}
		expect(p.pacer.currentLimit).toBe(8);
	});

	it('grants a burst window at once, and a clean burst lets what follows start at its size', async () => {
		const p = await pacerOn(32);
		expect(await p.ask(32, true)).toBe(32);
		await p.answerAll(25);
		// Every request of the window was sent with at least the limit in flight, so each clean
		// answer tested the limit and grows it (slow start): 32 were served at once, so 32 follow.
		expect(p.pacer.currentLimit).toBe(32);
		expect(await p.ask(40)).toBe(32);
	});

	it('grows after a burst no further than the window it tested, plus one', async () => {
		const window = 5;
		const p = await pacerOn(32);
		expect(await p.ask(window, true)).toBe(window);
		await p.answerAll(25);
		expect(p.pacer.currentLimit).toBe(window + 1);
	});

	it('never lets a burst past Maximum Concurrency', async () => {
		const p = await pacerOn(2);
		expect(await p.ask(8, true)).toBe(2);
	});

	it('does not halve on 429s, and a burst still waits for a Retry-After', async () => {
		const p = await pacerOn(32);
		expect(await p.ask(8, true)).toBe(8);
		const [first, ...rest] = p.inFlight.splice(0);
		p.pacer.release(first, { overloaded: false, refused: true, hints: { retryAfterMs: 1_000 } });
		for (const slot of rest) p.pacer.release(slot, { overloaded: false, refused: true });
		expect(p.pacer.currentLimit).toBe(2); // as the opening request left it
		expect(await p.ask(1, true)).toBe(0);
		p.tick(1_000);
		expect(await p.ask(1, true)).toBe(1);
	});

	it('holds every new request back until a Retry-After has passed', async () => {
		const pacer = new AdaptiveConcurrency(32);
		const first = await pacer.acquire();
		const pausedAt = Date.now();
		pacer.release(first, { overloaded: false, refused: true, hints: { retryAfterMs: 150 } });
		// One goes at once to tell the refusal from a sporadic one; refused too, the wait holds.
		const tell = await pacer.acquire();
		pacer.release(tell, { overloaded: false, refused: true, hints: { retryAfterMs: 150 } });
		await pacer.acquire();
		expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(145);
	});

	it('sends a waiting request of another route past ones its route’s pace holds back', async () => {
		const p = await pacerOn(32);
		const refused = await p.pacer.acquire(false, 'POST');
		p.tick(25);
		p.pacer.release(refused, { overloaded: false, refused: true });
		const granted: string[] = [];
		for (const route of ['POST', 'POST', 'GET'])
			void p.pacer.acquire(false, route).then(() => granted.push(route));
		await Promise.resolve();
		expect(granted).toEqual([]);
		// The pace sends one create when its wait ends; the read goes beside it as a probe.
		p.tick(60_000);
		void p.pacer.acquire(false, 'POST').then(() => granted.push('POST'));
		await Promise.resolve();
		await Promise.resolve();
		expect(granted).toEqual(['POST', 'GET']);
	});

	it('serves waiting requests when the rate wait ends between two looks at the clock', async () => {
		// Every look at this clock moves it on a millisecond, as a real one may between two calls.
		let now = 1_000;
		let ticking = false;
		const pacer = new AdaptiveConcurrency(32, () => (ticking ? now++ : now));
		const first = await pacer.acquire();
		pacer.release(first, { overloaded: false, refused: true, hints: { retryAfterMs: 100 } });
		now = 1_099; // the wait ends at 1_100: acquire() finds it running, the wake it then schedules finds it over
		ticking = true;
		const granted = pacer.acquire().then(() => 'granted');
		ticking = false;
		const stuck = sleep(1_500).then(() => 'stuck'); // no answer is due to dispatch it
		expect(await Promise.race([granted, stuck])).toBe('granted');
	});
});

/** A seeded generator: a failing run can be replayed from its seed. */
function random(seed: number) {
	return () => {
		seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
		return seed / 0x7fffffff;
	};
}

/*
 * Whole runs against the sandbox's limiter on fake timers, at random limits, signals,
 * latencies and Maximum Concurrency, with a clock that sometimes moves on between two looks.
 * Each row is resent on 429 until admitted; the run must never go over a minute without
 * sending while rows wait (the longest wait the pacing imposes).
 */
describe('adaptive concurrency under random rate limits', () => {
	afterEach(() => vi.useRealTimers());

	it('always sends again within a minute until every row is admitted', async () => {
		for (let seed = 1; seed <= 150; seed++) {
			const r = random(seed);
			const pick = <T,>(values: readonly T[]) => values[Math.floor(r() * values.length)];
			vi.useFakeTimers({ now: 1_700_000_000_000 + Math.floor(r() * 10_000) });
			const limit = {
				kind: pick(['tokenBucket', 'fixedWindow'] as const),
				requests: pick([1, 2, 5, 15]),
				seconds: pick([1, 3]),
				signal: pick(['retryAfter', 'xRateLimit', 'rateLimit', 'none'] as const),
			};
			const limiter = createRateLimiter(limit, () => Date.now());
			let drift = 0;
			const pacer = new AdaptiveConcurrency(pick([1, 4, 32]), () => {
				if (r() < 0.2) drift++;
				return Date.now() + drift;
			});
			const latencyMs = pick([1, 25, 200]);
			let lastSend = Date.now();
			const row = async () => {
				for (;;) {
					const slot = await pacer.acquire();
					lastSend = Date.now();
					const half = () => new Promise((done) => setTimeout(done, latencyMs * r()));
					await half();
					const { admitted, headers } = limiter.admit();
					await half();
					const hints = readRateHints(headers, Date.now() + drift);
					pacer.release(slot, { overloaded: false, refused: !admitted, hints });
					if (admitted) return;
				}
			};
			let done = false;
			void Promise.all(Array.from({ length: 30 }, row)).then(() => (done = true));
			while (!done) {
				await vi.advanceTimersByTimeAsync(100);
				if (Date.now() - lastSend > 61_000)
					throw new Error(`seed ${seed}: nothing sent for a minute, ${JSON.stringify(limit)}`);
			}
		}
	});
});
