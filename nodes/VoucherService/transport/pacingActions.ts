import { MAX_PROBE_MS, MAX_WAIT_MS, sentAfter } from './pacingState';
import type { Answered, EventOf, Pace, PacingEvent, PacingState, Unconfirmed } from './pacingState';

/*
 * The conditions and actions of the pacing's transitions (the table is in ratePacing.ts): each
 * action changes a draft of the next state, and may hand on one more event to decide.
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

/** A period learnt this many times the last keeps the last one's rate, not its budget. */
const RATE_KEPT_FROM = 1.5;

export const initialState = (): PacingState => ({
	sent: 0,
	unanswered: [],
	pausedUntil: 0,
	windowResetAt: 0,
	windowSequence: 0,
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

// Conditions of the table.

export function always() {
	return true;
}

export function ofAnotherCycle(s: PacingState, e: Answered) {
	return !ofThisCycle(s, e);
}

export function grown(s: PacingState) {
	return s.beforeGrowth !== undefined;
}

export function growsNow(s: PacingState): boolean {
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
export function newest(s: PacingState, e: EventOf<'hint'>) {
	return e.sequence >= s.windowSequence;
}

export function later(s: PacingState, e: Answered) {
	return e.sequence > s.unconfirmed!.sequence;
}

/**
 * Answers to requests sent after a refusal tell what it was: one admitted, sporadic; refusals, a
 * limit (REFUSALS_TO_CONFIRM, or all sent after it). No answer tells neither.
 */
export function confirms(s: PacingState, e: EventOf<'refused' | 'unanswered'>): boolean {
	if (!later(s, e)) return false;
	const refusedAfter = s.unconfirmed!.refusedAfter + (e.kind === 'refused' ? 1 : 0);
	return (
		refusedAfter >= REFUSALS_TO_CONFIRM ||
		(refusedAfter > 0 && !sentAfter(s, s.unconfirmed!.sequence))
	);
}

export function ofThisCycle(s: PacingState, e: Answered) {
	return e.sequence >= s.cycleFirstSequence;
}

/**
 * Told apart by the requests sent after it that are out, or, for a Retry-After, by the next
 * one, sent without waiting it out: the wait would cost every request of a service that refuses
 * some at random (a refusal without one is probed for anyway).
 */
export function toTell(s: PacingState, e: Answered) {
	const told = sentAfter(s, e.sequence) || e.hints.retryAfterMs !== undefined;
	return !e.confirmed && ofThisCycle(s, e) && told;
}

export function retryAfter(_: PacingState, e: Answered) {
	return e.hints.retryAfterMs !== undefined;
}

export function inWindow(s: PacingState, e: Answered) {
	return s.allowance !== undefined && s.windowResetAt > e.at;
}

/**
 * Whether what the cycle admitted tells a rate. Not if it admitted nothing (a first request
 * refused at random, say), nor if it started where a learnt pace was forgotten, neither from
 * rest (the first send) nor at a resumption: it began with whatever the limit had left. A
 * budget of one learnt there, one request a second, was never refused to be learnt again.
 */
function tellsRate(s: PacingState) {
	const fromRest = s.cycleFirstSequence === 1;
	return s.admittedInCycle > 0 && (fromRest || s.cycleStart?.resumed === true);
}

/** The probe alone was admitted, and the period is not known. */
export function probeAlone(s: PacingState) {
	return s.admittedInCycle === 1 && s.cycle?.periodMs === undefined;
}

/** Admitted, then refused, at a known period. */
export function budgetTooLarge(s: PacingState) {
	return s.cycle?.periodMs !== undefined && s.admittedInCycle > 0;
}

// Actions of the table: each changes the draft of the next state.

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
export type Draft = Mutable<Omit<PacingState, 'cycle' | 'cycleStart' | 'unconfirmed'>> & {
	cycle?: Pace;
	cycleStart?: { at: number; resumed: boolean; since?: number };
	unconfirmed?: Unconfirmed;
};

export function draftOf(s: PacingState): Draft {
	return {
		...s,
		cycle: s.cycle && { ...s.cycle },
		cycleStart: s.cycleStart && { ...s.cycleStart },
		unconfirmed: s.unconfirmed && { ...s.unconfirmed },
	};
}

/** An action: changes the draft, and may hand on one more event to decide. */
export type ActionFn = (s: Draft, e: never) => PacingEvent | void;

export const ACTIONS = {
	none: () => {},
	'open the window': (s, e: EventOf<'windowEnds'>) => {
		// A token bucket's Reset is when it is full again, not what it holds after the requests
		// sent meanwhile: the window's first answer tells; until then this request alone.
		s.allowance = 1;
		s.windowResetAt = e.at + NEW_WINDOW_MS;
	},
	'grow the pace': (s, e: EventOf<'periodEnds'>) => {
		grow(s, s.cycle!);
		startCycle(s, e.at, true);
	},
	'start the next cycle': (s, e: EventOf<'periodEnds'>) => {
		s.cleanCycles = cleanCyclesAfter(s);
		startCycle(s, e.at, true);
	},
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
	'learn from the refusal': (s): PacingEvent => {
		const { sequence, sentAt, at, hints } = s.unconfirmed!;
		s.unconfirmed = undefined;
		return { kind: 'refused', sequence, sentAt, at, hints, confirmed: true };
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
		if (tellsRate(s)) endCycle(s, e.at + wait, { oneBackFrom: s.lastAdmittedSentAt });
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
} satisfies Record<string, ActionFn>;

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
	{ nextSequence = s.sent + 1, oneBackFrom }: { nextSequence?: number; oneBackFrom?: number } = {},
): void {
	const old = s.cycle;
	let budget = s.admittedInCycle || old?.budget || 1;
	const start = s.cycleStart;
	// One request a cycle, where the service said when (`oneBackFrom`, the last admission): one
	// comes back in the time from it to the next start. Not where a probe found it: a cycle that did not start at a
	// resumption (from rest, or where a pace was forgotten) began with whatever the limit had
	// left, and one left in a window the last execution spent held the next at 1 every 2.6 s
	// behind 60 every 3 s (with none left, 1 every 1.6 s behind 300). The ramp after the
	// resumption finds the budget, and a limit of one a period is learnt there (one per probe
	// wait).
	const oneBack =
		s.admittedInCycle === 1 && oneBackFrom !== undefined ? next - oneBackFrom : undefined;
	// From the earliest the last resumption may have been: a period too short sends a
	// window's budget before the window ends, to be refused whole.
	const periodMs = start?.resumed
		? Math.min(MAX_WAIT_MS, Math.max(1, next - (start.since ?? start.at)))
		: (old?.periodMs ?? oneBack);
	// No admission told the budget, and the one kept was a shorter period's: it goes on at that
	// rate (a probe's guess of a bucket kept to a window's period held a run to 2 every 2 s
	// behind 60 every 3 s); too many, and a refusal cuts it to what is admitted.
	if (!s.admittedInCycle && old?.periodMs && periodMs && periodMs > RATE_KEPT_FROM * old.periodMs)
		budget = Math.max(budget, Math.floor((old.budget * periodMs) / old.periodMs));
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
	// From the run's first admission at the earliest: the time before it, counted as admitting
	// nothing, gave a run that began in a window the last execution spent a period of several
	// windows (14.7 × the floor behind 300 every 3 s, simulated).
	const since = Math.max(from, s.admissions[0]);
	const perMs = admittedCount / (refusedSentAt - since);
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
	endCycle(s, sentAt, { nextSequence: sequence });
	s.cycleStart!.since = s.lastRefusedSentAt;
	s.sentInCycle = s.sent - sequence + 1;
	s.admittedInCycle = 1;
	if (s.probingAtGuess && periodMs === undefined && burst > 0) {
		// Admitted at the guessed wait: a bucket that gives back requests one by one (a window
		// gives back all at its end, which the guess, a share of a second, rarely reaches). Its
		// rate is taken as the burst per second, as the guess was. Not where nothing was admitted
		// before (a window the last execution spent): that tells no burst, and the guess, a whole
		// second then, reaches a window's end (one a second behind 300 every 3 s).
		const budget = Math.max(1, Math.floor((resumedAfterMs * burst) / BURST_GUESS_MS));
		s.cycle = { budget, periodMs: resumedAfterMs };
	} else {
		s.mode = 'ramping';
	}
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
