/**
 * A faster clock for the simulator: while a case runs, `Date.now` goes `factor` times faster
 * and every `setTimeout` waits `factor` times less. The node's backoffs, polls, wait timeouts,
 * rate pacing and patience, and the sandbox's processing delays and rate limits, all read this
 * one clock, so they keep their proportions to each other: the world is a service whose
 * answers take `factor` times longer, seen at `factor` times the speed. HTTP itself stays real
 * (loopback, no timers of ours), which is what makes a case of minutes of node time finish in
 * milliseconds.
 */
const realSetTimeout = globalThis.setTimeout;
const realDateNow = Date.now;

let active = 0;

/** Runs `body` on a clock `factor` times faster; nested or parallel calls share the first clock. */
export async function warped<T>(factor: number, body: () => Promise<T>): Promise<T> {
	if (active++ === 0) install(factor);
	try {
		return await body();
	} finally {
		if (--active === 0) uninstall();
	}
}

function install(factor: number): void {
	const realStart = performance.now();
	const warpedStart = realDateNow();
	Date.now = () => Math.floor(warpedStart + (performance.now() - realStart) * factor);
	globalThis.setTimeout = ((
		handler: (...args: unknown[]) => void,
		ms?: number,
		...args: unknown[]
	) =>
		realSetTimeout(handler, Math.max(0, (Number(ms) || 0) / factor), ...args)) as typeof setTimeout;
}

function uninstall(): void {
	Date.now = realDateNow;
	globalThis.setTimeout = realSetTimeout;
}
