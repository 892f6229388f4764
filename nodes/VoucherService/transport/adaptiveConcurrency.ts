import { sleep } from 'n8n-workflow';

import type { RateHints } from './rateHints';
import { RoutePaces } from './routePaces';
import type { RateTicket } from './routePaces';

/**
 * The slow start's first round after the opening request, which goes alone. Until a round at
 * Maximum Concurrency is answered (or the first sign of overload, or the service tells its
 * allowance), each round doubles and starts only when every answer of the last is in: a round
 * sent before the answers that end the last is refused whole by a limit they reached. So a
 * limit that tells nothing refuses, before the pacing knows of it, at most the round that finds
 * it (1 + 2 + 4 …), where a start of 16 had 15 of a one-a-second limit's first 17 refused. A
 * service without limit pays the rounds, a few round trips an execution (bench:pacing,
 * bench/RESULTS.md).
 */
export const START_LIMIT = 1;

/**
 * The slow start's limit once the service has told its allowance (Remaining, Reset): a start of
 * 4 cost a 100-row run a quarter of its time and drew no fewer 429s from a rate-limited service
 * than a start of 32 (bench:pacing, bench/RESULTS.md).
 */
const TOLD_START = 16;

/*
 * Answers this much slower than the fastest seen, on average over about a round, are read
 * as the service queueing our requests. One slow answer is not: n8n's own work for other
 * items (expressions, GC) delays single answers on a busy host. The slack keeps a fast
 * network (a minimum of 1 ms) from counting the host's own queue as congestion.
 */
const LATENCY_FACTOR = 2;
const LATENCY_SLACK_MS = 100;

/** The longest a waiting request sleeps before the pacing is looked at again. */
const WAKE_CHECK_MS = 1_000;

/** What one request's outcome says about the service's load. */
export interface Answer {
	/** 5xx or no answer at all. */
	overloaded: boolean;
	/** No answer at all (a reset, a timeout): unlike a 500, it does not show the request passed a limiter. */
	unanswered?: boolean;
	/**
	 * "Not now": HTTP 429, or a gateway's 502, 503 or 504. The rate pacing, not the limit on
	 * requests in flight, answers it.
	 */
	refused?: boolean;
	/** What the answer's headers said about the rate limit. */
	hints?: RateHints;
}

/** A permit for one request; hand it back with release(). */
export interface Slot {
	readonly sequence: number;
	readonly startedAt: number;
	/** Requests in flight, this one included, when it was sent. */
	readonly inFlightAtStart: number;
	/** The rate pacing's record of its send. */
	readonly rateTicket: RateTicket;
	/** The round of the slow start it was sent in; none for a burst slot or after the rounds. */
	readonly round?: number;
}

/**
 * Paces the HTTP requests of one node execution, in the style of TCP congestion control:
 * the limit on requests in flight starts at START_LIMIT and doubles per round of clean,
 * fast answers until the first sign of overload (slow start), then grows by one per
 * round (additive increase). A 5xx, a network error or an answer much slower than the
 * fastest seen halves it at once (multiplicative decrease), at most once per round.
 * It never exceeds `maxLimit`, the user's Maximum Concurrency. Every request also waits
 * for the RatePacing's time, which answers refusals: a rate limit is not a full service.
 */
export class AdaptiveConcurrency {
	private limit: number;

	private inFlight = 0;

	/** Requests waiting for a slot, first come first served; a burst one keeps its kind. */
	private readonly waiting: Array<{
		burst: boolean;
		route: string;
		grant: (slot: Slot) => void;
	}> = [];

	/** When the scheduled wake fires; Infinity when none is. */
	private wakeAt = Infinity;

	private answered = false;

	private slowStart = true;

	/** The current round of the slow start, and what it may still send; the opening one goes alone. */
	private round = 0;

	private roundLeft = 0;

	private roundAtMax = false;

	private roundsOver = false;

	/** Clean answers since the limit last grew, in additive increase. */
	private cleanAnswers = 0;

	private started = 0;

	/** Requests started up to this one were sent before the last decrease; their answers do not halve again. */
	private decreasedAfter = 0;

	private minLatencyMs = Infinity;

	/** Moving average of recent clean answers' latency, weighted so a round of answers dominates it. */
	private recentLatencyMs?: number;

	private rate: RoutePaces;

	constructor(
		readonly maxLimit: number,
		private readonly now: () => number = Date.now,
	) {
		this.limit = Math.min(START_LIMIT, maxLimit);
		this.rate = new RoutePaces(now);
	}

	/** Before the first request: paces shared with other executions (see sharedPaces.ts). */
	sharePaces(paces: RoutePaces): void {
		this.rate = paces;
	}

	/** The current limit on requests in flight. */
	get currentLimit(): number {
		return this.limit;
	}

	/**
	 * Waits for a free slot and for the rate pacing's time, first come, first served.
	 * A burst slot skips the ramp, not the ceiling nor the rate: it waits only for the rate
	 * pacing and for Maximum Concurrency. It is for a bounded window of reads the caller needs
	 * all at once. Its answers steer the limit like any other, so a window answered fast and
	 * clean lets what follows start near that pace instead of ramping up from START_LIMIT again.
	 * `route` (the HTTP method) names the rate pace it waits for (see RoutePaces): a request held
	 * by its route's pace does not hold back the requests of another route behind it.
	 */
	async acquire(burst = false, route = ''): Promise<Slot> {
		if (burst && this.canBurst(route)) return this.take(route, true);
		if (this.nextToGo() < 0 && this.canStart(route)) return this.take(route);
		const granted = new Promise<Slot>((grant) => this.waiting.push({ burst, route, grant }));
		this.scheduleWake();
		return await granted;
	}

	release(slot: Slot, answer: Answer): void {
		this.inFlight--;
		this.answered = true;
		const now = this.now();
		const latency = now - slot.startedAt;
		// A 500 was let through any limiter in front: for the rate it counts as admitted.
		const outcome = answer.refused ? 'refused' : answer.unanswered ? 'unanswered' : 'admitted';
		this.rate.onAnswer(slot.rateTicket, outcome, answer.hints);
		if (answer.refused) return this.dispatch();
		if (!answer.overloaded) this.observeLatency(slot, latency);
		const slow =
			(this.recentLatencyMs ?? 0) > LATENCY_FACTOR * this.minLatencyMs + LATENCY_SLACK_MS;
		if (answer.overloaded || slow) {
			this.decrease(slot);
		} else if (
			this.inFlight + 1 >= this.limit ||
			slot.inFlightAtStart >= this.limit ||
			(slot.round === this.round && this.roundLeft <= 0)
		) {
			// Only a limit that was in use has been tested; an idle one does not grow. A burst
			// request sent with more in flight than the limit tested it too, even when the
			// other answers of its window are already back; so did every answer of a full round.
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

	private canStart(route: string): boolean {
		return this.inFlight < this.limit && this.timeToSend(route) && this.roundOpen();
	}

	private canBurst(route: string): boolean {
		return this.inFlight < this.maxLimit && this.timeToSend(route);
	}

	/**
	 * The waiting request that may go now, or -1: the first whose route's pace lets it, if a slot
	 * does. A burst one that had to wait (behind the opening request, or the rate pacing) is
	 * still a burst when it goes.
	 */
	private nextToGo(): number {
		const due = new Map<string, boolean>();
		const first = this.waiting.findIndex(({ route }) => {
			if (!due.has(route)) due.set(route, this.timeToSend(route));
			return due.get(route);
		});
		if (first < 0) return -1;
		const { burst, route } = this.waiting[first];
		return (burst ? this.canBurst(route) : this.canStart(route)) ? first : -1;
	}

	/**
	 * In the slow start, until a round at Maximum Concurrency is answered, requests go in rounds;
	 * once the service has told how many it admits, the rate pacing keeps to that, and the
	 * slow start goes on from TOLD_START.
	 */
	private inRounds(): boolean {
		if (this.slowStart && !this.roundsOver && this.rate.told()) {
			this.roundsOver = true;
			this.limit = Math.max(this.limit, Math.min(TOLD_START, this.maxLimit));
		}
		return this.slowStart && !this.roundsOver;
	}

	/** A round starts once every answer of the last is in. */
	private roundOpen(): boolean {
		if (!this.inRounds()) return true;
		if (this.inFlight > 0) return this.roundLeft > 0;
		if (this.roundAtMax) {
			this.roundsOver = true;
			return true;
		}
		this.round++;
		this.roundLeft = this.limit;
		this.roundAtMax = this.limit >= this.maxLimit;
		return true;
	}

	/**
	 * The first request goes alone: its answer may tell a rate limit (Remaining/Reset) before
	 * a burst meets it. Costs one round trip per execution.
	 */
	private timeToSend(route: string): boolean {
		return (this.answered || this.inFlight === 0) && this.now() >= this.rate.nextSendAt(route);
	}

	private take(route: string, burst = false): Slot {
		this.inFlight++;
		const inRound = !burst && this.inRounds();
		if (inRound) this.roundLeft--;
		return {
			sequence: ++this.started,
			startedAt: this.now(),
			inFlightAtStart: this.inFlight,
			rateTicket: this.rate.onSend(route),
			round: inRound ? this.round : undefined,
		};
	}

	private dispatch(): void {
		for (let next = this.nextToGo(); next >= 0; next = this.nextToGo()) {
			const [{ burst, route, grant }] = this.waiting.splice(next, 1);
			grant(this.take(route, burst));
		}
		this.scheduleWake();
	}

	/**
	 * Wakes the waiting requests when the rate pacing's wait ends: no answer may arrive to do
	 * it. An answer can bring that time forward, so an earlier wake replaces a later one, and
	 * a wake looks again at least every WAKE_CHECK_MS, so none can be missed for long.
	 */
	private scheduleWake(): void {
		if (this.waiting.length === 0) return;
		const now = this.now();
		const routes = new Set(this.waiting.map(({ route }) => route));
		const due = Math.min(...[...routes].map((route) => this.rate.nextSendAt(route)));
		const at = Math.min(due, now + WAKE_CHECK_MS);
		if (at <= now) {
			// The wait ended after nextToGo() read the clock: nothing else may come to send, a
			// request in flight does (its release) when none can start yet.
			if (this.nextToGo() >= 0) this.dispatch();
			return;
		}
		if (at >= this.wakeAt) return;
		this.wakeAt = at;
		void sleep(Math.ceil(at - now)).then(() => {
			if (this.wakeAt === at) this.wakeAt = Infinity;
			this.dispatch();
		});
	}
}
