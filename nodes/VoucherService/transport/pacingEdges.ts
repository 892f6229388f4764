/**
 * Where a fixed window's edges fall, learnt where the answers look like one (see
 * pacingActions' windowLike): an edge lies between a refused send and the next admitted one, and
 * the edges repeat every window, of a length between `shortest` and `longest`. All bounds are
 * safe ones: a cycle sent at an edge's latest time meets a fresh window.
 */
export interface Edges {
	/** The edge that began the current cycle's window lies within (after, by]. */
	after: number;
	by: number;
	/** The bounds of the window's length. */
	shortest: number;
	longest: number;
	/** An edge `windows` before the current cycle's lay within (firstAfter, firstBy]. */
	firstAfter: number;
	firstBy: number;
	windows: number;
	/** The next edge comes after this (a try refused). */
	nextAfter: number;
}

/** The bounds of the edge `k` windows after the current cycle's: within (after, by]. */
export function nextEdge(e: Edges, k = 1): { after: number; by: number } {
	const after = e.after + k * e.shortest;
	return { after: k === 1 ? Math.max(after, e.nextAfter, e.by) : after, by: e.by + k * e.longest };
}

/**
 * Moves the edges on to the window of a cycle starting at `at` (`tried`: the bounds a try's
 * admission showed for the next edge): how many edges surely passed (2 stands for more), and
 * whether they still hold (ones that contradict themselves are not a fixed window's). Where it
 * is not sure how many passed, they count again from that window's.
 */
export function moveEdges(
	e: Edges,
	at: number,
	tried?: { after: number; by: number },
): { passed: number; holds: boolean } {
	const passedAtLeast = tried ? 1 : Math.max(0, Math.floor((at - e.by) / e.longest));
	const passedAtMost =
		at <= nextEdge(e).after
			? 0
			: e.shortest > 0
				? Math.max(1, Math.ceil((at - e.after) / e.shortest) - 1)
				: Infinity;
	const sure = passedAtLeast === passedAtMost;
	const bracket = {
		after: passedAtLeast === 0 ? e.after : nextEdge(e, passedAtLeast).after,
		by: Math.min(at, sure ? nextEdge(e, passedAtMost).by : at),
	};
	if (tried) {
		bracket.after = Math.max(bracket.after, tried.after);
		bracket.by = Math.min(bracket.by, tried.by);
	}
	e.windows = sure ? e.windows + passedAtLeast : 0;
	[e.after, e.by, e.nextAfter] = [bracket.after, bracket.by, -Infinity];
	if (e.windows > 0) {
		e.shortest = Math.max(e.shortest, (e.after - e.firstBy) / e.windows);
		e.longest = Math.min(e.longest, (e.by - e.firstAfter) / e.windows);
	}
	if (e.windows === 0 || e.by - e.after < e.firstBy - e.firstAfter)
		[e.firstAfter, e.firstBy, e.windows] = [e.after, e.by, 0];
	return { passed: Math.min(passedAtLeast, 2), holds: e.shortest <= e.longest && e.after < e.by };
}
