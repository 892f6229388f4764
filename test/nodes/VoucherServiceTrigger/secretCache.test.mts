// The trigger's per-process cache of the webhook secret (issue #20): a rotated secret is
// accepted at once, a rotated-out one for at most 60 seconds, a failed read keeps nothing,
// and a forged flood costs at most one read a second. Over HTTP: secretCache.requests.test.mts.
import { describe, expect, it } from 'vitest';

import {
	MAX_CACHED_SECRETS,
	MAX_WAITING,
	MISMATCH_READ_INTERVAL_MS,
	SECRET_LIFETIME_MS,
	SecretCache,
	type Lookup,
} from '../../../nodes/VoucherServiceTrigger/secretCache';

const OLD = 'whsec_before_rotation';
const NEW = 'whsec_after_rotation';

describe('SecretCache', () => {
	function cacheAt(start = 1_000_000) {
		const clock = { now: start };
		const timers: Array<{ at: number; wake: () => void }> = [];
		const wait = (ms: number) =>
			new Promise<void>((wake) => timers.push({ at: clock.now + ms, wake }));
		/** Moves the clock, wakes what is due and lets every check run to its next wait. */
		const advance = async (ms: number) => {
			clock.now += ms;
			for (const timer of timers.filter((t) => t.at <= clock.now)) {
				timers.splice(timers.indexOf(timer), 1);
				timer.wake();
			}
			await settle();
		};
		const reads: string[] = [];
		/** What the credential holds; each read records what it returned. */
		const stored = { secret: OLD };
		const read = async () => {
			reads.push(stored.secret);
			return stored.secret;
		};
		const cache = new SecretCache(() => clock.now, wait);
		return { clock, advance, reads, stored, read, cache };
	}
	const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
	/** Counts outcomes, naming the secret a delivery matched. */
	const tally = (lookups: Lookup[], into: Record<string, number> = {}) => {
		for (const lookup of lookups) {
			const tag = lookup.outcome === 'matched' ? `matched ${lookup.secret}` : lookup.outcome;
			into[tag] = (into[tag] ?? 0) + 1;
		}
		return into;
	};
	const signedWith = (secret: string) => (candidate: string) => candidate === secret;

	it('keeps a secret for 60 seconds from the start of its read, not a millisecond more', async () => {
		const { clock, cache } = cacheAt();
		const start = clock.now;
		const slowRead = async () => {
			clock.now += 500; // a slow read: its age counts from when it began
			return OLD;
		};
		expect(await cache.check('k', signedWith(OLD), slowRead)).toEqual({
			outcome: 'matched',
			secret: OLD,
		});
		expect(SECRET_LIFETIME_MS).toBe(60_000);
		clock.now = start + SECRET_LIFETIME_MS - 1;
		expect(cache.get('k')).toBe(OLD);
		clock.now = start + SECRET_LIFETIME_MS;
		expect(cache.get('k')).toBeUndefined();
	});

	it('treats a clock that went back as expired', async () => {
		const { clock, cache, read } = cacheAt();
		await cache.check('k', signedWith(OLD), read);
		clock.now -= 1;
		expect(cache.get('k')).toBeUndefined();
	});

	it('forgets a kept secret when a read fails, and keeps nothing from a failed read', async () => {
		const { clock, cache, read } = cacheAt();
		await cache.check('k', signedWith(OLD), read);
		clock.now += MISMATCH_READ_INTERVAL_MS;
		const failing = async () => {
			throw new Error('Credentials could not be decrypted.');
		};
		await expect(cache.check('k', signedWith(NEW), failing)).rejects.toThrow('decrypted');
		expect(cache.get('k')).toBeUndefined();
	});

	it('refuses only against a read that began after the delivery arrived', async () => {
		const { clock, cache, read, reads } = cacheAt();
		expect(await cache.check('k', signedWith('forged'), read)).toEqual({
			outcome: 'refused',
			secret: OLD,
		});
		clock.now += MISMATCH_READ_INTERVAL_MS;
		expect((await cache.check('k', signedWith('forged'), read)).outcome).toBe('refused');
		expect(reads).toEqual([OLD, OLD]);
	});

	it('has one read in flight at a time, which serves every delivery waiting for it', async () => {
		const { cache, stored, reads, advance } = cacheAt();
		let finish!: () => void;
		const slowRead = () =>
			new Promise<string>((resolve) => {
				reads.push(stored.secret);
				finish = () => resolve(stored.secret);
			});
		const first = cache.check('k', signedWith(OLD), slowRead);
		const others = Array.from({ length: 20 }, () => cache.check('k', signedWith(OLD), slowRead));
		const forged = Array.from({ length: 20 }, () =>
			cache.check('k', signedWith('forged'), slowRead),
		);
		finish();
		expect(tally(await Promise.all([first, ...others]))).toEqual({ [`matched ${OLD}`]: 21 });
		// The forged ones arrived while the read was in flight, that is before it began: it
		// cannot refuse them, and the next read may begin only after the interval. A few wait
		// for it; the rest are left undecided at once.
		await settle();
		expect(reads).toHaveLength(1);
		await advance(MISMATCH_READ_INTERVAL_MS);
		finish();
		expect(tally(await Promise.all(forged))).toEqual({
			refused: MAX_WAITING,
			undecided: 20 - MAX_WAITING,
		});
		expect(reads).toHaveLength(2);
	});

	it('a forged flood costs at most one read per interval, however many deliveries arrive', async () => {
		const { cache, read, reads, advance } = cacheAt();
		await cache.check('k', signedWith(OLD), read);
		const genuine: Array<Promise<Lookup>> = [];
		const forged: Array<Promise<Lookup>> = [];
		const floodSeconds = 30;
		// 32 forged deliveries every 10 ms for 30 s, and a genuine one every 100 ms.
		for (let step = 0; step < (floodSeconds * 1000) / 10; step++) {
			for (let i = 0; i < 32; i++) forged.push(cache.check('k', signedWith(`f${step}`), read));
			if (step % 10 === 0) genuine.push(cache.check('k', signedWith(OLD), read));
			await advance(10);
		}
		await advance(MISMATCH_READ_INTERVAL_MS);
		expect(reads.length - 1).toBeLessThanOrEqual(
			(floodSeconds * 1000) / MISMATCH_READ_INTERVAL_MS + 1,
		);
		expect(tally(await Promise.all(genuine))).toEqual({ [`matched ${OLD}`]: floodSeconds * 10 });
		const outcomes = tally(await Promise.all(forged));
		expect(Object.keys(outcomes).sort()).toEqual(['refused', 'undecided']);
		// Each read refuses the delivery that began it and the few that waited for it.
		expect(outcomes.refused).toBeLessThanOrEqual((reads.length - 1) * (MAX_WAITING + 1));
		expect(outcomes.refused + outcomes.undecided).toBe((floodSeconds * 1000 * 32) / 10);
	});

	it('accepts a newly saved secret at once when no read ran in the interval before', async () => {
		const { clock, cache, read, stored, reads } = cacheAt();
		await cache.check('k', signedWith(OLD), read);
		clock.now += 5_000;
		stored.secret = NEW;
		expect(await cache.check('k', signedWith(NEW), read)).toEqual({
			outcome: 'matched',
			secret: NEW,
		});
		expect(await cache.check('k', signedWith(NEW), read)).toEqual({
			outcome: 'matched',
			secret: NEW,
		});
		expect(reads).toEqual([OLD, NEW]);
	});

	it("under a flood, gives a new secret's delivery 503 at most for an interval after the save, then accepts it", async () => {
		const { clock, cache, read, stored, advance } = cacheAt();
		await cache.check('k', signedWith(OLD), read);
		const saveAt = clock.now + 5_500;
		const genuine: Array<{ sentAt: number; lookup: Promise<Lookup> }> = [];
		for (let step = 1; step <= 1_000; step++) {
			await advance(10);
			if (clock.now === saveAt) stored.secret = NEW;
			for (let i = 0; i < 8; i++) void cache.check('k', signedWith('forged'), read);
			const lookup = cache.check('k', signedWith(stored.secret), read);
			genuine.push({ sentAt: clock.now, lookup });
		}
		await advance(MISMATCH_READ_INTERVAL_MS);
		const undecidedAt: number[] = [];
		for (const { sentAt, lookup } of genuine) {
			const { outcome } = await lookup;
			expect(outcome).not.toBe('refused');
			if (outcome === 'undecided') undecidedAt.push(sentAt);
		}
		expect(undecidedAt.length).toBeGreaterThan(0); // the flood's read just before the save
		expect(Math.min(...undecidedAt)).toBeGreaterThanOrEqual(saveAt);
		expect(Math.max(...undecidedAt)).toBeLessThan(saveAt + MISMATCH_READ_INTERVAL_MS);
		// The service retries a 503 three minutes later: every cached secret is then newer.
		clock.now = saveAt + 3 * 60 * 1000;
		expect(await cache.check('k', signedWith(NEW), read)).toEqual({
			outcome: 'matched',
			secret: NEW,
		});
	});

	it("without a flood, a new secret's delivery right after a read waits for the next read and is accepted", async () => {
		const { cache, read, stored, reads, advance } = cacheAt();
		await cache.check('k', signedWith(OLD), read);
		await advance(MISMATCH_READ_INTERVAL_MS);
		expect((await cache.check('k', signedWith('forged'), read)).outcome).toBe('refused');
		stored.secret = NEW;
		const lookup = cache.check('k', signedWith(NEW), read);
		await advance(MISMATCH_READ_INTERVAL_MS - 1);
		expect(reads).toEqual([OLD, OLD]);
		await advance(1);
		expect(await lookup).toEqual({ outcome: 'matched', secret: NEW });
		expect(reads).toEqual([OLD, OLD, NEW]);
	});

	it("without a flood, a burst of a new secret's deliveries right after a read: MAX_WAITING accepted, the rest 503, none 401", async () => {
		const { clock, cache, read, stored, reads, advance } = cacheAt();
		expect((await cache.check('k', signedWith('forged'), read)).outcome).toBe('refused');
		stored.secret = NEW; // saved 100 ms after that read began
		clock.now += 200;
		// A bulk order completing: 8 genuine deliveries at once, no forged one.
		const burst = Array.from({ length: 8 }, () => cache.check('k', signedWith(NEW), read));
		await advance(MISMATCH_READ_INTERVAL_MS);
		expect(tally(await Promise.all(burst))).toEqual({
			[`matched ${NEW}`]: MAX_WAITING,
			undecided: 8 - MAX_WAITING,
		});
		expect(reads).toEqual([OLD, NEW]);
		clock.now += 3 * 60 * 1000; // the service's retries of the 503s
		expect((await cache.check('k', signedWith(NEW), read)).outcome).toBe('matched');
	});

	it('refuses the old secret once a read returned the new one, and 60 seconds after the save at the latest', async () => {
		const { clock, cache, read, stored } = cacheAt();
		await cache.check('k', signedWith(OLD), read);
		const savedAt = clock.now + 1;
		stored.secret = NEW;
		clock.now = savedAt + SECRET_LIFETIME_MS - 2;
		expect((await cache.check('k', signedWith(OLD), read)).outcome).toBe('matched');
		clock.now = savedAt + SECRET_LIFETIME_MS;
		expect(await cache.check('k', signedWith(OLD), read)).toEqual({
			outcome: 'refused',
			secret: NEW,
		});
		clock.now += MISMATCH_READ_INTERVAL_MS;
		expect((await cache.check('k', signedWith(OLD), read)).outcome).toBe('refused');
	});

	it('holds at most its bound, dropping idle entries first and then the oldest', async () => {
		const clock = { now: 0 };
		const cache = new SecretCache(
			() => clock.now,
			async () => {},
			1000,
			100,
			3,
		);
		const read = (secret: string) => async () => secret;
		await cache.check('a', signedWith('sa'), read('sa'));
		clock.now = 600;
		await cache.check('b', signedWith('sb'), read('sb'));
		await cache.check('c', signedWith('sc'), read('sc'));
		clock.now = 1000; // a has expired
		await cache.check('d', signedWith('sd'), read('sd'));
		expect([cache.size, cache.get('b'), cache.get('a')]).toEqual([3, 'sb', undefined]);
		await cache.check('e', signedWith('se'), read('se')); // full of fresh entries: b is the oldest
		expect(cache.size).toBe(3);
		expect(['b', 'c', 'd', 'e'].map((key) => cache.get(key))).toEqual([
			undefined,
			'sc',
			'sd',
			'se',
		]);
		expect(MAX_CACHED_SECRETS).toBeGreaterThanOrEqual(100);
	});
});
