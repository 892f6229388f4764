import { onTrial, phaseOf, sentAfter, told } from './pacingState';
import type { Answered, EventOf, PacingState } from './pacingState';

/*
 * The conditions of the pacing's transitions (the table is in ratePacing.ts): each reads the
 * state and the event, and changes nothing.
 */

/*
 * A refusal is learnt from once this many requests sent after it are refused too (or all of
 * them, if fewer are in flight); one admitted shows it sporadic. Two refusals in a row come
 * at random once in a hundred at a tenth refused, three once in a thousand.
 */
const REFUSALS_TO_CONFIRM = 3;

/*
 * A pace learnt from admissions alone (no Retry-After, no Remaining) is kept for the next
 * executions (sharedPaces.ts) if its period is at most this, and its budget more than one: a
 * longer period, or one request per probe wait, came from a slow cycle or a guess more likely
 * than from a limit, and would slow every later execution; a limit lifted costs up to two
 * periods to find.
 */
export const MAX_KEPT_PERIOD_MS = 10_000;

export function always() {
	return true;
}

export function ofAnotherCycle(s: PacingState, e: Answered) {
	return !ofThisCycle(s, e);
}

/** A pace worth keeping for the next executions (MAX_KEPT_PERIOD_MS). */
export function keepable(s: PacingState) {
	const periodMs = s.cycle?.periodMs;
	return (
		phaseOf(s) === 'paced' &&
		periodMs !== undefined &&
		periodMs <= MAX_KEPT_PERIOD_MS &&
		s.cycle!.budget > 1 &&
		!told(s) &&
		!s.retryAfterSeen &&
		!s.refills
	);
}

// Where its cycle goes, nextSendAt says.
export { keptToTry } from './pacingState';

/** The last of a kept pace's cycle with one request more is admitted. */
export function trialAdmitted(s: PacingState, e: Answered) {
	const { budget } = s.cycle!;
	const full = s.sentInCycle >= budget && s.admittedInCycle + 1 >= budget;
	return onTrial(s) && ofThisCycle(s, e) && !s.refusedInCycle && full;
}

/**
 * A kept pace refused before its cycle admitted its budget: the window was spent (by the last
 * execution, another client) or the limit is lower. Either way one cycle cannot tell the budget.
 */
export function keptCutShort(s: PacingState, e: Answered) {
	return s.kept !== undefined && inBudget(s, e);
}

/** The same, for the second time: no limit is there. */
export function retrialAdmitted(s: PacingState, e: Answered) {
	return s.kept === 'retrial' && trialAdmitted(s, e);
}

/**
 * Refused within its budget in a cycle the edges started before its period's end: the window
 * had not begun (or its head was the last one's leftover), which says nothing of the budget.
 */
export function startedEarly(s: PacingState, e: Answered) {
	const start = s.cycleStart;
	const early = start?.due !== undefined && start.at < start.due;
	return early && !s.mode && inBudget(s, e);
}

/** By its place in the cycle, not by the answers in so far: a refusal can overtake them. */
export function inBudget(s: PacingState, e: Answered) {
	const budget = (s.beforeGrowth ?? s.cycle)?.budget ?? 0;
	return ofThisCycle(s, e) && e.sequence - s.cycleFirstSequence < budget;
}

/**
 * Refused beyond the cycle's budget: another of a growth already undone. Taken for a refusal
 * within the budget, it cut the budget to what was admitted when it came (56 of 60, answers
 * overtaken).
 */
export function beyondBudget(s: PacingState, e: Answered) {
	return !s.mode && s.cycle !== undefined && ofThisCycle(s, e) && !inBudget(s, e) && !grown(s);
}

export function grown(s: PacingState) {
	return s.beforeGrowth !== undefined;
}

export function growsNow(s: PacingState): boolean {
	return !s.retryAfterSeen && cleanCyclesAfter(s) >= s.cyclesToGrow;
}

/** Counts the cycle that ends: sent in full and admitted in full, with no refusal. */
export function cleanCyclesAfter(s: PacingState): number {
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
export function tellsRate(s: PacingState) {
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
