import type { RateHints } from './rateHints';
import { headAt, inOneWindow } from './windowEdges';
import type { Span, WindowEdges } from './windowEdges';

/*
 * What the pacing knows (PacingState), the events it reads, and the waits its state implies.
 * The decisions are the table's, in ratePacing.ts.
 */

export type Phase = 'free' | 'telling' | 'probing' | 'ramping' | 'paced';

/** `unanswered`: no answer at all (a reset, a timeout), which tells nothing about the rate. */
export type Outcome = 'admitted' | 'refused' | 'unanswered';

export interface Answered {
	at: number;
	sequence: number;
	sentAt: number;
	hints: RateHints;
	/** A refusal told from a sporadic one: it is learnt from. */
	confirmed?: boolean;
}

/** `rest`: the last execution on these paces ended (sharedPaces.ts). */
type Timed = 'send' | 'windowEnds' | 'periodEnds' | 'rest';

/**
 * A send, and the timers due when it is sent; an answer, and the hint its headers carry; the
 * end of the executions on the pace.
 */
export type PacingEvent =
	| { [K in Timed]: { kind: K; at: number } }[Timed]
	| { kind: 'hint'; sequence: number; hints: RateHints }
	| { [K in Outcome]: { kind: K } & Answered }[Outcome];

export type Kind = PacingEvent['kind'];
export type EventOf<K extends Kind> = Extract<PacingEvent, { kind: K }>;

/** The longest a probe, or a request that tells a refusal apart, is waited for. */
export const MAX_PROBE_MS = 60_000;

/*
 * A learnt period is waited this much longer: a cycle a few ms early (our clock, the network)
 * is refused, and a Retry-After in whole seconds then costs up to a second.
 */
export const PERIOD_MARGIN = 1.02;

/*
 * The longest the pacing holds requests back, like the longest Retry-After or Reset honoured.
 * A longer wait comes from a period learnt from a slow cycle (it is only relearnt on a
 * refusal, so a too-long one could keep every later cycle slow) or from the clock being set
 * back; either would keep an execution idle for as long, so it is cut to this.
 */
export const MAX_WAIT_MS = 60_000;

/** What the pacing keeps to: `budget` requests per cycle of `periodMs` (unknown while learnt). */
export interface Pace {
	budget: number;
	periodMs?: number;
}

/** A refusal not yet told from a sporadic one. */
export interface Unconfirmed {
	sequence: number;
	sentAt: number;
	/** When it was answered. */
	at: number;
	hints: RateHints;
	/** Requests sent after it and refused too. */
	refusedAfter: number;
	/** None sent after it was out: the next one tells. */
	lone: boolean;
}

/**
 * All the pacing knows. Cycles: a cycle starts where admissions resume after a refusal (when
 * Retry-After has passed, or when a probe is admitted); what it admits before a refusal is the
 * budget, the time to the next start the period: a fixed window, a token bucket's refill, or one
 * request per 1/rate behind a leaky bucket with a burst (nginx).
 */
export interface PacingState {
	readonly sent: number;
	readonly unanswered: readonly number[];
	/** No request before this (a Retry-After, a probe's wait). */
	readonly pausedUntil: number;
	/** Told by Remaining/Reset: what may still be sent before windowResetAt. */
	readonly allowance?: number;
	readonly windowResetAt: number;
	/** The request whose answer told the window. */
	readonly windowSequence: number;
	/** Probing for a resumption, or ramping after one: which of the two. */
	readonly mode?: 'probing' | 'ramping';
	readonly cycle?: Readonly<Pace>;
	/** The pace before the last growth, while the grown one is on trial. */
	readonly beforeGrowth?: Readonly<Pace>;
	/**
	 * Where the current cycle started: a resumption, or the first send (which tells no period).
	 * A probe's admission shows admissions resumed after the last refused send, `since`.
	 */
	readonly cycleStart?: {
		readonly at: number;
		readonly resumed: boolean;
		readonly since?: number;
		/** When the period alone would have started it: a cycle started before, by the edges, is early. */
		readonly due?: number;
	};
	/** Answers to requests older than this count for no cycle. */
	readonly cycleFirstSequence: number;
	readonly sentInCycle: number;
	readonly admittedInCycle: number;
	readonly refusedInCycle: boolean;
	readonly cleanCycles: number;
	readonly cyclesToGrow: number;
	/** Probes wait from here: the send of the last admitted request. */
	readonly probeAnchor: number;
	readonly probeMs: number;
	/** The first probe's wait when it was guessed from the burst. */
	readonly guessedProbeMs?: number;
	/** The probe in flight waited the guess. */
	readonly probingAtGuess: boolean;
	/** The wait after which the last probe was admitted. */
	readonly resumedAfterMs?: number;
	/** The single probe, while no other request may go (at most MAX_PROBE_MS). */
	readonly probeInFlight?: { readonly sequence: number; readonly sentAt: number };
	readonly unconfirmed?: Readonly<Unconfirmed>;
	readonly lastAdmittedSentAt?: number;
	readonly lastPacedRefusalSentAt?: number;
	readonly lastRefusedSentAt?: number;
	/** When the last ADMISSIONS_KEPT admitted requests were sent. */
	readonly admissions: readonly number[];
	readonly retryAfterSeen: boolean;
	/** Sporadic refusals at the learnt pace since the last that was not. */
	readonly sporadicAtPace: number;
	/**
	 * The pace was kept from executions that ended, and looks for a limit lifted since: its next
	 * cycle sends one request more (`trial`), and if that is admitted whole the pace is raised by
	 * it (`raised`, a pace kept under the limit) and the next cycle tries once more (`retrial`);
	 * admitted whole too, no limit is there.
	 */
	readonly kept?: 'pending' | 'trial' | 'raised' | 'retrial';
	/**
	 * The pace was learnt from a probe admitted at the guessed wait: a bucket, which gives
	 * requests back one by one, and after a rest its whole store, which the next execution's
	 * burst finds again.
	 */
	readonly refills?: boolean;
	/** A fixed window's edges, where two resumptions a window apart showed them (windowEdges.ts). */
	readonly edges?: WindowEdges;
	/** Where the window of the last resumption began. */
	readonly lastEdge?: Span;
	/** The cycle opens with a lone request, its head, the last window spent: its answer tells. */
	readonly headFirst: boolean;
	/** The first request of the cycle being probed after: its late admissions still count. */
	readonly probedFrom?: number;
	/** Probe waits count from here: the last admission, or where the next window may begin. */
	readonly probeFrom?: number;
	/** A window is at least this long: one began between the last cycle's start and a refusal. */
	readonly periodAtLeast?: number;
	/** The head's answer, admitted: the window began by then, once the cycle admits its budget. */
	readonly headAdmittedAt?: number;
}

export function phaseOf(s: PacingState): Phase {
	if (s.unconfirmed) return 'telling';
	return s.mode ?? (s.cycle ? 'paced' : 'free');
}

/** A kept pace whose next cycle tries one request more (see `kept`), or whose cycle does. */
export const keptToTry = (s: PacingState) => s.kept === 'pending' || s.kept === 'raised';
export const onTrial = (s: PacingState) => s.kept === 'trial' || s.kept === 'retrial';

/**
 * A trial's one request more goes once its budget is admitted: alone, its answer is the
 * verdict. Sent with the rest, it could reach the service before some of them, and the one
 * refused was one of the budget, which read as a refusal at random, then as the window spent.
 */
const awaitsTrialVerdict = (s: PacingState) =>
	onTrial(s) &&
	s.beforeGrowth !== undefined &&
	s.sentInCycle >= s.beforeGrowth.budget &&
	s.admittedInCycle < s.beforeGrowth.budget &&
	cycleInFlight(s);

/** Whether the service has told how many requests its window still admits. */
export const told = (s: PacingState) => s.allowance !== undefined;

/** The earliest time the next request may be sent, at most MAX_WAIT_MS ahead (see there). */
export function nextSendAt(state: PacingState, now: number): { at: number; state: PacingState } {
	const at = waitEnd(state, now);
	const latest = now + MAX_WAIT_MS;
	if (at <= latest) return { at, state };
	return { at: latest, state: shiftBack(state, at - latest) };
}

function waitEnd(s: PacingState, now: number): number {
	let at = s.pausedUntil;
	// Waiting for an answer: a probe's, the one that tells a refusal sporadic, or the ramp's.
	if (s.probeInFlight) at = Math.max(at, s.probeInFlight.sentAt + MAX_PROBE_MS);
	// A refusal being told apart: its later requests' answers; with none out, one goes to tell.
	if (s.unconfirmed && sentAfter(s, s.unconfirmed.sequence))
		at = Math.max(at, s.unconfirmed.at + MAX_PROBE_MS);
	if (s.headFirst && s.sentInCycle >= 1 && s.admittedInCycle === 0 && cycleInFlight(s))
		at = Math.max(at, s.cycleStart!.at + MAX_PROBE_MS);
	if (awaitsTrialVerdict(s)) at = Math.max(at, s.cycleStart!.at + MAX_PROBE_MS);
	if (s.sentInCycle >= rampCap(s) && cycleInFlight(s))
		at = Math.max(at, s.cycleStart!.at + MAX_PROBE_MS);
	if (s.allowance !== undefined && s.allowance <= 0) at = Math.max(at, s.windowResetAt);
	if (s.cycle?.periodMs === undefined || !s.cycleStart || s.sentInCycle < s.cycle.budget) return at;
	at = Math.max(at, periodEnd(s, s.cycleStart));
	// A trial goes where it lies in one window: across a window's start, it takes the last
	// window's leftover too, and looks admitted whole (a pace raised above the limit). Where the
	// starts are too unsure for that, at once: a limit lifted refuses no head to narrow them.
	return (s.edges && keptToTry(s) && inOneWindow(s.edges, Math.max(at, now))) || at;
}

/**
 * When the next cycle starts: with a window's edges known, where its next window may begin (the
 * cycle that opened it still waiting for its first admission, a period after its start).
 */
export function periodEnd(s: PacingState, start: { at: number }): number {
	const fallback = periodDue(s, start.at);
	// A cycle that may have opened the next window waits for its first admission to tell.
	if (!s.edges || !s.cycle || start.at >= s.edges.next.lo) return fallback;
	return Math.min(fallback, headAt(s.edges, s.cycle.budget, spentWhole(s)));
}

/** When the period alone ends a cycle started `from`: never, while the period is unknown. */
export const periodDue = (s: PacingState, from: number) =>
	from + (s.cycle?.periodMs ?? Infinity) * PERIOD_MARGIN;

/**
 * The cycle admitted its whole budget: its window is spent (a request beyond it refused, a
 * growth's or a kept pace's trial, says so too).
 */
export const spentWhole = (s: PacingState) =>
	s.cycle !== undefined && s.admittedInCycle >= s.cycle.budget;

/**
 * What a cycle may send before more of its answers are in, where what it admits is not known:
 * after a probe's admission, or beyond its budget while the period is not known. One, then
 * twice what was admitted beyond what is known.
 */
function rampCap(s: PacingState): number {
	const ramping = s.mode === 'ramping';
	if (!s.cycle || (!ramping && s.cycle.periodMs !== undefined)) return Infinity;
	const known = ramping ? 0 : s.cycle.budget;
	return known + Math.max(1, 2 * (s.admittedInCycle - known));
}

const cycleInFlight = (s: PacingState) =>
	s.unanswered.some((sequence) => sequence >= s.cycleFirstSequence);

/** Whether a request sent after this one is still unanswered. */
export const sentAfter = (s: PacingState, sequence: number) =>
	s.unanswered.some((other) => other > sequence);

/** Brings every time the wait runs to earlier by `ms`, so the wait keeps its shape. */
function shiftBack(s: PacingState, ms: number): PacingState {
	const earlier = <T extends { at: number }>(o: T | undefined) => o && { ...o, at: o.at - ms };
	return {
		...s,
		pausedUntil: s.pausedUntil - ms,
		windowResetAt: s.windowResetAt - ms,
		probeInFlight: s.probeInFlight && { ...s.probeInFlight, sentAt: s.probeInFlight.sentAt - ms },
		unconfirmed: earlier(s.unconfirmed),
		cycleStart: earlier(s.cycleStart),
	};
}
