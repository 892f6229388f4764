import { ACTIONS, draftOf, initialState, PROBE_GROWTH } from './pacingActions';
import {
	always,
	beyondBudget,
	budgetTooLarge,
	confirms,
	grown,
	growsNow,
	inWindow,
	keepable,
	keptCutShort,
	keptToTry,
	later,
	newest,
	ofAnotherCycle,
	ofThisCycle,
	probeAlone,
	retrialAdmitted,
	retryAfter,
	startedEarly,
	toTell,
	trialAdmitted,
} from './pacingConditions';
import type { ActionFn, Draft } from './pacingActions';
import { nextSendAt, periodEnd, phaseOf, told } from './pacingState';
import type { Kind, Outcome, PacingEvent, PacingState, Phase } from './pacingState';
import type { RateHints } from './rateHints';

/*
 * The pacing of one node execution by time, beside AdaptiveConcurrency's limit on requests in
 * flight, as a state machine. Until the service refuses or tells a limit it costs nothing; then
 * it keeps to what the service admits, learnt from what it says (Retry-After; Remaining and Reset,
 * "the window"), else from when it admits again. Every request waits for the pace.
 */

/** The named states (the docs describe each with these words; a test holds them to it). */
export const STATES = {
	free: 'sends at once',
	telling: 'waits for the answers after a refusal',
	probing: `sends lone probes, each wait ${PROBE_GROWTH} times longer`,
	ramping: 'doubles its sends per admission',
	paced: "sends a cycle's budget, then waits out its period",
} as const satisfies Record<Phase, string>;

/*
 * The transitions: the first row whose state (`from`, "any", or several parted by "|"), event
 * and condition match applies its action; `to` names the state that follows ("same": as it was).
 * Timers are looked at when a request is sent; a hint comes before its answer.
 */
export const TRANSITIONS = [
	// [from, event, condition, to, action]
	['any', 'windowEnds', always, 'same', 'open the window'],
	// A pace kept from executions that ended (sharedPaces.ts) looks for a limit lifted since.
	['paced', 'rest', keepable, 'paced', 'keep the pace'],
	['any', 'rest', always, 'free', 'forget the pace'],
	['paced', 'periodEnds', keptToTry, 'paced', 'try one more'],
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
	['paced', 'admitted', retrialAdmitted, 'free', 'forget the kept pace'],
	['paced', 'admitted', trialAdmitted, 'paced', 'raise the kept pace'],
	['any', 'admitted', always, 'same', 'count the admission'],
	['any', 'unanswered', always, 'same', 'none'],
	['free|ramping|paced', 'refused', toTell, 'telling', 'tell it apart'],
	['any', 'refused', retryAfter, 'same|paced', 'wait Retry-After'],
	['any', 'refused', inWindow, 'same', 'spend the window'],
	['any', 'refused', ofAnotherCycle, 'same', 'note the refusal'],
	['paced', 'refused', startedEarly, 'paced', 'wait for the window'],
	['paced', 'refused', beyondBudget, 'paced', 'note the refusal'],
	['paced', 'refused', keptCutShort, 'free', 'forget the kept pace, learn again'],
	['any', 'refused', grown, 'paced', 'undo the growth'],
	['ramping', 'refused', probeAlone, 'paced', 'one per probe wait'],
	['any', 'refused', budgetTooLarge, 'paced', 'cut the budget'],
	['any', 'refused', always, 'probing', 'probe later'],
] as const satisfies readonly Row[];

type Row = readonly [from: string, on: Kind, when: Condition, to: string, action: string];
type Condition = (s: PacingState, e: never) => boolean;

export type Action = (typeof TRANSITIONS)[number][4];

/** Every action the table names has its function. */
const BY_NAME: Record<Action, ActionFn> = ACTIONS;

const ANY: readonly Phase[] = ['free', 'telling', 'probing', 'ramping', 'paced'];

/** The states a row's `from` or `to` names. */
export const phasesIn = (names: string, same: readonly Phase[] = ANY) =>
	names.split('|').flatMap((name) => (name === 'any' || name === 'same' ? same : [name as Phase]));

const FROM = TRANSITIONS.map(([from]) => new Set(phasesIn(from)));

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
	const next = (BY_NAME[action] as (s: Draft, e: PacingEvent) => PacingEvent | void)(s, event);
	if (next) decide(s, next, actions);
}

/** Holds the pacing's state and its clock; every decision is the table's. */
export class RatePacing {
	private state = initialState();

	constructor(private readonly now: () => number = Date.now) {}

	told(): boolean {
		return told(this.state);
	}

	/** The executions on this pace ended: whether it is kept for the next (see the table). */
	rest(): boolean {
		this.state = step(this.state, { kind: 'rest', at: this.now() }).state;
		return this.state.kept !== undefined;
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
