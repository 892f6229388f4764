import type { RateHints } from './rateHints';

/*
 * The pacing of one node execution by time, beside AdaptiveConcurrency's limit on requests in
 * flight, as a state machine. Until the service refuses or tells a limit it costs nothing; then
 * it keeps to what the service admits, learnt from what it says (Retry-After; Remaining and Reset,
 * "the window"), else from when it admits again. Every request waits for the pace.
 */

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
export const PROBE_GROWTH = 1.6;
const MAX_PROBE_MS = 60_000;

/** The named states (the docs describe each with these words; a test holds them to it). */
export const STATES = {
	free: 'sends at once',
	telling: 'waits for the answers after a refusal',
	probing: `sends lone probes, each wait ${PROBE_GROWTH} times longer`,
	ramping: 'doubles its sends per admission',
	paced: "sends a cycle's budget, then waits out its period",
} as const;

export type Phase = keyof typeof STATES;

/** `unanswered`: no answer at all (a reset, a timeout), which tells nothing about the rate. */
export type Outcome = 'admitted' | 'refused' | 'unanswered';

interface Answered {
	at: number;
	sequence: number;
	sentAt: number;
	hints: RateHints;
	/** A refusal told from a sporadic one: it is learnt from. */
	confirmed?: boolean;
}

/** A send, and the timers due when it is sent; an answer, and the hint its headers carry. */
export type PacingEvent =
	| { [K in 'send' | 'windowEnds' | 'periodEnds']: { kind: K; at: number } }[
			| 'send'
			| 'windowEnds'
			| 'periodEnds']
	| { kind: 'hint'; sequence: number; hints: RateHints }
	| { [K in Outcome]: { kind: K } & Answered }[Outcome];

type Kind = PacingEvent['kind'];
type EventOf<K extends Kind> = Extract<PacingEvent, { kind: K }>;

/*
 * The transitions: the first row whose state (`from`, "any", or several parted by "|"), event
 * and condition match applies its action; `to` names the state that follows ("same": as it was).
 * Timers are looked at when a request is sent; a hint comes before its answer.
 */
export const TRANSITIONS = [
	// [from, event, condition, to, action]
	['any', 'windowEnds', always, 'same', 'open the window'],
	['any', 'periodEnds', growsNow, 'paced|telling', 'grow the pace'],
	['any', 'periodEnds', always, 'paced|telling', 'start the next cycle'],
	['any', 'send', always, 'same', 'count the send'],
	['any', 'hint', newest, 'same', 'read the window'],
	['any', 'hint', always, 'same', 'none'],
	// A refusal told apart by the answers to requests sent after it.
	['telling', 'admitted', later, 'free|ramping|paced', 'forget the refusal'],
	['telling', 'refused', confirms, 'free|probing|ramping|paced', 'learn from the refusal'],
	['telling', 'unanswered', confirms, 'free|probing|ramping|paced', 'learn from the refusal'],
	['telling', 'refused', later, 'telling', 'count the refusal'],
	['telling', 'admitted', always, 'telling', 'count the admission'],
	['telling', 'refused', always, 'telling', 'none'],
	['telling', 'unanswered', always, 'telling', 'none'],
	// Answers, and refusals learnt from.
	['probing', 'admitted', ofThisCycle, 'ramping|paced', 'resume'],
	['any', 'admitted', always, 'same', 'count the admission'],
	['any', 'unanswered', always, 'same', 'none'],
	['free|ramping|paced', 'refused', toTell, 'telling', 'tell it apart'],
	['any', 'refused', retryAfter, 'same|paced', 'wait Retry-After'],
	['any', 'refused', inWindow, 'same', 'spend the window'],
	['any', 'refused', ofAnotherCycle, 'same', 'note the refusal'],
	['any', 'refused', grown, 'paced', 'undo the growth'],
	['ramping', 'refused', probeAlone, 'paced', 'one per probe wait'],
	['any', 'refused', budgetTooLarge, 'paced', 'cut the budget'],
	['any', 'refused', always, 'probing', 'probe later'],
] as const satisfies readonly Row[];

type Row = readonly [from: string, on: Kind, when: Condition, to: string, action: string];
type Condition = (s: PacingState, e: never) => boolean;

export type Action = (typeof TRANSITIONS)[number][4];

const ANY: readonly Phase[] = ['free', 'telling', 'probing', 'ramping', 'paced'];

/** The states a row's `from` or `to` names. */
export const phasesIn = (names: string, same: readonly Phase[] = ANY) =>
	names.split('|').flatMap((name) => (name === 'any' || name === 'same' ? same : [name as Phase]));

const FROM = TRANSITIONS.map(([from]) => new Set(phasesIn(from)));

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

/** A window's first answer tells what it holds; until then one request, at most this long. */
const NEW_WINDOW_MS = 60_000;

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
export interface Pace {
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
	readonly cycleStart?: { readonly at: number; readonly resumed: boolean; readonly since?: number };
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
}

export const initialState = (pace?: Pace): PacingState => ({
	sent: 0,
	unanswered: [],
	pausedUntil: 0,
	windowResetAt: 0,
	windowSequence: 0,
	cycle: pace && { ...pace },
	cycleFirstSequence: 1,
	sentInCycle: 0,
	admittedInCycle: 0,
	refusedInCycle: false,
	cleanCycles: 0,
	cyclesToGrow: CLEAN_CYCLES_TO_GROW,
	probeAnchor: 0,
	probeMs: MIN_PROBE_MS,
	probingAtGuess: false,
	admissions: [],
	retryAfterSeen: false,
	sporadicAtPace: 0,
});

export function phaseOf(s: PacingState): Phase {
	if (s.unconfirmed) return 'telling';
	return s.mode ?? (s.cycle ? 'paced' : 'free');
}

/** Whether the service has told how many requests its window still admits. */
export const told = (s: PacingState) => s.allowance !== undefined;

export interface Step {
	state: PacingState;
	/** The actions of the transitions taken, in order. */
	actions: Action[];
}

/**
 * One event: a send (after the timers it finds due), or an answer (after the hint its headers
 * carry). Pure: the state given is left as it was.
 */
export function step(state: PacingState, event: PacingEvent): Step {
	const s = draftOf(state);
	const actions: Action[] = [];
	if (event.kind === 'send') {
		if (s.allowance !== undefined && event.at >= s.windowResetAt)
			decide(s, { kind: 'windowEnds', at: event.at }, actions);
		s.cycleStart ??= { at: event.at, resumed: false };
		if (s.mode !== 'probing' && event.at >= periodEnd(s, s.cycleStart))
			decide(s, { kind: 'periodEnds', at: event.at }, actions);
	} else if ('sentAt' in event) {
		s.unanswered = s.unanswered.filter((sequence) => sequence !== event.sequence);
		if (s.probeInFlight?.sequence === event.sequence) s.probeInFlight = undefined;
		const { remaining, resetAt } = event.hints;
		if (remaining !== undefined && resetAt !== undefined)
			decide(s, { kind: 'hint', sequence: event.sequence, hints: event.hints }, actions);
	}
	decide(s, event, actions);
	return { state: s, actions };
}

function decide(s: Draft, event: PacingEvent, actions: Action[]): void {
	const phase = phaseOf(s);
	const row = TRANSITIONS.findIndex(
		([, on, when], i) => on === event.kind && FROM[i].has(phase) && when(s, event as never),
	);
	if (row < 0) return;
	const action = TRANSITIONS[row][4];
	actions.push(action);
	(ACTIONS[action] as (s: Draft, e: PacingEvent, actions: Action[]) => void)(s, event, actions);
}

/** The earliest time the next request may be sent, at most MAX_WAIT_MS ahead (see there). */
export function nextSendAt(state: PacingState, now: number): { at: number; state: PacingState } {
	const at = waitEnd(state);
	const latest = now + MAX_WAIT_MS;
	if (at <= latest) return { at, state };
	return { at: latest, state: shiftBack(state, at - latest) };
}

function waitEnd(s: PacingState): number {
	let at = s.pausedUntil;
	// Waiting for an answer: a probe's, the one that tells a refusal sporadic, or the ramp's.
	if (s.probeInFlight) at = Math.max(at, s.probeInFlight.sentAt + MAX_PROBE_MS);
	// A refusal being told apart: its later requests' answers; with none out, one goes to tell.
	if (s.unconfirmed && sentAfter(s, s.unconfirmed.sequence))
		at = Math.max(at, s.unconfirmed.at + MAX_PROBE_MS);
	if (s.sentInCycle >= rampCap(s) && cycleInFlight(s))
		at = Math.max(at, s.cycleStart!.at + MAX_PROBE_MS);
	if (s.allowance !== undefined && s.allowance <= 0) at = Math.max(at, s.windowResetAt);
	if (s.cycle?.periodMs !== undefined && s.cycleStart && s.sentInCycle >= s.cycle.budget)
		at = Math.max(at, periodEnd(s, s.cycleStart));
	return at;
}

const periodEnd = (s: PacingState, start: { at: number }) =>
	start.at + (s.cycle?.periodMs ?? Infinity) * PERIOD_MARGIN;

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
const sentAfter = (s: PacingState, sequence: number) =>
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

// Conditions of the table.

function always() {
	return true;
}

function ofAnotherCycle(s: PacingState, e: Answered) {
	return !ofThisCycle(s, e);
}

function grown(s: PacingState) {
	return s.beforeGrowth !== undefined;
}

function growsNow(s: PacingState): boolean {
	return !s.retryAfterSeen && cleanCyclesAfter(s) >= s.cyclesToGrow;
}

/** Counts the cycle that ends: sent in full and admitted in full, with no refusal. */
function cleanCyclesAfter(s: PacingState): number {
	const { budget } = s.cycle!;
	const clean = !s.refusedInCycle && s.sentInCycle >= budget && s.admittedInCycle >= budget;
	return clean ? s.cleanCycles + 1 : 0;
}

/**
 * Remaining/Reset as of when this request was processed: requests sent after it were not yet
 * counted, so they come off. The newest request's figures count.
 */
function newest(s: PacingState, e: EventOf<'hint'>) {
	return e.sequence >= s.windowSequence;
}

function later(s: PacingState, e: Answered) {
	return e.sequence > s.unconfirmed!.sequence;
}

/**
 * Answers to requests sent after a refusal tell what it was: one admitted, sporadic; refusals, a
 * limit (REFUSALS_TO_CONFIRM, or all sent after it). No answer tells neither.
 */
function confirms(s: PacingState, e: EventOf<'refused' | 'unanswered'>): boolean {
	if (!later(s, e)) return false;
	const refusedAfter = s.unconfirmed!.refusedAfter + (e.kind === 'refused' ? 1 : 0);
	return (
		refusedAfter >= REFUSALS_TO_CONFIRM ||
		(refusedAfter > 0 && !sentAfter(s, s.unconfirmed!.sequence))
	);
}

function ofThisCycle(s: PacingState, e: Answered) {
	return e.sequence >= s.cycleFirstSequence;
}

/**
 * Told apart by the requests sent after it that are out, or, for a Retry-After, by the next
 * one, sent without waiting it out: the wait would cost every request of a service that refuses
 * some at random (a refusal without one is probed for anyway).
 */
function toTell(s: PacingState, e: Answered) {
	const told = sentAfter(s, e.sequence) || e.hints.retryAfterMs !== undefined;
	return !e.confirmed && ofThisCycle(s, e) && told;
}

function retryAfter(_: PacingState, e: Answered) {
	return e.hints.retryAfterMs !== undefined;
}

function inWindow(s: PacingState, e: Answered) {
	return s.allowance !== undefined && s.windowResetAt > e.at;
}

/** The probe alone was admitted, and the period is not known. */
function probeAlone(s: PacingState) {
	return s.admittedInCycle === 1 && s.cycle?.periodMs === undefined;
}

/** Admitted, then refused, at a known period. */
function budgetTooLarge(s: PacingState) {
	return s.cycle?.periodMs !== undefined && s.admittedInCycle > 0;
}

// Actions of the table: each changes the draft of the next state.

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Draft = Mutable<Omit<PacingState, 'cycle' | 'cycleStart' | 'unconfirmed'>> & {
	cycle?: Pace;
	cycleStart?: { at: number; resumed: boolean; since?: number };
	unconfirmed?: Unconfirmed;
};

function draftOf(s: PacingState): Draft {
	return {
		...s,
		cycle: s.cycle && { ...s.cycle },
		cycleStart: s.cycleStart && { ...s.cycleStart },
		unconfirmed: s.unconfirmed && { ...s.unconfirmed },
	};
}

const ACTIONS: { [A in Action]: (s: Draft, e: never, actions: Action[]) => void } = {
	none: () => {},
	'open the window': (s, e: EventOf<'windowEnds'>) => {
		// A token bucket's Reset is when it is full again, not what it holds after the requests
		// sent meanwhile: the window's first answer tells; until then this request alone.
		s.allowance = 1;
		s.windowResetAt = e.at + NEW_WINDOW_MS;
	},
	'grow the pace': (s, e: EventOf<'periodEnds'>) => nextCycle(s, e.at),
	'start the next cycle': (s, e: EventOf<'periodEnds'>) => nextCycle(s, e.at),
	'count the send': (s, e: EventOf<'send'>) => {
		if (s.allowance !== undefined) s.allowance--;
		s.sentInCycle++;
		const sequence = ++s.sent;
		s.unanswered = [...s.unanswered, sequence];
		if (s.mode === 'probing') s.probeInFlight = { sequence, sentAt: e.at };
	},
	'read the window': (s, { sequence, hints }: EventOf<'hint'>) => {
		s.windowSequence = sequence;
		s.allowance = hints.remaining! - (s.sent - sequence);
		// A Reset in whole seconds is rounded up: of two for one window, the earlier is nearer.
		s.windowResetAt =
			Math.abs(hints.resetAt! - s.windowResetAt) < 1000
				? Math.min(hints.resetAt!, s.windowResetAt)
				: hints.resetAt!;
	},
	'forget the refusal': (s, e: EventOf<'admitted'>) => {
		const { lone } = s.unconfirmed!;
		s.unconfirmed = undefined;
		sporadic(s, e.at, lone);
		admitted(s, e);
	},
	'learn from the refusal': (s, _: Answered, actions) => {
		const { sequence, sentAt, at, hints } = s.unconfirmed!;
		s.unconfirmed = undefined;
		decide(s, { kind: 'refused', sequence, sentAt, at, hints, confirmed: true }, actions);
	},
	'note the refusal': (s, e: Answered) => learnt(s, e),
	'count the refusal': (s) => {
		s.unconfirmed!.refusedAfter++;
	},
	'count the admission': (s, e: Answered) => admitted(s, e),
	resume: (s, e: Answered) => admitted(s, e),
	'tell it apart': (s, e: EventOf<'refused'>) => {
		const { sequence, sentAt, at, hints } = e;
		s.unconfirmed = { sequence, sentAt, at, hints, refusedAfter: 0, lone: !sentAfter(s, sequence) };
	},
	'wait Retry-After': (s, e: EventOf<'refused'>) => {
		learnt(s, e);
		const fromRefusal = e.hints.retryAfterMs!;
		s.retryAfterSeen = true;
		// Refused again right after the wait it named: its Retry-After is too short to trust.
		const again = ofThisCycle(s, e) && s.admittedInCycle === 0 && s.cycleStart?.resumed;
		const wait = again ? Math.max(fromRefusal, nextProbeWait(s)) : fromRefusal;
		pause(s, e.at + wait);
		if (!ofThisCycle(s, e) || s.allowance !== undefined) return;
		// A cycle that admitted nothing tells no rate: a first request refused at random, say.
		if (s.admittedInCycle > 0) endCycle(s, e.at + wait);
		else startCycle(s, e.at + wait, true);
	},
	'spend the window': (s, e: EventOf<'refused'>) => {
		learnt(s, e);
		s.allowance = 0;
	},
	'undo the growth': (s, e: EventOf<'refused'>) => {
		learnt(s, e);
		s.cycle = { ...s.beforeGrowth! };
		s.beforeGrowth = undefined;
		s.cyclesToGrow *= 2;
		endBudget(s);
	},
	'one per probe wait': (s, e: EventOf<'refused'>) => {
		learnt(s, e);
		// One request comes back in the time the probe waited.
		s.cycle = { budget: 1, periodMs: s.resumedAfterMs };
		endBudget(s);
	},
	'cut the budget': (s, e: EventOf<'refused'>) => {
		learnt(s, e);
		keepToAdmittedRate(s, e.sentAt, s.cycle!.periodMs!);
		s.cycle!.budget = s.admittedInCycle;
		endBudget(s);
	},
	'probe later': (s, e: EventOf<'refused'>) => {
		learnt(s, e);
		if (s.cycle?.periodMs !== undefined) keepToAdmittedRate(s, e.sentAt, s.cycle.periodMs);
		if (s.mode !== 'probing') {
			s.mode = 'probing';
			s.probeAnchor = s.lastAdmittedSentAt ?? e.at;
			const guess = Math.max(MIN_PROBE_MS, BURST_GUESS_MS / Math.max(1, s.admittedInCycle));
			s.probeMs = s.resumedAfterMs ?? guess;
			s.guessedProbeMs = s.resumedAfterMs === undefined ? guess : undefined;
			s.cycleFirstSequence = s.sent + 1;
		}
		pause(s, Math.max(e.at, s.probeAnchor + nextProbeWait(s)));
	},
};

/** Every refusal learnt from. */
function learnt(s: Draft, { sentAt }: Answered): void {
	s.sporadicAtPace = 0;
	s.lastRefusedSentAt = Math.max(s.lastRefusedSentAt ?? sentAt, sentAt);
}

function admitted(s: Draft, { sequence, sentAt }: Answered): void {
	s.admissions = [...s.admissions.slice(-(ADMISSIONS_KEPT - 1)), sentAt];
	s.lastAdmittedSentAt = Math.max(s.lastAdmittedSentAt ?? sentAt, sentAt);
	if (sequence < s.cycleFirstSequence) return;
	if (s.mode === 'probing') resume(s, sequence, sentAt);
	else s.admittedInCycle++;
}

/**
 * A refusal that was sporadic is forgotten. A learnt pace at which they come was itself learnt
 * from ones that looked like a limit: it is forgotten too, at once if the next request was
 * admitted (a limit that refuses at the pace it admits refuses the next one too), else after
 * SPORADIC_TO_FORGET. The limit on requests in flight, which did not grow at that pace, keeps
 * what follows from bursting.
 */
function sporadic(s: Draft, now: number, lone: boolean): void {
	if (!s.cycle || (!lone && ++s.sporadicAtPace < SPORADIC_TO_FORGET)) return;
	s.cycle = undefined;
	s.beforeGrowth = undefined;
	startCycle(s, now, false);
}

function pause(s: Draft, until: number): void {
	s.pausedUntil = Math.max(s.pausedUntil, until);
}

/**
 * The cycle ends with a refusal; the next starts at `next` (the service's word, or a
 * probe's admission). Its budget is what it admitted; a cycle that started at a resumption
 * also measures the period.
 */
function endCycle(
	s: Draft,
	next: number,
	nextSequence = s.sent + 1,
	lastAdmission = s.lastAdmittedSentAt,
): void {
	const budget = s.admittedInCycle || s.cycle?.budget || 1;
	const start = s.cycleStart;
	// One request a cycle: one came back in the time from the last admission to this one.
	const oneBack = budget === 1 && lastAdmission !== undefined ? next - lastAdmission : undefined;
	// From the earliest the last resumption may have been: a period too short sends a
	// window's budget before the window ends, to be refused whole.
	const periodMs = start?.resumed
		? Math.min(MAX_WAIT_MS, Math.max(1, next - (start.since ?? start.at)))
		: (s.cycle?.periodMs ?? oneBack);
	s.cycle = { budget, periodMs };
	startCycle(s, next, true);
	s.cycleFirstSequence = nextSequence;
	s.cleanCycles = 0;
}

/**
 * Refused at a learnt pace: it sends more than the service admits (a bucket's store of
 * requests, drawn on by a pace that grew, is spent, say). The period is made long enough
 * for the rate admitted since the last such refusal, when the pace was refused at both ends,
 * else over the last RATE_SPAN_PERIODS periods (at least a second). Times are sends.
 */
function keepToAdmittedRate(s: Draft, refusedSentAt: number, periodMs: number): void {
	const span = Math.max(1_000, RATE_SPAN_PERIODS * periodMs);
	const last = s.lastPacedRefusalSentAt;
	s.lastPacedRefusalSentAt = refusedSentAt;
	const from = last !== undefined && last > refusedSentAt - span ? last : refusedSentAt - span;
	const admittedCount = s.admissions.filter((at) => at > from && at < refusedSentAt).length;
	if (admittedCount === 0) return;
	const perMs = admittedCount / (refusedSentAt - from);
	s.cycle!.periodMs = Math.min(MAX_WAIT_MS, Math.max(periodMs, s.cycle!.budget / perMs));
}

/** This cycle sends no more. */
function endBudget(s: Draft): void {
	s.sentInCycle = Math.max(s.sentInCycle, s.cycle!.budget);
	s.refusedInCycle = true;
	if (s.mode === 'ramping') s.mode = undefined;
	s.cleanCycles = 0;
}

function nextProbeWait(s: Draft): number {
	s.probingAtGuess = s.probeMs === s.guessedProbeMs;
	const wait = s.probeMs;
	s.probeMs = Math.min(MAX_PROBE_MS, s.probeMs * PROBE_GROWTH);
	return wait;
}

/** A probe was admitted after refusals: a new cycle starts where it was sent. */
function resume(s: Draft, sequence: number, sentAt: number): void {
	s.mode = undefined;
	const resumedAfterMs = Math.max(MIN_PROBE_MS, sentAt - s.probeAnchor);
	s.resumedAfterMs = resumedAfterMs;
	const periodMs = s.cycle?.periodMs;
	const burst = s.admittedInCycle;
	endCycle(s, sentAt, sequence, s.probeAnchor);
	s.cycleStart!.since = s.lastRefusedSentAt;
	s.sentInCycle = s.sent - sequence + 1;
	s.admittedInCycle = 1;
	if (s.probingAtGuess && periodMs === undefined) {
		// Admitted at the guessed wait: a bucket that gives back requests one by one (a window
		// gives back all at its end, which the guess, a share of a second, rarely reaches). Its
		// rate is taken as the burst per second, as the guess was.
		const budget = Math.max(1, Math.floor((resumedAfterMs * burst) / BURST_GUESS_MS));
		s.cycle = { budget, periodMs: resumedAfterMs };
	} else {
		s.mode = 'ramping';
	}
}

function nextCycle(s: Draft, now: number): void {
	s.cleanCycles = cleanCyclesAfter(s);
	if (!s.retryAfterSeen && s.cleanCycles >= s.cyclesToGrow) grow(s, s.cycle!);
	startCycle(s, now, true);
}

function grow(s: Draft, cycle: Pace): void {
	s.beforeGrowth = { ...cycle };
	if (cycle.budget >= GROW_BUDGET_FROM) cycle.budget = Math.ceil(cycle.budget * GROWTH);
	else cycle.periodMs = cycle.periodMs! / GROWTH;
	s.cleanCycles = 0;
}

function startCycle(s: Draft, at: number, resumed: boolean): void {
	s.cycleStart = { at, resumed };
	s.cycleFirstSequence = s.sent + 1;
	s.sentInCycle = 0;
	s.admittedInCycle = 0;
	s.refusedInCycle = false;
	if (s.mode === 'ramping') s.mode = undefined;
}

/** Holds the pacing's state and its clock; every decision is the table's. */
export class RatePacing {
	private state: PacingState;

	constructor(
		private readonly now: () => number = Date.now,
		start?: Pace,
	) {
		this.state = initialState(start);
	}

	told(): boolean {
		return told(this.state);
	}

	/** The earliest time the next request may be sent. */
	nextSendAt(): number {
		const { at, state } = nextSendAt(this.state, this.now());
		this.state = state;
		return at;
	}

	/** Records a send; returns its sequence, to hand back with the answer. */
	onSend(): number {
		this.state = step(this.state, { kind: 'send', at: this.now() }).state;
		return this.state.sent;
	}

	/**
	 * An answer with the hints its headers carried: `refused` is "not now" (HTTP 429, or a
	 * gateway's 502, 503 or 504), `admitted` any other, a 500 too: it passed whatever limits the
	 * rate.
	 */
	onAnswer(sequence: number, sentAt: number, outcome: Outcome, hints: RateHints = {}): void {
		const event = { kind: outcome, at: this.now(), sequence, sentAt, hints };
		this.state = step(this.state, event).state;
	}
}
