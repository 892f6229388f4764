// The pure parts of bench/queue.mts, kept apart so a unit test
// (test/bench/queuePlan.test.mts) can check them without a cluster: which
// process each copy of an event goes to, and the exactly-once tally.

export interface PlannedDelivery {
	/** Index of the event. */
	event: number;
	/** Index of the webhook process. */
	target: number;
}

/**
 * Every event `copies` times, copy c to process (event + c) mod `processes`: with as many
 * copies as processes, one copy to each, and each process takes first copies in turn. The
 * copies of one event are next to each other in the plan, so they are in flight together,
 * as the service's copies of an event arrive.
 */
export function deliveryPlan(events: number, processes: number, copies = processes): PlannedDelivery[] {
	if (processes < 1 || copies < 1) throw new Error('deliveryPlan needs at least one process and one copy');
	const plan: PlannedDelivery[] = [];
	for (let event = 0; event < events; event++) {
		for (let copy = 0; copy < copies; copy++) plan.push({ event, target: (event + copy) % processes });
	}
	return plan;
}

export interface RunTally {
	/** Events that ran exactly `perEvent` times. */
	exact: number;
	/** Events that never ran. */
	missing: string[];
	/** Events that ran more than `perEvent` times, with how often. */
	over: Array<[id: string, runs: number]>;
	/** Events that ran at least once but fewer than `perEvent` times. */
	under: Array<[id: string, runs: number]>;
	/** Runs of ids that were never sent. */
	unknown: string[];
}

/** How often each of `expected` ran, given one id per run in `ran`, against `perEvent` runs each. */
export function tallyRuns(expected: string[], ran: string[], perEvent = 1): RunTally {
	const runs = new Map<string, number>(expected.map((id) => [id, 0]));
	const unknown: string[] = [];
	for (const id of ran) {
		const n = runs.get(id);
		if (n === undefined) unknown.push(id);
		else runs.set(id, n + 1);
	}
	const tally: RunTally = { exact: 0, missing: [], over: [], under: [], unknown };
	for (const [id, n] of runs) {
		if (n === perEvent) tally.exact++;
		else if (n === 0) tally.missing.push(id);
		else if (n > perEvent) tally.over.push([id, n]);
		else tally.under.push([id, n]);
	}
	return tally;
}

/** "none", or the count and the first few ids (with their runs). */
export function listSome(items: Array<string | [string, number]>, max = 10): string {
	if (items.length === 0) return 'none';
	const shown = items.slice(0, max).map((x) => (typeof x === 'string' ? x : `${x[0]} ×${x[1]}`));
	return `${items.length}: ${shown.join(', ')}${items.length > max ? ', …' : ''}`;
}
