import { createHash } from 'crypto';

import type { Pace, Remembered } from './pacingState';

/*
 * The pace an execution learnt, kept in this process's memory per service (base URL) and account
 * (a hash of the public key, never the key) for the next execution to start at. A hint only: the
 * next execution goes on learning from it as from a pace of its own (clean cycles grow it, a
 * refusal at it is learnt from, sporadic ones make it forgotten, and the service's Retry-After or
 * Reset replaces it), and it only chooses when a request goes, never whether an order is placed.
 * Only a pace learnt from when admissions resumed is kept (see RatePacing.learnt): a service that
 * says when to come back says it again next time. Each process (each queue-mode worker) learns on
 * its own.
 */

/*
 * Long enough for a workflow run every few minutes to start at the pace the last run learnt;
 * short enough that a limit the service raised holds runs to the old pace, which grows only
 * after clean cycles, for at most ten minutes after it was last refused at.
 */
export const PACE_LIFETIME_MS = 10 * 60_000;

/*
 * A pace with a longer period is not kept: it grows the slowest (growth counts cycles), so a
 * stale one would hold the next execution back the longest, and cut short it would be refused.
 */
export const MAX_REMEMBERED_PERIOD_MS = 10_000;

/*
 * One request a cycle is also what a storm teaches (a gateway refusing creates a few times while
 * look-ups pass), with no limit behind it; kept, it held the next executions to a request every
 * few seconds. A limit of one a second learnt so is learnt again each execution.
 */
export const MIN_REMEMBERED_BUDGET = 2;

/** One entry per service and account in this process; far above any real instance. */
export const MAX_PACES = 100;

const paces = new Map<string, { pace: Remembered; at: number }>();

const rateOf = (pace: Pace) => pace.budget / pace.periodMs!;

const copyOf = (pace: Remembered): Remembered => ({
	...pace,
	edges: pace.edges && { ...pace.edges },
});

export function paceKey(baseUrl: string, publicKey: string): string {
	return `${baseUrl} ${createHash('sha256').update(publicKey).digest('hex')}`;
}

/** The pace last learnt for this key within PACE_LIFETIME_MS, if any. */
export function recallPace(key: string, now = Date.now()): Remembered | undefined {
	const kept = paces.get(key);
	if (kept && now - kept.at < PACE_LIFETIME_MS) return copyOf(kept.pace);
	paces.delete(key);
	return undefined;
}

/** Keeps the pace an execution learnt for this key; none, or one not worth keeping, forgets it. */
export function rememberPace(key: string, pace: Remembered | undefined, now = Date.now()): void {
	const kept = paces.get(key);
	// Set again at the end: the entry learnt longest ago goes first.
	paces.delete(key);
	if (pace?.periodMs === undefined || pace.periodMs > MAX_REMEMBERED_PERIOD_MS) return;
	if (pace.budget < MIN_REMEMBERED_BUDGET) return;
	// A pace that grew, or only moved on to a later window, was refused at no more: its lifetime
	// runs on from the pace it came from.
	const grew = kept !== undefined && rateOf(pace) > rateOf(kept.pace);
	const samePace = pace.budget === kept?.pace.budget && pace.periodMs === kept.pace.periodMs;
	const movedOn = samePace && (pace.edges?.by ?? 0) > (kept!.pace.edges?.by ?? Infinity);
	paces.set(key, { pace: copyOf(pace), at: grew || movedOn ? kept!.at : now });
	for (const oldest of paces.keys()) {
		if (paces.size <= MAX_PACES) break;
		paces.delete(oldest);
	}
}
