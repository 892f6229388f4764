/*
 * Where a fixed window that tells nothing begins, learnt from its answers (issue 41). A probe
 * admitted after a refused one shows a window began between their sends; two such, one window
 * apart, bound its length. Each later window's start is predicted from them, and a lone request
 * (the head) sent inside the prediction narrows it: refused, the window begins later; admitted
 * (the last window spent), it has begun. The length is bounded from the narrowest window seen
 * and the latest, so it grows more exact with every window between them. The pacing waits from
 * the latest a window may begin, never from before it, and a window that behaves otherwise
 * (a bucket, a limit shared with others) is told by a refusal the prediction does not allow.
 */

/** A time in (lo, hi]. */
export interface Span {
	readonly lo: number;
	readonly hi: number;
}

export interface WindowEdges {
	/** Where the latest window began, and how many windows after the first it is. */
	readonly window: Span;
	readonly index: number;
	/** The narrowest window seen: later ones are predicted from it too. */
	readonly anchor: Span;
	readonly anchorIndex: number;
	/** The window's length. */
	readonly period: Span;
	/** Where the next window begins. */
	readonly next: Span;
}

const width = (s: Span) => s.hi - s.lo;

/** A window `n` after `s`. */
const after = (s: Span, period: Span, n: number): Span => ({
	lo: s.lo + n * period.lo,
	hi: s.hi + n * period.hi,
});

function meet(a: Span, b: Span): Span | undefined {
	const lo = Math.max(a.lo, b.lo);
	const hi = Math.min(a.hi, b.hi);
	return lo < hi ? { lo, hi } : undefined;
}

/** Two windows, one after the other: undefined if they cannot be. */
export function fromTwo(first: Span, second: Span): WindowEdges | undefined {
	const period = meet(
		{ lo: second.lo - first.hi, hi: second.hi - first.lo },
		{ lo: 0, hi: Infinity },
	);
	if (!period) return undefined;
	const narrower = width(second) < width(first);
	return {
		window: second,
		index: 1,
		anchor: narrower ? second : first,
		anchorIndex: narrower ? 1 : 0,
		period,
		next: after(second, period, 1),
	};
}

/**
 * The next window, begun within `seen` (as much as is known of it: `next` itself if nothing
 * was): undefined where that cannot be.
 */
export function advance(edges: WindowEdges, seen: Span): WindowEdges | undefined {
	const window = meet(edges.next, seen);
	if (!window) return undefined;
	const index = edges.index + 1;
	const n = index - edges.anchorIndex;
	const period = meet(edges.period, {
		lo: Math.max(window.lo - edges.window.hi, (window.lo - edges.anchor.hi) / n),
		hi: Math.min(window.hi - edges.window.lo, (window.hi - edges.anchor.lo) / n),
	});
	if (!period) return undefined;
	// A narrower anchor, where it halves the width: the longer the span, the more exact the length.
	const anchored = width(window) < width(edges.anchor) / 2;
	const anchor = anchored ? window : edges.anchor;
	const anchorIndex = anchored ? index : edges.anchorIndex;
	const next = meet(after(window, period, 1), after(anchor, period, index + 1 - anchorIndex));
	return next && { window, index, anchor, anchorIndex, period, next };
}

/** The windows that surely began by `at` pass, telling nothing more (a rest, a slow source). */
export function catchUp(edges: WindowEdges, at: number): WindowEdges | undefined {
	let e: WindowEdges | undefined = edges;
	while (e && e.next.hi + e.period.hi <= at) e = advance(e, e.next);
	return e;
}

/** The next window's start, narrowed to begin after `sentAt` (a head refused there). */
export function laterThan(edges: WindowEdges, sentAt: number): WindowEdges | undefined {
	const next = meet(edges.next, { lo: sentAt, hi: Infinity });
	return next && { ...edges, next };
}

/**
 * When the next cycle's first request goes. A head (the last window spent, so its answer tells)
 * goes halfway into the next window's possible start where half that span holds more than one
 * request's share of a window: admitted, it gains that half; refused, it costs a request (and
 * the next head halves again). Otherwise the latest the window may begin.
 */
export function headAt(edges: WindowEdges, budget: number, head: boolean): number {
	const { next, period } = edges;
	const worthIt = head && (width(next) / 2) * (budget / period.hi) > 1;
	return worthIt ? (next.lo + next.hi) / 2 : next.hi;
}

/**
 * The earliest time from `at` in the first half of a window surely begun (from the latest its
 * start may be to half its least length after the earliest), two windows on at most: requests
 * sent from there lie in that window alone. Undefined where the starts are too unsure for one.
 */
export function inOneWindow(edges: WindowEdges, at: number): number | undefined {
	const e = catchUp(edges, at);
	for (let n = 0; e && n <= 2; n++) {
		const start = after(e.next, e.period, n);
		const half = start.lo + e.period.lo / 2;
		if (start.hi <= half && at <= half) return Math.max(at, start.hi);
	}
	return undefined;
}
