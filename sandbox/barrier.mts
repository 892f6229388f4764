import type { CreateBarrier } from './types.mts';

/** How long a held create waits for the others when the option does not say. */
export const DEFAULT_BARRIER_TIMEOUT_MS = 10_000;

/** The creates the barrier may hold: both order endpoints. */
export const isCreate = (method: string, path: string) =>
	method === 'POST' && (path === '/v2/orders' || path === '/v2/orders/recipients');

/**
 * A create's way past the barrier: `null` to go on, or a refusal to answer instead (the
 * barrier gave up, or was reset).
 */
export type Passage = Promise<string | null>;

export interface CreateGate {
	/** Arms the barrier, or disarms it with null; either lets what it holds go first. */
	set(barrier: CreateBarrier | null): void;
	/** For a create: null when it may go on now, or its passage. */
	admit(reference: unknown): Passage | null;
	/** Disarms it and refuses what it holds (reset: the runs it held are gone). */
	refuseHeld(why: string): void;
}

/**
 * Makes a race certain instead of likely: creates are held until `creates` of them wait, then
 * go on in the order they came. A run creates only after it has read, so each run holding a
 * create here has read. It fires once; set it again for another race. Past `timeoutMs` from
 * the first create held, every held create is refused, so a race that never comes fails
 * loudly instead of hanging.
 */
export function createGate(): CreateGate {
	let armed: CreateBarrier | null = null;
	let held: Array<(refusal: string | null) => void> = [];
	let deadline: ReturnType<typeof setTimeout> | undefined;

	function open(refusal: string | null): void {
		clearTimeout(deadline);
		deadline = undefined;
		const waiting = held;
		held = [];
		armed = null;
		// Resolved in arrival order, awaited at one depth: they go on in that order.
		for (const go of waiting) go(refusal);
	}

	return {
		set(barrier) {
			open(null);
			armed = barrier;
		},
		admit(reference) {
			if (!armed) return null;
			if (armed.reference !== undefined && armed.reference !== reference) return null;
			const { creates, timeoutMs = DEFAULT_BARRIER_TIMEOUT_MS } = armed;
			const passage: Passage = new Promise((go) => held.push(go));
			if (held.length >= creates) {
				open(null);
			} else if (deadline === undefined) {
				const target = armed.reference === undefined ? '' : ` of ${armed.reference}`;
				deadline = setTimeout(() => {
					open(
						`Sandbox createBarrier: ${held.length} of ${creates} creates${target} came within ${timeoutMs} ms; nothing was committed`,
					);
				}, timeoutMs);
			}
			return passage;
		},
		refuseHeld(why) {
			open(why);
		},
	};
}
