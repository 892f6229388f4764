import type { FaultKind, FaultOptions } from './types.mts';

/** mulberry32: tiny, seedable, good enough to make fault runs reproducible. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const ORDER: ReadonlyArray<[FaultKind, keyof FaultOptions]> = [
	['rateLimit', 'rateLimitRate'],
	['error', 'errorRate'],
	['reset', 'resetRate'],
	['commitThenDrop', 'commitThenDropRate'],
	['commitThen500', 'commitThen500Rate'],
];

export type FaultRoller = (path: string) => FaultKind | null;

/**
 * One draw per matching request, split into consecutive bands by rate, so the
 * rates are exclusive probabilities and a seed replays the same fault sequence.
 */
export function createFaultRoller(options: FaultOptions = {}): FaultRoller {
	const next = prng(options.seed ?? 1);
	const prefixes = options.paths ?? ['/v2'];
	return (path) => {
		if (!prefixes.some((p) => path.startsWith(p))) return null;
		const draw = next();
		let upper = 0;
		for (const [kind, rate] of ORDER) {
			upper += (options[rate] as number | undefined) ?? 0;
			if (draw < upper) return kind;
		}
		return null;
	};
}
