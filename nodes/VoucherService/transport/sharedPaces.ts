import { createHash } from 'crypto';

import { RoutePaces } from './routePaces';

/*
 * Executions running at once in this process with one account of one service (base URL and a
 * hash of the public key, never the key) share one RoutePaces: one limit behind both, learnt
 * apart, had one take the window at each edge and the other learn one request every few
 * seconds (two paged runs at once behind 10 a second took 58 s; sharing, 11 s). Shared, they are
 * one client to the limit. Each execution keeps its own limit on requests in flight, and each
 * queue-mode worker its own paces. Nothing is kept once the last execution ends: a limit raised
 * meanwhile is met fresh.
 */

/*
 * A pace no execution has sent on or been answered through for this long is not joined: its
 * executions ended without saying so (stopped, say). Longer than any wait the pacing holds.
 */
export const IDLE_MS = 120_000;

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
	if (!entry || now() - entry.paces.lastActiveAt() > IDLE_MS) {
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
			if (--joined.users === 0 && entries.get(key) === joined) entries.delete(key);
		},
	};
}
