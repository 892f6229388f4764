import { parseRetryAfter } from './retry';

/** What one answer said about the service's rate limit. Times are on the pacer's clock. */
export interface RateHints {
	/** Retry-After, in ms from the answer. */
	retryAfterMs?: number;
	/** Requests the current window admits in all. */
	limit?: number;
	/** Requests the current window still admits. */
	remaining?: number;
	/** When the window's allowance is restored. */
	resetAt?: number;
	/** How long the window of `limit` lasts (a policy's `w`), in ms. */
	windowMs?: number;
}

/** A Reset above this is a moment (epoch seconds), below it a count of seconds left. */
const EPOCH_SECONDS = 1e9;
/** A Reset above this is epoch milliseconds. */
const EPOCH_MS = 1e12;
/** The longest wait a Reset may impose, like a Retry-After (see MAX_RETRY_AFTER_MS). */
const MAX_RESET_MS = 60_000;

const header = (headers: Record<string, unknown>, name: string) => {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
};

const count = (value: unknown) => {
	const n = Number(value);
	return value !== undefined && value !== '' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** Reset as epoch seconds, epoch ms or seconds left, told apart by size; kept within a minute ahead. */
function resetTime(value: unknown, now: number): number | undefined {
	const n = count(value);
	if (n === undefined) return undefined;
	const at = n > EPOCH_MS ? n : n > EPOCH_SECONDS ? n * 1000 : now + n * 1000;
	return Math.min(Math.max(at, now), now + MAX_RESET_MS);
}

/** One member of a structured header (RFC 8941): a dictionary's `key=value`, or a list's value. */
interface Member {
	key?: string;
	value: string;
	params: Record<string, string>;
}

const unquote = (text: string) => text.trim().replace(/^"(.*)"$/, '$1');

/** A structured header read leniently: commas outside quotes part members, semicolons parameters. */
function members(value: unknown): Member[] {
	if (value === undefined || value === null) return [];
	return (String(value).match(/(?:"[^"]*"|[^,])+/g) ?? []).map((member) => {
		const [item = '', ...params] = member.match(/(?:"[^"]*"|[^;])+/g) ?? [];
		const pair = /^\s*([a-z][\w-]*)\s*=(.*)$/i.exec(item);
		return {
			key: pair?.[1].toLowerCase(),
			value: unquote(pair ? pair[2] : item),
			params: Object.fromEntries(
				params.map((param) => {
					const [key, val = ''] = param.split('=');
					return [key.trim().toLowerCase(), unquote(val)];
				}),
			),
		};
	});
}

/**
 * The one-header `RateLimit`: the older draft's dictionary `limit=10, remaining=3, reset=4`, or
 * the current draft's list `"default";r=0;t=5`, one member per policy, of which the one with the
 * fewest requests left binds.
 */
function rateLimitHeader(value: unknown) {
	const all = members(value);
	const dictionary = new Map(all.flatMap(({ key, value }) => (key ? [[key, value]] : [])));
	if (dictionary.size > 0)
		return {
			limit: dictionary.get('limit'),
			remaining: dictionary.get('remaining'),
			reset: dictionary.get('reset'),
		};
	const left = (member: Member) => count(member.params.r) ?? Infinity;
	const binding = all.reduce<Member | undefined>(
		(fewest, member) => (fewest && left(fewest) <= left(member) ? fewest : member),
		undefined,
	);
	return { remaining: binding?.params.r, reset: binding?.params.t, policy: binding?.value };
}

/**
 * The quota policy the limit is under, from `RateLimit-Policy` (or the older `RateLimit-Limit`
 * list): the older draft's `10;w=1`, or the current draft's `"default";q=100;w=60`. The one the
 * `RateLimit` header names, else one with the limit as its quota, else any; one with a window first.
 */
function policyOf(values: unknown[], name?: string, limit?: number) {
	const all = values.flatMap(members).map(({ value, params }) => {
		const older = count(value) !== undefined;
		return { name: older ? undefined : value, quota: older ? value : params.q, window: params.w };
	});
	const named = all.filter((policy) => name !== undefined && policy.name === name);
	const fits = named.length
		? named
		: all.filter((policy) => limit === undefined || count(policy.quota) === limit);
	return fits.find((policy) => count(policy.window)) ?? fits[0];
}

/**
 * The rate-limit hints of an answer's headers (lower-case names): Retry-After (seconds or
 * HTTP date), `X-RateLimit-Limit/Remaining/Reset`, `RateLimit-Limit/Remaining/Reset`, and the
 * one-header `RateLimit` with `RateLimit-Policy`, in the older and in the current draft's form.
 */
export function readRateHints(
	headers: Record<string, unknown> | undefined,
	now = Date.now(),
): RateHints {
	if (!headers) return {};
	const first = (name: string) => members(header(headers, name))[0]?.value;
	const one = rateLimitHeader(header(headers, 'ratelimit'));
	const limit = count(first('x-ratelimit-limit') ?? first('ratelimit-limit') ?? one.limit);
	const policy = policyOf(
		[header(headers, 'ratelimit-policy'), header(headers, 'ratelimit-limit')],
		one.policy,
		limit,
	);
	const windowSeconds = count(policy?.window);
	const hints: RateHints = {
		retryAfterMs: parseRetryAfter(header(headers, 'retry-after'), now),
		limit: limit ?? count(policy?.quota),
		remaining: count(
			first('x-ratelimit-remaining') ?? first('ratelimit-remaining') ?? one.remaining,
		),
		resetAt: resetTime(first('x-ratelimit-reset') ?? first('ratelimit-reset') ?? one.reset, now),
		windowMs: windowSeconds ? windowSeconds * 1000 : undefined,
	};
	for (const key of Object.keys(hints) as Array<keyof RateHints>)
		if (hints[key] === undefined) delete hints[key];
	return hints;
}

export type Outcome = 'admitted' | 'refused' | 'failed';

/*
 * After a refusal without any hint, single probes find when admissions resume. The first waits,
 * from the send of the last admitted request, one request's share of a second of what was
 * admitted at once (a burst is commonly about a second of the rate: a token bucket's one second,
 * nginx's burst), and no less than MIN_PROBE_MS; each refused probe waits PROBE_GROWTH times
 * longer; a later refusal starts from the wait that found admissions the last time. A smaller
 * growth finds when admissions resume more closely (the period is learnt from it) and costs
 * more refused probes: 1.6 finds the end of a one-minute window with 12.
 */
const BURST_GUESS_MS = 1_000;
const MIN_PROBE_MS = 50;
const PROBE_GROWTH = 1.6;
const MAX_PROBE_MS = 60_000;

/*
 * Without hints, a pace that was sent in full and admitted this many cycles in a row grows by
 * GROWTH (more per cycle, or, below GROW_BUDGET_FROM per cycle, shorter cycles) to find a limit
 * above it. A grown pace that is refused goes back to the pace before, and the next growth
 * waits twice as many cycles: a limit the pace already meets costs a refusal now and then,
 * fewer the longer the run.
 */
const CLEAN_CYCLES_TO_GROW = 6;
const GROWTH = 1.125;
const GROW_BUDGET_FROM = 4;

/*
 * A learnt period is waited this much longer: a cycle a few ms early (our clock, the network)
 * is refused, and a Retry-After in whole seconds then costs up to a second.
 */
const PERIOD_MARGIN = 1.02;

/*
 * The longest the pacing holds requests back, like the longest Retry-After or Reset honoured.
 * A longer wait comes from a period learnt from a slow cycle (it is only relearnt on a
 * refusal, so a too-long one could keep every later cycle slow) or from the clock being set
 * back; either would keep an execution idle for as long, so it is cut to this.
 */
const MAX_WAIT_MS = 60_000;

/*
 * A refusal is learnt from once this many requests sent after it are refused too (or all of
 * them, if fewer are in flight); one admitted shows it sporadic. Two refusals in a row come
 * at random once in a hundred at a tenth refused, three once in a thousand.
 */
const REFUSALS_TO_CONFIRM = 3;

/*
 * Sporadic refusals at a learnt pace that make it forgotten: at a pace a limit keeps to, no
 * request is refused while one sent after it is admitted.
 */
const SPORADIC_TO_FORGET = 3;

/*
 * The rate a service admits is measured over this many periods of the pace, from the sends of
 * the last ADMISSIONS_KEPT admitted requests.
 */
const RATE_SPAN_PERIODS = 2;
const ADMISSIONS_KEPT = 256;

/** What the pacing keeps to: `budget` requests per cycle of `periodMs` (unknown while learnt). */
interface Pace {
	budget: number;
	periodMs?: number;
}

/** A refusal not yet told from a sporadic one. */
interface Unconfirmed {
	sequence: number;
	sentAt: number;
	/** When it was answered. */
	at: number;
	hints: RateHints;
	/** Requests sent after it and refused (or failed) too. */
	refusedAfter: number;
	/** None sent after it was out: the next one tells. */
	lone: boolean;
}

/**
 * Paces one node execution's requests by time, beside AdaptiveConcurrency's limit on requests
 * in flight. Until the service refuses or tells a limit it costs nothing. Then it keeps to
 * what the service admits, learnt from what it says, else from when it admits:
 * - `Remaining`/`Reset` headers: no more than Remaining are sent before Reset (less those
 *   sent since the answer that told it), then one, whose answer tells the next window;
 * - otherwise cycles. A cycle starts where admissions resume after a refusal: when
 *   Retry-After has passed, or, with no hint, when a single probe is admitted (probes wait
 *   longer each time they are refused). The requests admitted in a cycle before a refusal are
 *   the budget, the time from one cycle's start to the next the period: a fixed window, or a
 *   token bucket's refill, or one request per 1/rate behind a leaky bucket with a burst (nginx).
 *   Each cycle sends its budget at once, then waits out the period; while the period is not
 *   known yet, single probes find it. After a probe's admission the budget is not known to be
 *   there (a bucket may hold one request again, a window all): the cycle's sends double per
 *   admission instead of going at once.
 * A refusal while a request sent after it is still unanswered waits for that answer: admitted,
 * the refusal was sporadic (not about the rate) and is forgotten; refused, it is learnt from.
 * Every request, a burst one too, waits for this pace.
 */
export class RatePacing {
	private sent = 0;

	private readonly unanswered = new Set<number>();

	private pausedUntil = 0;

	/** From headers: what may still be sent before allowanceResetAt. */
	private allowance?: number;

	private allowanceResetAt = 0;

	private allowanceSequence = 0;

	private cycle?: Pace;

	/**
	 * Where the current cycle started: a resumption, or the first send (which tells no period).
	 * A probe's admission shows admissions resumed after the last refused send, `since`.
	 */
	private cycleStart?: { at: number; resumed: boolean; since?: number };

	/** The first sequence of the current cycle: answers to older requests count for none. */
	private cycleFirstSequence = 1;

	private sentInCycle = 0;

	private admittedInCycle = 0;

	private refusedInCycle = false;

	/** The cycle began at a probe's admission: its sends double per admission. */
	private ramping = false;

	private cleanCycles = 0;

	private cyclesToGrow = CLEAN_CYCLES_TO_GROW;

	/** The pace before the last growth, while the grown one is on trial. */
	private beforeGrowth?: Pace;

	/** Refused with no hint: the next admission is a resumption. */
	private awaitingResumption = false;

	/** Probes wait from here: the send of the last admitted request. */
	private probeAnchor = 0;

	private probeMs = MIN_PROBE_MS;

	/** The first probe's wait when it was guessed from the burst (the first refusal without hints). */
	private guessedProbeMs?: number;

	/** The probe in flight waited the guess. */
	private probingAtGuess = false;

	/** The wait after which the last probe was admitted. */
	private resumedAfterMs?: number;

	/** The single probe for a resumption, while no other request may go (at most MAX_PROBE_MS). */
	private probeInFlight?: { sequence: number; sentAt: number };

	private unconfirmed?: Unconfirmed;

	private lastAdmittedSentAt?: number;

	private lastPacedRefusalSentAt?: number;

	private lastRefusedSentAt?: number;

	/** When the last ADMISSIONS_KEPT admitted requests were sent. */
	private readonly admissions: number[] = [];

	private retryAfterSeen = false;

	/** Sporadic refusals at the learnt pace since the last that was not. */
	private sporadicAtPace = 0;

	constructor(private readonly now: () => number = Date.now) {}

	/** Whether the service has told how many requests its window still admits. */
	told(): boolean {
		return this.allowance !== undefined;
	}

	/** The earliest time the next request may be sent. */
	nextSendAt(): number {
		const at = this.waitEnd();
		const latest = this.now() + MAX_WAIT_MS;
		if (at <= latest) return at;
		this.shiftBack(at - latest);
		return latest;
	}

	private waitEnd(): number {
		let at = this.pausedUntil;
		// Waiting for an answer: a probe's, the one that tells a refusal sporadic, or the ramp's.
		if (this.probeInFlight) at = Math.max(at, this.probeInFlight.sentAt + MAX_PROBE_MS);
		// A refusal being told apart: its later requests' answers; with none out, one goes to tell.
		if (this.unconfirmed && this.sentAfter(this.unconfirmed.sequence))
			at = Math.max(at, this.unconfirmed.at + MAX_PROBE_MS);
		if (this.sentInCycle >= this.rampCap() && this.cycleInFlight())
			at = Math.max(at, this.cycleStart!.at + MAX_PROBE_MS);
		if (this.allowance !== undefined && this.allowance <= 0)
			at = Math.max(at, this.allowanceResetAt);
		const { periodMs } = this.cycle ?? {};
		if (periodMs !== undefined && this.cycleStart && this.sentInCycle >= this.cycle!.budget)
			at = Math.max(at, this.cycleStart.at + periodMs * PERIOD_MARGIN);
		return at;
	}

	/**
	 * What a cycle may send before more of its answers are in, where what it admits is not known:
	 * after a probe's admission, or beyond its budget while the period is not known. One, then
	 * twice what was admitted beyond what is known.
	 */
	private rampCap(): number {
		if (!this.cycle || (!this.ramping && this.cycle.periodMs !== undefined)) return Infinity;
		const known = this.ramping ? 0 : this.cycle.budget;
		return known + Math.max(1, 2 * (this.admittedInCycle - known));
	}

	private cycleInFlight(): boolean {
		for (const sequence of this.unanswered) if (sequence >= this.cycleFirstSequence) return true;
		return false;
	}

	/** Brings every time the wait runs to earlier by `ms`, so the wait keeps its shape. */
	private shiftBack(ms: number): void {
		this.pausedUntil -= ms;
		this.allowanceResetAt -= ms;
		if (this.probeInFlight) this.probeInFlight.sentAt -= ms;
		if (this.unconfirmed) this.unconfirmed.at -= ms;
		if (this.cycleStart) this.cycleStart.at -= ms;
	}

	/** Records a send; returns its sequence, to hand back with the answer. */
	onSend(): number {
		const now = this.now();
		if (this.allowance !== undefined) {
			if (now >= this.allowanceResetAt) {
				// A new window: its first answer tells what it holds (a token bucket's Reset is when
				// it is full again, not what it holds after the requests sent meanwhile) and when it
				// ends; until then this request alone, and at most the longest wait.
				this.allowance = 1;
				this.allowanceResetAt = now + MAX_RESET_MS;
			}
			this.allowance--;
		}
		this.cycleStart ??= { at: now, resumed: false };
		const { periodMs } = this.cycle ?? {};
		// While probing, the cycle waits for the resumption, which starts the next.
		const due = now >= this.cycleStart.at + (periodMs ?? Infinity) * PERIOD_MARGIN;
		if (due && !this.awaitingResumption) this.nextCycle(now);
		this.sentInCycle++;
		const sequence = ++this.sent;
		this.unanswered.add(sequence);
		if (this.awaitingResumption) this.probeInFlight = { sequence, sentAt: now };
		return sequence;
	}

	/**
	 * An answer with the hints its headers carried: `refused` is "not now" (HTTP 429, or a
	 * gateway's 502, 503 or 504), `failed` no answer at all (which tells nothing about the rate),
	 * `admitted` any other, a 500 too: it passed whatever limits the rate.
	 */
	onAnswer(sequence: number, sentAt: number, outcome: Outcome, hints: RateHints = {}): void {
		const now = this.now();
		this.unanswered.delete(sequence);
		if (this.probeInFlight?.sequence === sequence) this.probeInFlight = undefined;
		this.readWindow(sequence, hints);
		const pending = this.unconfirmed;
		if (pending && sequence > pending.sequence) {
			// Answers to requests sent after a refusal tell what it was: one admitted, sporadic;
			// refusals, a limit. A failure (a 500, a reset) tells neither: the next answer does.
			if (outcome === 'refused') pending.refusedAfter++;
			const told =
				outcome === 'admitted' ||
				pending.refusedAfter >= REFUSALS_TO_CONFIRM ||
				(pending.refusedAfter > 0 && !this.sentAfter(pending.sequence));
			if (told) this.unconfirmed = undefined;
			if (outcome === 'admitted') this.sporadic(now, pending.lone);
			else if (told) this.refused(pending, pending.at);
		}
		if (outcome === 'failed') return;
		if (outcome === 'admitted') return this.admitted(sequence, sentAt);
		// Refusals while one is being told apart belong to it.
		if (this.unconfirmed || pending) return;
		// Told apart by the requests sent after it that are out, or, for a Retry-After, by the next
		// one, sent without waiting it out: the wait would cost every request of a service that
		// refuses some at random (a refusal without one is probed for anyway).
		const lone = !this.sentAfter(sequence);
		const tell = !lone || hints.retryAfterMs !== undefined;
		if (tell && sequence >= this.cycleFirstSequence && !this.awaitingResumption) {
			this.unconfirmed = { sequence, sentAt, at: now, hints, refusedAfter: 0, lone };
			return;
		}
		this.refused({ sequence, sentAt, hints }, now);
	}

	/** Whether a request sent after this one is still unanswered. */
	private sentAfter(sequence: number): boolean {
		for (const other of this.unanswered) if (other > sequence) return true;
		return false;
	}

	private admitted(sequence: number, sentAt: number): void {
		this.admissions.push(sentAt);
		if (this.admissions.length > ADMISSIONS_KEPT) this.admissions.shift();
		this.lastAdmittedSentAt = Math.max(this.lastAdmittedSentAt ?? sentAt, sentAt);
		if (sequence < this.cycleFirstSequence) return;
		if (this.awaitingResumption) this.resume(sequence, sentAt);
		else this.admittedInCycle++;
	}

	/**
	 * A refusal that was sporadic is forgotten. A learnt pace at which they come was itself learnt
	 * from ones that looked like a limit: it is forgotten too, at once if the next request was
	 * admitted (a limit that refuses at the pace it admits refuses the next one too), else after
	 * SPORADIC_TO_FORGET. The limit on requests in flight, which did not grow at that pace, keeps
	 * what follows from bursting.
	 */
	private sporadic(now: number, lone: boolean): void {
		if (!this.cycle || (!lone && ++this.sporadicAtPace < SPORADIC_TO_FORGET)) return;
		this.cycle = undefined;
		this.beforeGrowth = undefined;
		this.startCycle(now, false);
	}

	/** A refusal told from a sporadic one, as of `now`, when it came. */
	private refused(
		{
			sequence,
			sentAt,
			hints: { retryAfterMs },
		}: Pick<Unconfirmed, 'sequence' | 'sentAt' | 'hints'>,
		now: number,
	): void {
		const ofThisCycle = sequence >= this.cycleFirstSequence;
		this.sporadicAtPace = 0;
		this.lastRefusedSentAt = Math.max(this.lastRefusedSentAt ?? sentAt, sentAt);
		if (retryAfterMs !== undefined) {
			this.retryAfterSeen = true;
			// Refused again right after the wait it named: its Retry-After is too short to trust.
			const again = ofThisCycle && this.admittedInCycle === 0 && this.cycleStart?.resumed;
			const wait = again ? Math.max(retryAfterMs, this.nextProbeWait()) : retryAfterMs;
			this.pause(now + wait);
			if (!ofThisCycle || this.allowance !== undefined) return;
			// A cycle that admitted nothing tells no rate: a first request refused at random, say.
			if (this.admittedInCycle > 0) this.endCycle(now + wait);
			else this.startCycle(now + wait, true);
		} else if (this.allowance !== undefined && this.allowanceResetAt > now) {
			this.allowance = 0;
		} else if (ofThisCycle) {
			this.refusedWithoutHint(now, sentAt);
		}
	}

	private pause(until: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, until);
	}

	/**
	 * The cycle ends with a refusal; the next starts at `next` (the service's word, or a
	 * probe's admission). Its budget is what it admitted; a cycle that started at a resumption
	 * also measures the period.
	 */
	private endCycle(
		next: number,
		nextSequence = this.sent + 1,
		lastAdmission = this.lastAdmittedSentAt,
	): void {
		const budget = this.admittedInCycle || this.cycle?.budget || 1;
		const start = this.cycleStart;
		// One request a cycle: one came back in the time from the last admission to this one.
		const oneBack = budget === 1 && lastAdmission !== undefined ? next - lastAdmission : undefined;
		// From the earliest the last resumption may have been: a period too short sends a
		// window's budget before the window ends, to be refused whole.
		const periodMs = start?.resumed
			? Math.min(MAX_WAIT_MS, Math.max(1, next - (start.since ?? start.at)))
			: (this.cycle?.periodMs ?? oneBack);
		this.cycle = { budget, periodMs };
		this.startCycle(next, true);
		this.cycleFirstSequence = nextSequence;
		this.cleanCycles = 0;
	}

	private refusedWithoutHint(now: number, sentAt: number): void {
		if (this.beforeGrowth) {
			// The grown pace is refused: back to the one before, which was admitted.
			this.cycle = this.beforeGrowth;
			this.beforeGrowth = undefined;
			this.cyclesToGrow *= 2;
			this.endBudget();
			return;
		}
		const { periodMs } = this.cycle ?? {};
		if (this.ramping && this.admittedInCycle === 1 && periodMs === undefined) {
			// The probe alone was admitted: one request comes back in the time it waited.
			this.cycle = { budget: 1, periodMs: this.resumedAfterMs };
			this.endBudget();
			return;
		}
		if (periodMs !== undefined) this.keepToAdmittedRate(sentAt, periodMs);
		if (periodMs !== undefined && this.admittedInCycle > 0) {
			// Admitted, then refused: the budget was too large.
			this.cycle!.budget = this.admittedInCycle;
			this.endBudget();
			return;
		}
		if (!this.awaitingResumption) {
			this.awaitingResumption = true;
			this.ramping = false;
			this.probeAnchor = this.lastAdmittedSentAt ?? now;
			const guess = Math.max(MIN_PROBE_MS, BURST_GUESS_MS / Math.max(1, this.admittedInCycle));
			this.probeMs = this.resumedAfterMs ?? guess;
			this.guessedProbeMs = this.resumedAfterMs === undefined ? guess : undefined;
			this.cycleFirstSequence = this.sent + 1;
		}
		this.pause(Math.max(now, this.probeAnchor + this.nextProbeWait()));
	}

	/**
	 * Refused at a learnt pace: it sends more than the service admits (a bucket's store of
	 * requests, drawn on by a pace that grew, is spent, say). The period is made long enough
	 * for the rate admitted since the last such refusal, when the pace was refused at both ends,
	 * else over the last RATE_SPAN_PERIODS periods (at least a second). Times are sends.
	 */
	private keepToAdmittedRate(refusedSentAt: number, periodMs: number): void {
		const span = Math.max(1_000, RATE_SPAN_PERIODS * periodMs);
		const last = this.lastPacedRefusalSentAt;
		this.lastPacedRefusalSentAt = refusedSentAt;
		const from = last !== undefined && last > refusedSentAt - span ? last : refusedSentAt - span;
		const admitted = this.admissions.filter((at) => at > from && at < refusedSentAt).length;
		if (admitted === 0) return;
		const perMs = admitted / (refusedSentAt - from);
		this.cycle!.periodMs = Math.min(MAX_WAIT_MS, Math.max(periodMs, this.cycle!.budget / perMs));
	}

	/** This cycle sends no more. */
	private endBudget(): void {
		this.sentInCycle = Math.max(this.sentInCycle, this.cycle!.budget);
		this.refusedInCycle = true;
		this.ramping = false;
		this.cleanCycles = 0;
	}

	private nextProbeWait(): number {
		this.probingAtGuess = this.probeMs === this.guessedProbeMs;
		const wait = this.probeMs;
		this.probeMs = Math.min(MAX_PROBE_MS, this.probeMs * PROBE_GROWTH);
		return wait;
	}

	/** A probe was admitted after refusals: a new cycle starts where it was sent. */
	private resume(sequence: number, sentAt: number): void {
		this.awaitingResumption = false;
		this.resumedAfterMs = Math.max(MIN_PROBE_MS, sentAt - this.probeAnchor);
		const { periodMs } = this.cycle ?? {};
		const burst = this.admittedInCycle;
		this.endCycle(sentAt, sequence, this.probeAnchor);
		this.cycleStart!.since = this.lastRefusedSentAt;
		this.sentInCycle = this.sent - sequence + 1;
		this.admittedInCycle = 1;
		if (this.probingAtGuess && periodMs === undefined) {
			// Admitted at the guessed wait: a bucket that gives back requests one by one (a window
			// gives back all at its end, which the guess, a share of a second, rarely
			// reaches). Its rate is taken as the burst per second, as the guess was.
			const budget = Math.max(1, Math.floor((this.resumedAfterMs * burst) / BURST_GUESS_MS));
			this.cycle = { budget, periodMs: this.resumedAfterMs };
		} else {
			this.ramping = true;
		}
	}

	private nextCycle(now: number): void {
		const cycle = this.cycle!;
		const clean =
			!this.refusedInCycle &&
			this.sentInCycle >= cycle.budget &&
			this.admittedInCycle >= cycle.budget;
		this.cleanCycles = clean ? this.cleanCycles + 1 : 0;
		if (!this.retryAfterSeen && this.cleanCycles >= this.cyclesToGrow) this.grow(cycle);
		this.startCycle(now, true);
	}

	private grow(cycle: Pace): void {
		this.beforeGrowth = { ...cycle };
		if (cycle.budget >= GROW_BUDGET_FROM) cycle.budget = Math.ceil(cycle.budget * GROWTH);
		else cycle.periodMs = cycle.periodMs! / GROWTH;
		this.cleanCycles = 0;
	}

	private startCycle(at: number, resumed: boolean): void {
		this.cycleStart = { at, resumed };
		this.cycleFirstSequence = this.sent + 1;
		this.sentInCycle = 0;
		this.admittedInCycle = 0;
		this.refusedInCycle = false;
		this.ramping = false;
	}

	/**
	 * Remaining/Reset as of when this request was processed: requests sent after it were not
	 * yet counted, so they come off. The newest request's figures count; a Reset in whole
	 * seconds is rounded up, so of two for one window (within a second) the earlier is nearer.
	 */
	private readWindow(sequence: number, { remaining, resetAt }: RateHints): void {
		if (remaining === undefined || resetAt === undefined || sequence < this.allowanceSequence)
			return;
		this.allowanceSequence = sequence;
		this.allowance = remaining - (this.sent - sequence);
		this.allowanceResetAt =
			Math.abs(resetAt - this.allowanceResetAt) < 1000
				? Math.min(resetAt, this.allowanceResetAt)
				: resetAt;
	}
}
