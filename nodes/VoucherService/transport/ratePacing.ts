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
 * How long after a refusal without any hint the first single probe goes out; each refused
 * probe waits PROBE_GROWTH times longer. A smaller growth finds when admissions resume more
 * closely (the period is learnt from it) and costs more refused probes: 1.6 finds the end of
 * a one-minute window with 12, within about a third of the wait.
 */
const FIRST_PROBE_MS = 200;
const PROBE_GROWTH = 1.6;
const MAX_PROBE_MS = 60_000;

/*
 * Without hints, a budget that was sent in full and admitted grows by one after this many
 * such cycles in a row. Growing sooner draws more refusals at the top; a limit above the
 * budget is found a little later instead.
 */
const CLEAN_CYCLES_TO_GROW = 6;

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

/**
 * Paces one node execution's requests by time, beside AdaptiveConcurrency's limit on requests
 * in flight. Until the service refuses or tells a limit it costs nothing. Then it keeps to
 * what the service admits, learnt from what it says, else from when it admits:
 * - `Remaining`/`Reset` headers: no more than Remaining are sent before Reset (less those
 *   sent since the answer that told it), then the window's Limit;
 * - otherwise cycles. A cycle starts where admissions resume after a refusal: when
 *   Retry-After has passed, or, with no hint, when a single probe is admitted (probes wait
 *   longer each time they are refused). The requests admitted in a cycle before a
 *   refusal are the budget, the time from one cycle's start to the next the period. Each
 *   cycle sends its budget at once, as a fixed window or a full token bucket admits it, then
 *   waits out the period; while the period is not known yet, single probes find it.
 * Every request, a burst one too, waits for this pace.
 */
export class RatePacing {
	private sent = 0;

	private pausedUntil = 0;

	/** From headers: what may still be sent before allowanceResetAt. */
	private allowance?: number;

	private allowanceResetAt = 0;

	private windowLimit?: number;

	private allowanceSequence = 0;

	private cycle?: { budget: number; periodMs?: number };

	/** Where the current cycle started: a resumption, or the first send (which tells no period). */
	private cycleStart?: { at: number; resumed: boolean };

	/** The first sequence of the current cycle: answers to older requests count for none. */
	private cycleFirstSequence = 1;

	private sentInCycle = 0;

	private admittedInCycle = 0;

	private refusedInCycle = false;

	private cleanCycles = 0;

	/** Refused with no hint: the next admission is a resumption. */
	private awaitingResumption = false;

	private probeMs = FIRST_PROBE_MS;

	/** The single probe in flight, while no other request may go (at most MAX_PROBE_MS). */
	private probeInFlight?: { sequence: number; sentAt: number };

	private retryAfterSeen = false;

	private refusingSince?: number;

	constructor(private readonly now: () => number = Date.now) {}

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
		if (this.probeInFlight) at = Math.max(at, this.probeInFlight.sentAt + MAX_PROBE_MS);
		if (this.allowance !== undefined && this.allowance <= 0)
			at = Math.max(at, this.allowanceResetAt);
		const { periodMs } = this.cycle ?? {};
		if (periodMs !== undefined && this.cycleStart && this.sentInCycle >= this.cycle!.budget)
			at = Math.max(at, this.cycleStart.at + periodMs * PERIOD_MARGIN);
		return at;
	}

	/** Brings every time the wait runs to earlier by `ms`, so the wait keeps its shape. */
	private shiftBack(ms: number): void {
		this.pausedUntil -= ms;
		this.allowanceResetAt -= ms;
		if (this.probeInFlight) this.probeInFlight.sentAt -= ms;
		if (this.cycleStart) this.cycleStart.at -= ms;
	}

	/** Records a send; returns its sequence, to hand back with the answer. */
	onSend(): number {
		const now = this.now();
		if (this.allowance !== undefined) {
			if (now >= this.allowanceResetAt && this.windowLimit !== undefined) {
				// A new window, whose end its first answer tells; until then at most the longest wait.
				this.allowance = this.windowLimit;
				this.allowanceResetAt = now + MAX_RESET_MS;
			}
			this.allowance--;
		}
		this.cycleStart ??= { at: now, resumed: false };
		const { periodMs } = this.cycle ?? {};
		if (periodMs !== undefined && now >= this.cycleStart.at + periodMs * PERIOD_MARGIN)
			this.nextCycle(now);
		this.sentInCycle++;
		const sequence = ++this.sent;
		// Probing: for a resumption, or for the period once the budget is out.
		const periodUnknown =
			this.cycle && periodMs === undefined && this.sentInCycle > this.cycle.budget;
		if (this.awaitingResumption || periodUnknown) this.probeInFlight = { sequence, sentAt: now };
		return sequence;
	}

	/**
	 * An answer with the hints its headers carried: `refused` is HTTP 429, `failed` a 5xx or
	 * no answer (which tells nothing about the rate), `admitted` any other.
	 */
	onAnswer(sequence: number, sentAt: number, outcome: Outcome, hints: RateHints = {}): void {
		const now = this.now();
		if (this.probeInFlight?.sequence === sequence) this.probeInFlight = undefined;
		this.readWindow(sequence, hints);
		if (outcome === 'failed') return;
		const ofThisCycle = sequence >= this.cycleFirstSequence;
		if (outcome === 'admitted') {
			this.refusingSince = undefined;
			this.probeMs = FIRST_PROBE_MS;
			if (this.awaitingResumption && ofThisCycle) this.resume(sequence, sentAt);
			else if (ofThisCycle) this.admittedInCycle++;
			return;
		}
		this.refusingSince ??= now;
		const { retryAfterMs } = hints;
		if (retryAfterMs !== undefined) {
			this.retryAfterSeen = true;
			// Refused again right after the wait it named: its Retry-After is too short to trust.
			const again = ofThisCycle && this.admittedInCycle === 0 && this.cycleStart?.resumed;
			const wait = again ? Math.max(retryAfterMs, this.nextProbeWait()) : retryAfterMs;
			this.pause(now + wait);
			if (ofThisCycle && this.allowance === undefined) this.endCycle(now + wait);
		} else if (this.allowance !== undefined && this.allowanceResetAt > now) {
			this.allowance = 0;
		} else if (ofThisCycle) {
			this.refusedWithoutHint(now);
		}
	}

	/** How long the service has admitted none of this pacer's requests, 0 while it admits. */
	refusedForMs(): number {
		return this.refusingSince === undefined ? 0 : this.now() - this.refusingSince;
	}

	private pause(until: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, until);
	}

	/**
	 * The cycle ends with a refusal; the next starts at `next` (the service's word, or a
	 * probe's admission). Its budget is what it admitted; a cycle that started at a resumption
	 * also measures the period.
	 */
	private endCycle(next: number, nextSequence = this.sent + 1): void {
		const budget = this.admittedInCycle || this.cycle?.budget || 1;
		const start = this.cycleStart;
		const periodMs = start?.resumed
			? Math.min(MAX_WAIT_MS, Math.max(1, next - start.at))
			: this.cycle?.periodMs;
		this.cycle = { budget, periodMs };
		this.startCycle(next, true);
		this.cycleFirstSequence = nextSequence;
		this.cleanCycles = 0;
	}

	private refusedWithoutHint(now: number): void {
		const { periodMs } = this.cycle ?? {};
		if (periodMs !== undefined && this.admittedInCycle > 0) {
			// Admitted, then refused: the budget was too large; the period stands.
			this.cycle!.budget = this.admittedInCycle;
			this.sentInCycle = Math.max(this.sentInCycle, this.cycle!.budget);
			this.refusedInCycle = true;
			this.cleanCycles = 0;
			return;
		}
		if (!this.awaitingResumption) {
			this.awaitingResumption = true;
			this.cycleFirstSequence = this.sent + 1;
		}
		this.pause(now + this.nextProbeWait());
	}

	private nextProbeWait(): number {
		const wait = this.probeMs;
		this.probeMs = Math.min(MAX_PROBE_MS, this.probeMs * PROBE_GROWTH);
		return wait;
	}

	/** A probe was admitted after refusals: a new cycle starts where it was sent. */
	private resume(sequence: number, sentAt: number): void {
		this.awaitingResumption = false;
		this.endCycle(sentAt, sequence);
		this.sentInCycle = this.sent - sequence + 1;
		this.admittedInCycle = 1;
	}

	private nextCycle(now: number): void {
		const cycle = this.cycle!;
		const clean =
			!this.refusedInCycle &&
			this.sentInCycle >= cycle.budget &&
			this.admittedInCycle >= cycle.budget;
		this.cleanCycles = clean ? this.cleanCycles + 1 : 0;
		if (!this.retryAfterSeen && this.cleanCycles >= CLEAN_CYCLES_TO_GROW) {
			cycle.budget++;
			this.cleanCycles = 0;
		}
		this.startCycle(now, true);
	}

	private startCycle(at: number, resumed: boolean): void {
		this.cycleStart = { at, resumed };
		this.cycleFirstSequence = this.sent + 1;
		this.sentInCycle = 0;
		this.admittedInCycle = 0;
		this.refusedInCycle = false;
	}

	/**
	 * Remaining/Reset as of when this request was processed: requests sent after it were not
	 * yet counted, so they come off. The newest request's figures count; a Reset in whole
	 * seconds is rounded up, so of two for one window (within a second) the earlier is nearer.
	 */
	private readWindow(sequence: number, { limit, remaining, resetAt }: RateHints): void {
		if (limit !== undefined) this.windowLimit = limit;
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
