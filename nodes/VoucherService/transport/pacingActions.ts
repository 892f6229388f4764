import { MAX_PROBE_MS, MAX_WAIT_MS, periodDue, sentAfter, spentWhole } from './pacingState';
import type { Answered, EventOf, Pace, PacingEvent, PacingState, Unconfirmed } from './pacingState';
import {
	cleanCyclesAfter,
	inBudget,
	ofThisCycle,
	startedEarly,
	tellsRate,
} from './pacingConditions';
import { advance, catchUp, fromTwo, headAt, laterThan } from './windowEdges';

/*
 * The actions of the pacing's transitions (the table is in ratePacing.ts; the conditions are in
 * pacingConditions.ts): each changes a draft of the next state, and may hand on one more event
 * to decide.
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
/** Probes from where a window may begin at the earliest start at this share of its length. */
const PROBE_STEPS_IN_PERIOD = 10;
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
	headFirst: false,
});

// Actions of the table: each changes the draft of the next state.

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
export type Draft = Mutable<Omit<PacingState, 'cycle' | 'cycleStart' | 'unconfirmed'>> & {
	cycle?: Pace;
	cycleStart?: { at: number; resumed: boolean; since?: number; due?: number };
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
		const head = spentWhole(s);
		grow(s, s.cycle!);
		openCycle(s, e.at, head);
	},
	'try one more': (s, e: EventOf<'periodEnds'>) => {
		const head = spentWhole(s);
		// From a raised pace, the kept one stays what a refusal goes back to.
		s.beforeGrowth ??= { ...s.cycle! };
		s.cycle!.budget++;
		s.kept = s.kept === 'raised' ? 'retrial' : 'trial';
		s.cleanCycles = 0;
		openCycle(s, e.at, head);
	},
	'raise the kept pace': (s, e: EventOf<'admitted'>) => {
		// One trial admitted whole may have crossed a window's start, taking the last one's
		// leftover: a refusal of the raised pace goes back to the kept one (beforeGrowth), not to
		// the raised (4 every 3 s behind 3, refused, then cut to the rate admitted: 3 every 8.8 s).
		admitted(s, e);
		s.kept = 'raised';
	},
	'forget the kept pace': (s, e: EventOf<'admitted'>) => {
		// The cycle goes on, free: what it admits until a refusal is learnt from as ever.
		admitted(s, e);
		forgetPace(s);
	},
	'forget the kept pace, learn again': (s, e: EventOf<'refused'>): PacingEvent => {
		// Nothing of this cycle tells the budget or the period: the probes' resumption starts afresh.
		forgetPace(s);
		s.admittedInCycle = 0;
		s.cycleStart = { at: e.at, resumed: false };
		return e;
	},
	'keep the pace': (s) => {
		// The pace proven, not one on trial; nothing is out once the executions ended.
		s.cycle = { ...(s.beforeGrowth ?? s.cycle!) };
		s.beforeGrowth = undefined;
		s.kept = 'pending';
		s.headFirst = false;
		// What is left of its cycle is not sent later: by then the window may be the next one's.
		s.sentInCycle = Math.max(s.sentInCycle, s.cycle.budget);
		s.unanswered = [];
		// Its rate is measured from the next execution's own admissions (keepToAdmittedRate).
		s.admissions = [];
		s.lastPacedRefusalSentAt = undefined;
	},
	'forget the pace': (s) => {
		for (const key of Object.keys(s)) delete (s as Record<string, unknown>)[key];
		Object.assign(s, initialState());
	},
	'start the next cycle': (s, e: EventOf<'periodEnds'>) => {
		s.cleanCycles = cleanCyclesAfter(s);
		openCycle(s, e.at, spentWhole(s));
	},
	'wait for the window': (s, e: EventOf<'refused'>) => {
		learnt(s, e);
		const { due } = s.cycleStart!;
		// It begins after this send; a head again (the window is spent), else the period's end.
		s.edges = s.edges && laterThan(s.edges, e.sentAt);
		const at = s.edges ? Math.min(due!, headAt(s.edges, s.cycle!.budget, true)) : due!;
		startCycle(s, at, true);
		s.cycleStart!.due = due;
		s.headFirst = s.edges !== undefined;
		pause(s, at);
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
			s.probedFrom = s.cycleFirstSequence;
			s.cycleFirstSequence = s.sent + 1;
			s.probeFrom = s.probeAnchor;
			// The next window begins a window after the last at the earliest: probes start there,
			// fine, not from the last admission at the last resumption's wait, which may be
			// longer than a window (a window skipped: a period twice its length).
			const earliest = s.lastEdge && s.periodAtLeast && s.lastEdge.lo + s.periodAtLeast;
			if (earliest) {
				s.probeFrom = Math.max(e.at, earliest);
				s.probeMs = Math.max(MIN_PROBE_MS, s.periodAtLeast! / PROBE_STEPS_IN_PERIOD);
				s.guessedProbeMs = undefined;
			}
		}
		pause(s, Math.max(e.at, s.probeFrom! + nextProbeWait(s)));
	},
} satisfies Record<string, ActionFn>;

/** Every refusal learnt from. */
function learnt(s: Draft, e: Answered): void {
	const { sentAt } = e;
	// Refused within the budget of a window its edges say has begun: not such a window.
	if (s.edges && s.mode !== 'probing' && inBudget(s, e) && !startedEarly(s, e)) s.edges = undefined;
	s.sporadicAtPace = 0;
	// A limit is there: the kept pace is this execution's own from now on.
	s.kept = undefined;
	s.lastRefusedSentAt = Math.max(s.lastRefusedSentAt ?? sentAt, sentAt);
}

function admitted(s: Draft, { sequence, sentAt, at }: Answered): void {
	s.admissions = [...s.admissions.slice(-(ADMISSIONS_KEPT - 1)), sentAt];
	s.lastAdmittedSentAt = Math.max(s.lastAdmittedSentAt ?? sentAt, sentAt);
	if (sequence < s.cycleFirstSequence) {
		// An admission of the cycle being probed after, answered after its refusal: it counts.
		if (s.mode === 'probing' && sequence >= (s.probedFrom ?? Infinity)) s.admittedInCycle++;
		return;
	}
	if (s.mode === 'probing') resume(s, sequence, sentAt, at);
	else {
		s.admittedInCycle++;
		if (s.edges && !s.mode) openedWindow(s, at);
	}
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
	forgetPace(s);
	startCycle(s, now, false);
}

function forgetPace(s: Draft): void {
	s.edges = undefined;
	s.lastEdge = undefined;
	s.cycle = undefined;
	s.beforeGrowth = undefined;
	s.kept = undefined;
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
	// comes back in the time from it to the next start. Not where a probe found it: a cycle
	// that did not start at a resumption (from rest, or where a pace was forgotten) began with whatever the limit had
	// left, and one left in a window spent by the last execution held the next at 1 every 2.6 s
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
function resume(s: Draft, sequence: number, sentAt: number, answeredAt: number): void {
	s.mode = undefined;
	const resumedAfterMs = Math.max(MIN_PROBE_MS, sentAt - s.probeAnchor);
	s.resumedAfterMs = resumedAfterMs;
	const periodMs = s.cycle?.periodMs;
	const burst = s.admittedInCycle;
	const refusedAt = s.lastRefusedSentAt;
	// A window began after the cycle's start and before this refused send: at least this long.
	const startedAt = s.cycleStart?.at;
	s.periodAtLeast =
		refusedAt !== undefined && startedAt !== undefined && refusedAt > startedAt
			? refusedAt - startedAt
			: undefined;
	endCycle(s, sentAt, { nextSequence: sequence });
	if (refusedAt !== undefined && refusedAt < sentAt) {
		// A window began between the last refused send and this one's answer (not its send: the
		// request reaches the service later, by more than the clock can tell).
		const edge = { lo: refusedAt, hi: answeredAt };
		const { edges, lastEdge } = s;
		s.edges = edges ? advance(edges, edge) : lastEdge && fromTwo(lastEdge, edge);
		s.lastEdge = edge;
		if (s.edges) s.cycle!.periodMs = s.edges.period.hi;
	}
	s.cycleStart!.since = s.lastRefusedSentAt;
	s.sentInCycle = s.sent - sequence + 1;
	s.admittedInCycle = 1;
	if (s.probingAtGuess && periodMs === undefined && burst > 0) {
		// Admitted at the guessed wait: a bucket that gives back requests one by one (a window
		// gives back all at its end, which the guess, a share of a second, rarely reaches). Its
		// rate is taken as the burst per second, as the guess was. Not where nothing was admitted
		// before (a window spent by the last execution): that tells no burst, and the guess, a
		// whole second then, reaches a window's end.
		const budget = Math.max(1, Math.floor((resumedAfterMs * burst) / BURST_GUESS_MS));
		s.cycle = { budget, periodMs: resumedAfterMs };
		s.refills = true;
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

/**
 * A cycle's window opened: by the head's answer (a request reaches the service after its send
 * by more than the clock tells), once the cycle admits its budget (a head can be the last
 * window's leftover); without a head, by the cycle's first admission, telling nothing more.
 */
function openedWindow(s: Draft, answeredAt: number): void {
	if (s.admittedInCycle === 1 && s.headFirst) {
		s.headAdmittedAt = answeredAt;
		s.headFirst = false;
		return;
	}
	const head = s.headAdmittedAt;
	const budget = (s.beforeGrowth ?? s.cycle!).budget;
	if (head === undefined ? s.admittedInCycle !== 1 : s.admittedInCycle !== budget) return;
	s.edges = advance(s.edges!, { lo: -Infinity, hi: head ?? Infinity });
	s.headAdmittedAt = undefined;
	if (s.edges) s.cycle!.periodMs = s.edges.period.hi;
}

/**
 * A cycle at its period's end; `head`: the last spent its window, so the next one's first
 * answer tells where that begins. Windows that surely began meanwhile pass.
 */
function openCycle(s: Draft, at: number, head: boolean): void {
	const due =
		s.cycleStart && s.cycle?.periodMs !== undefined ? periodDue(s, s.cycleStart.at) : undefined;
	const edges = s.edges && catchUp(s.edges, at);
	const passed = edges !== s.edges;
	s.edges = edges;
	// Resumptions a window apart are those of one cycle and the next only.
	s.lastEdge = undefined;
	startCycle(s, at, true);
	s.cycleStart!.due = due;
	s.headFirst = head && edges !== undefined && !passed;
}

function startCycle(s: Draft, at: number, resumed: boolean): void {
	s.headFirst = false;
	s.headAdmittedAt = undefined;
	s.cycleStart = { at, resumed };
	s.cycleFirstSequence = s.sent + 1;
	s.sentInCycle = 0;
	s.admittedInCycle = 0;
	s.refusedInCycle = false;
	if (s.mode === 'ramping') s.mode = undefined;
}
