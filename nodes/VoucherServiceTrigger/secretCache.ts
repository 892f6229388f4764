/*
 * The webhook secret, kept in this process's memory for a short while, so that a delivery
 * does not make n8n read the credential from its database, decrypt it and take a second
 * expression isolate for it (docs/trigger.md). Two rules keep a cache from changing what
 * the service gets back:
 * - a secret is used for at most SECRET_LIFETIME_MS after the read that produced it began,
 *   whatever happens in between, so a rotated-out secret is accepted for at most that long;
 * - the caller reads the credential again before it answers 401 to a signature that does
 *   not match a cached secret, so a rotated-in secret is never refused.
 * The secret is kept here and nowhere else: never in static data, items or logs.
 */

/** Rotation anchors: Revolut keeps an old webhook secret valid up to 7 days, Gemini 24 hours. */
export const SECRET_LIFETIME_MS = 60 * 1000;

/** One entry per workflow and credential in this process; far above any real instance. */
export const MAX_CACHED_SECRETS = 500;

/** Milliseconds, as Date.now() counts them. */
export type Clock = () => number;

interface Entry {
	secret: string;
	/** When the read that produced it began: its age is never underestimated. */
	readAt: number;
}

export class SecretCache {
	private readonly entries = new Map<string, Entry>();

	constructor(
		private readonly clock: Clock = () => Date.now(),
		private readonly lifetimeMs = SECRET_LIFETIME_MS,
		private readonly maxEntries = MAX_CACHED_SECRETS,
	) {}

	private isFresh(entry: Entry, now: number): boolean {
		const age = now - entry.readAt;
		// A clock that went back makes the age negative: treat it as expired, not as new.
		return age >= 0 && age < this.lifetimeMs;
	}

	/** The secret for `key` if it was read less than the lifetime ago; undefined otherwise. */
	get(key: string): string | undefined {
		const entry = this.entries.get(key);
		if (entry === undefined) return undefined;
		if (this.isFresh(entry, this.clock())) return entry.secret;
		this.entries.delete(key);
		return undefined;
	}

	/**
	 * Reads the secret with `read` and keeps it for `key`. A failed read forgets what was
	 * kept for `key`: a credential that cannot be read now is not vouched for by an older read.
	 */
	async refresh(key: string, read: () => Promise<string>): Promise<string> {
		const readAt = this.clock();
		const reading = read();
		// Registered before the caller awaits, so the cache is up to date when it resumes.
		void reading.then(
			(secret) => this.keep(key, { secret, readAt }),
			() => this.entries.delete(key),
		);
		return await reading;
	}

	private keep(key: string, entry: Entry): void {
		const current = this.entries.get(key);
		// Of two reads in flight at once, the one that began later may finish first: keep it.
		if (current !== undefined && current.readAt > entry.readAt) return;
		this.entries.delete(key);
		const now = this.clock();
		for (const [other, kept] of this.entries) {
			if (!this.isFresh(kept, now)) this.entries.delete(other);
		}
		// Map order is insertion order, and every entry is re-inserted when kept: the oldest go.
		for (const oldest of this.entries.keys()) {
			if (this.entries.size < this.maxEntries) break;
			this.entries.delete(oldest);
		}
		this.entries.set(key, entry);
	}

	/** How many secrets are kept, fresh or not yet swept; for tests. */
	get size(): number {
		return this.entries.size;
	}
}
