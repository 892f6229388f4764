import { createHash } from 'crypto';

import { RoutePaces } from './routePaces';

/*
 * Executions running at once in this process with one account of one service (base URL and a
 * hash of the public key, never the key) share one RoutePaces: one limit behind both, learnt
 * apart, had one take the window at each edge and the other learn one request every few
 * seconds (two paged runs at once behind 10 a second took 58 s; sharing, 11 s). Shared, they are
 * one client to the limit. Each execution keeps its own limit on requests in flight, and each
 * queue-mode worker its own paces.
 *
 * When the last execution ends, a pace learnt from admissions alone is kept PACE_LIFETIME_MS
 * from its last request, as a hint for the next (issue 41): behind a fixed window without
 * headers each execution learnt the limit again, refusing 6-38 % of its requests. It decides
 * only when a request goes, never whether, and its next cycle sends one more to find a limit
 * lifted since (ratePacing.ts).
 */

/*
 * A pace no execution has sent on or been answered through for this long is not joined: its
 * executions ended without saying so (stopped, say). Longer than any wait the pacing holds.
 */
export const IDLE_MS = 120_000;

/** How long a pace is kept after its last request once its executions ended. */
export const PACE_LIFETIME_MS = 600_000;

/** The most paces kept with no execution on them; the oldest goes first. */
export const MAX_KEPT = 100;

interface Entry {
	paces: RoutePaces;
	users: number;
}

const entries = new Map<string, Entry>();

export function paceKey(baseUrl: string, publicKey: string): string {
	return `${baseUrl} ${createHash('sha256').update(publicKey).digest('hex')}`;
}

/** The paces of this account, shared with the executions at once; `leave` when done. */
export function joinPaces(key: string, now: () => number): { paces: RoutePaces; leave(): void } {
	let entry = entries.get(key);
	const lifetime = entry?.users ? IDLE_MS : PACE_LIFETIME_MS;
	if (!entry || now() - entry.paces.lastActiveAt() > lifetime) {
		entry = { paces: new RoutePaces(now), users: 0 };
		entries.set(key, entry);
	}
	const joined = entry;
	joined.users++;
	let left = false;
	return {
		paces: joined.paces,
		leave() {
			if (left) return;
			left = true;
			if (--joined.users > 0 || entries.get(key) !== joined) return;
			entries.delete(key);
			if (joined.paces.rest()) keep(key, joined);
		},
	};
}

/** Kept as the newest, dropping the oldest kept beyond MAX_KEPT. */
function keep(key: string, entry: Entry): void {
	entries.set(key, entry);
	const kept = [...entries].filter(([, { users }]) => users === 0);
	for (const [old] of kept.slice(0, Math.max(0, kept.length - MAX_KEPT))) entries.delete(old);
}
