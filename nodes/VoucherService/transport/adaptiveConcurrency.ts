import { sleep } from 'n8n-workflow';

/**
 * Requests allowed in flight before the service has answered anything. Half the default
 * ceiling: a start of 4 cost a 100-row run a quarter of its time and drew no fewer 429s from a
 * rate-limited service than a start of 32 (bench:pacing, bench/RESULTS.md), and a campaign's
 * first look-ups go out 32 at once anyway.
 */
export const START_LIMIT = 16;

/*
 * Answers this much slower than the fastest seen, on average over about a round, are read
 * as the service queueing our requests. One slow answer is not: n8n's own work for other
 * items (expressions, GC) delays single answers on a busy host. The slack keeps a fast
 * network (a minimum of 1 ms) from counting the host's own queue as congestion.
 */
const LATENCY_FACTOR = 2;
const LATENCY_SLACK_MS = 100;

/** What one request's outcome says about the service's load. */
export interface Answer {
	/** 429, 5xx or no answer at all. */
	overloaded: boolean;
	/** The service asked for a pause (Retry-After). */
	retryAfterMs?: number;
}

/** A permit for one request; hand it back with release(). */
export interface Slot {
	readonly sequence: number;
	readonly startedAt: number;
	/** Requests in flight, this one included, when it was sent. */
	readonly inFlightAtStart: number;
}

/**
 * Paces the HTTP requests of one node execution, in the style of TCP congestion control:
 * the limit on requests in flight starts at START_LIMIT and doubles per round of clean,
 * fast answers until the first sign of overload (slow start), then grows by one per
 * round (additive increase). A 429, a 5xx, a network error or an answer much slower
 * than the fastest seen halves it at once (multiplicative decrease), at most once per
 * round, and a Retry-After holds every new request back until it has passed.
 * It never exceeds `maxLimit`, the user's Maximum Concurrency.
 */
export class AdaptiveConcurrency {
	private limit: number;

	private inFlight = 0;

	private readonly waiting: Array<(slot: Slot) => void> = [];

	private pausedUntil = 0;

	private wakeScheduled = false;

	private slowStart = true;

	/** Clean answers since the limit last grew, in additive increase. */
	private cleanAnswers = 0;

	private started = 0;

	/** Requests started up to this one were sent before the last decrease; their answers do not halve again. */
	private decreasedAfter = 0;

	private minLatencyMs = Infinity;

	/** Moving average of recent clean answers' latency, weighted so a round of answers dominates it. */
	private recentLatencyMs?: number;

	constructor(
		readonly maxLimit: number,
		private readonly now: () => number = Date.now,
	) {
		this.limit = Math.min(START_LIMIT, maxLimit);
	}

	/** The current limit on requests in flight. */
	get currentLimit(): number {
		return this.limit;
	}

	/**
	 * Waits for a free slot (and for any Retry-After pause to pass), first come, first served.
	 * A burst slot skips the ramp, not the ceiling: it waits only for a pause and for
	 * Maximum Concurrency. It is for a bounded window of reads the caller needs all at once. Its answers steer the limit like any other, so a window answered
	 * fast and clean lets what follows start near that pace instead of ramping up from
	 * START_LIMIT again.
	 */
	async acquire(burst = false): Promise<Slot> {
		if (burst && this.inFlight < this.maxLimit && this.now() >= this.pausedUntil) return this.take();
		if (this.waiting.length === 0 && this.canStart()) return this.take();
		const granted = new Promise<Slot>((resolve) => this.waiting.push(resolve));
		this.scheduleWake();
		return await granted;
	}

	release(slot: Slot, answer: Answer): void {
		this.inFlight--;
		const now = this.now();
		const latency = now - slot.startedAt;
		if (answer.retryAfterMs)
			this.pausedUntil = Math.max(this.pausedUntil, now + answer.retryAfterMs);
		if (!answer.overloaded) this.observeLatency(slot, latency);
		const slow =
			(this.recentLatencyMs ?? 0) > LATENCY_FACTOR * this.minLatencyMs + LATENCY_SLACK_MS;
		if (answer.overloaded || slow) {
			this.decrease(slot);
		} else if (this.inFlight + 1 >= this.limit || slot.inFlightAtStart >= this.limit) {
			// Only a limit that was in use has been tested; an idle one does not grow. A burst
			// request sent with more in flight than the limit tested it too, even when the
			// other answers of its window are already back.
			this.grow();
		}
		this.dispatch();
	}

	private observeLatency(slot: Slot, latency: number): void {
		this.minLatencyMs = Math.min(this.minLatencyMs, latency);
		// Requests sent before the last decrease tell nothing about the new limit.
		if (slot.sequence <= this.decreasedAfter) return;
		const weight = 1 / this.limit;
		this.recentLatencyMs =
			this.recentLatencyMs === undefined
				? latency
				: this.recentLatencyMs + weight * (latency - this.recentLatencyMs);
	}

	private grow(): void {
		if (!this.slowStart && ++this.cleanAnswers < this.limit) return;
		this.cleanAnswers = 0;
		this.limit = Math.min(this.maxLimit, this.limit + 1);
	}

	private decrease(slot: Slot): void {
		this.slowStart = false;
		if (slot.sequence <= this.decreasedAfter) return;
		this.limit = Math.max(1, Math.floor(this.limit / 2));
		this.cleanAnswers = 0;
		this.recentLatencyMs = undefined;
		this.decreasedAfter = this.started;
	}

	private canStart(): boolean {
		return this.inFlight < this.limit && this.now() >= this.pausedUntil;
	}

	private take(): Slot {
		this.inFlight++;
		return { sequence: ++this.started, startedAt: this.now(), inFlightAtStart: this.inFlight };
	}

	private dispatch(): void {
		while (this.waiting.length > 0 && this.canStart()) this.waiting.shift()!(this.take());
		this.scheduleWake();
	}

	/** Wakes the waiting requests when a pause ends: no answer may arrive to do it. */
	private scheduleWake(): void {
		const pause = this.pausedUntil - this.now();
		if (this.wakeScheduled || pause <= 0 || this.waiting.length === 0) return;
		this.wakeScheduled = true;
		void sleep(pause).then(() => {
			this.wakeScheduled = false;
			this.dispatch();
		});
	}
}
