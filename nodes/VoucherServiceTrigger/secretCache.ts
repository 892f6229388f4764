/*
 * The webhook secret, kept in this process's memory for a short while, so that a delivery
 * does not make n8n read the credential from its database, decrypt it and take a second
 * expression isolate for it (docs/trigger.md). The rules that keep a cache from changing
 * what the service gets back:
 * - a secret is used for at most SECRET_LIFETIME_MS after the read that produced it began,
 *   whatever happens in between, so a rotated-out secret is accepted for at most that long;
 * - a signature is refused only against a secret whose read began after the delivery
 *   arrived, so a secret saved before a delivery arrived is never refused;
 * - one read per key is in flight at a time, and every delivery that arrived before a read
 *   began takes its answer;
 * - a read starts at most once per MISMATCH_READ_INTERVAL_MS per key. A delivery that
 *   needs a read sooner waits for the next one, unless MAX_WAITING deliveries already do:
 *   then it is left undecided (the caller answers 503, which the service retries). So
 *   forged deliveries cost at most one credential read per interval however many arrive.
 * So a delivery signed with a secret saved before it arrived is accepted after at most the
 *   rest of a read in flight, one interval and one read, unless MAX_WAITING deliveries
 *   already wait for that read: then it gets a 503, never a 401, and the service's retry
 *   (3 minutes later, by when every cached secret was read after the save) is accepted.
 *   The waiters need not be forged: a burst of genuine deliveries signed with a secret
 *   saved just after a read began is enough.
 * The secret is kept here and nowhere else: never in static data, items or logs.
 */

/** Rotation anchors: Revolut keeps an old webhook secret valid up to 7 days, Gemini 24 hours. */
export const SECRET_LIFETIME_MS = 60 * 1000;

/** At most one read a second per workflow and credential for signatures that do not match. */
export const MISMATCH_READ_INTERVAL_MS = 1000;

/*
 * Few enough that a flood's forged deliveries are mostly answered at once; each waiter
 * holds its request open for up to an interval. A genuine burst beyond it right after a
 * rotation gets 503s, whose retries run.
 */
export const MAX_WAITING = 4;

/** One entry per workflow and credential in this process; far above any real instance. */
export const MAX_CACHED_SECRETS = 500;

/** Milliseconds, as Date.now() counts them. */
export type Clock = () => number;

export type Lookup =
	/** `secret` matches; it was cached or read, at any time within its lifetime. */
	| { outcome: 'matched'; secret: string }
	/** `secret`, read after the delivery arrived, does not match. */
	| { outcome: 'refused'; secret: string }
	/** No read that began after the delivery arrived, and none may begin now. */
	| { outcome: 'undecided' };

interface SecretRead {
	/** Orders reads against arrivals: a read serves a refusal only to deliveries before it. */
	sequence: number;
	secret: Promise<string>;
}

interface SecretSlot {
	secret?: string;
	/** When the read that produced `secret` began: its age is never underestimated. */
	readAt?: number;
	/** That read's place among arrivals. */
	readSequence?: number;
	reading?: SecretRead;
	/** When the last read began; the interval between reads counts from it. */
	lastReadAt?: number;
	/** Deliveries waiting for the interval to pass. */
	waiting: number;
}

export class SecretCache {
	private readonly slots = new Map<string, SecretSlot>();
	private sequence = 0;

	constructor(
		private readonly clock: Clock,
		/** Resolves after `ms` milliseconds of `clock`. */
		private readonly wait: (ms: number) => Promise<void>,
		private readonly lifetimeMs = SECRET_LIFETIME_MS,
		private readonly intervalMs = MISMATCH_READ_INTERVAL_MS,
		private readonly maxEntries = MAX_CACHED_SECRETS,
		private readonly maxWaiting = MAX_WAITING,
	) {}

	private isFresh(readAt: number | undefined, now: number): readAt is number {
		if (readAt === undefined) return false;
		const age = now - readAt;
		// A clock that went back makes the age negative: treat it as expired, not as new.
		return age >= 0 && age < this.lifetimeMs;
	}

	/** The secret for `key` if it was read less than the lifetime ago; undefined otherwise. */
	get(key: string): string | undefined {
		const slot = this.slots.get(key);
		if (slot === undefined) return undefined;
		if (this.isFresh(slot.readAt, this.clock())) return slot.secret;
		slot.secret = undefined;
		slot.readAt = undefined;
		return undefined;
	}

	/**
	 * Decides a delivery with the cached secret, or with a read by `read` (shared with
	 * every other delivery waiting for `key`). Throws when the read fails, so the caller
	 * answers 5xx; a failed read also forgets what was kept for `key`.
	 */
	async check(
		key: string,
		matches: (secret: string) => boolean,
		read: () => Promise<string>,
	): Promise<Lookup> {
		const arrival = this.sequence;
		const cached = this.get(key);
		if (cached !== undefined && matches(cached)) return { outcome: 'matched', secret: cached };
		for (;;) {
			const slot = this.slot(key);
			// A read that began after this delivery arrived decides it, even one that ended
			// before this delivery resumed from its wait.
			if (slot.secret !== undefined && slot.readSequence! > arrival) {
				const secret = slot.secret;
				return { outcome: matches(secret) ? 'matched' : 'refused', secret };
			}
			if (slot.reading === undefined) {
				const delay = this.untilNextRead(slot);
				if (delay > 0) {
					if (slot.waiting >= this.maxWaiting) return { outcome: 'undecided' };
					slot.waiting++;
					try {
						await this.wait(delay);
					} finally {
						slot.waiting--;
					}
					continue;
				}
				slot.reading = this.begin(key, slot, read);
			}
			const reading = slot.reading;
			const secret = await reading.secret;
			if (matches(secret)) return { outcome: 'matched', secret };
			if (reading.sequence > arrival) return { outcome: 'refused', secret };
		}
	}

	private untilNextRead(slot: SecretSlot): number {
		const now = this.clock();
		// A clock that went back leaves the interval as passed, never as endless.
		if (slot.lastReadAt === undefined || now < slot.lastReadAt) return 0;
		return slot.lastReadAt + this.intervalMs - now;
	}

	private slot(key: string): SecretSlot {
		let slot = this.slots.get(key);
		if (slot === undefined) {
			this.sweep();
			slot = { waiting: 0 };
			this.slots.set(key, slot);
		}
		return slot;
	}

	private begin(key: string, slot: SecretSlot, read: () => Promise<string>): SecretRead {
		const readAt = this.clock();
		slot.lastReadAt = readAt;
		const reading: SecretRead = { sequence: ++this.sequence, secret: read() };
		// Registered before any waiter's own handler, so every waiter resumes with the
		// cache already up to date and the next read free to begin.
		void reading.secret.then(
			(secret) => {
				slot.reading = undefined;
				slot.secret = secret;
				slot.readAt = readAt;
				slot.readSequence = reading.sequence;
				this.touch(key, slot);
			},
			() => {
				slot.reading = undefined;
				slot.secret = undefined;
				slot.readAt = undefined;
			},
		);
		return reading;
	}

	/** Map order is insertion order: a slot that read last moves to the end. */
	private touch(key: string, slot: SecretSlot): void {
		if (this.slots.get(key) !== slot) return;
		this.slots.delete(key);
		this.slots.set(key, slot);
	}

	/** Drops slots with nothing left to give, then the oldest, to stay under the bound. */
	private sweep(): void {
		const now = this.clock();
		for (const [key, slot] of this.slots) {
			const idle =
				slot.reading === undefined &&
				slot.waiting === 0 &&
				!this.isFresh(slot.readAt, now) &&
				this.untilNextRead(slot) <= 0;
			if (idle) this.slots.delete(key);
		}
		for (const oldest of this.slots.keys()) {
			if (this.slots.size < this.maxEntries) break;
			this.slots.delete(oldest);
		}
	}

	/** How many keys are kept, fresh or not yet swept; for tests. */
	get size(): number {
		return this.slots.size;
	}
}
