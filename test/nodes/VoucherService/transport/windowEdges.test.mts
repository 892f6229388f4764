import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
	advance,
	catchUp,
	fromTwo,
	headAt,
	inOneWindow,
	laterThan,
} from '../../../../nodes/VoucherService/transport/windowEdges';
import type { WindowEdges } from '../../../../nodes/VoucherService/transport/windowEdges';

// Windows of 3 s starting at 1,000 ms: 1,000, 4,000, 7,000 …
const edges = fromTwo({ lo: 900, hi: 1_200 }, { lo: 3_950, hi: 4_100 })!;

describe("a fixed window's edges", () => {
	it('bound its length by two windows one after the other, and predict the next', () => {
		expect(edges.period).toEqual({ lo: 2_750, hi: 3_200 });
		expect(edges.next).toEqual({ lo: 6_700, hi: 7_300 });
		expect(edges.anchor).toEqual({ lo: 3_950, hi: 4_100 });
		// A second window before the first cannot be.
		expect(fromTwo({ lo: 3_950, hi: 4_100 }, { lo: 900, hi: 1_200 })).toBeUndefined();
	});

	it('narrow the length from the anchor over every window since, not only the last', () => {
		let e: WindowEdges | undefined = edges;
		for (const start of [7_000, 10_000, 13_000, 16_000])
			e = advance(e!, { lo: start - 10, hi: start + 10 });
		expect(e!.period.hi - e!.period.lo).toBeLessThan(60);
		expect(e!.period.lo).toBeLessThanOrEqual(3_000);
		expect(e!.period.hi).toBeGreaterThanOrEqual(3_000);
		expect(e!.next.lo).toBeLessThanOrEqual(19_000);
		expect(e!.next.hi).toBeGreaterThanOrEqual(19_000);
	});

	it('are given up where a window opens outside the prediction', () => {
		expect(advance(edges, { lo: 7_400, hi: 7_500 })).toBeUndefined();
	});

	it('narrow the next start by a head refused, and are given up where it is refused after the latest start', () => {
		expect(laterThan(edges, 7_000)!.next).toEqual({ lo: 7_000, hi: 7_300 });
		expect(laterThan(edges, 7_300)).toBeUndefined();
	});

	it('pass the windows that surely began during a rest', () => {
		const later = catchUp(edges, 20_000)!;
		expect(later.index).toBeGreaterThan(edges.index);
		expect(later.next.hi + later.period.hi).toBeGreaterThan(20_000);
		expect(catchUp(edges, 7_000)).toBe(edges);
	});

	it('send a head halfway only where half the span holds more than one request of the window', () => {
		// Half of 600 ms is 0.094 of a 3.2 s window: more than a request at 11 a window, not at 10.
		expect(headAt(edges, 11, true)).toBe(7_000);
		expect(headAt(edges, 10, true)).toBe(7_300);
		expect(headAt(edges, 300, false)).toBe(7_300);
	});

	it('place requests in the first half of a window surely begun, or say there is none', () => {
		// The next window begins in (6,700, 7,300], the one after it not before 9,450.
		expect(inOneWindow(edges, 6_000)).toBe(7_300);
		expect(inOneWindow(edges, 7_500)).toBe(7_500);
		// Past 6,700 + 2,750 / 2: the window after, begun by 10,500, until 9,450 + 1,375.
		expect(inOneWindow(edges, 8_100)).toBe(10_500);
		// A length known within 2 to 4 s: a start is never sure before half the least length.
		const unsure = fromTwo({ lo: 0, hi: 1_000 }, { lo: 3_000, hi: 4_000 })!;
		expect(inOneWindow(unsure, 5_000)).toBeUndefined();
	});
});

describe("a fixed window's edges, searched", () => {
	/*
	 * Windows of any length and phase, and what the pacing sees of them: resumptions (a refused
	 * send, then an admitted one, around a start), heads refused or admitted, cycles without a
	 * head, rests. The edges must always hold the true start and length, so that the latest start
	 * they give (a cycle without a head) is never early.
	 */
	it('always hold the true window, whatever the pacing sees', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 200, max: 60_000 }),
				fc.double({ min: 0, max: 1, noNaN: true }),
				fc.array(
					fc.oneof(
						fc.record({
							kind: fc.constant('head' as const),
							at: fc.double({ min: 0, max: 1, noNaN: true }),
						}),
						fc.record({ kind: fc.constant('latest' as const) }),
						fc.record({
							kind: fc.constant('rest' as const),
							windows: fc.integer({ min: 1, max: 20 }),
						}),
					),
					{ maxLength: 40 },
				),
				fc.tuple(
					fc.double({ min: 0.001, max: 1, noNaN: true }),
					fc.double({ min: 0.001, max: 1, noNaN: true }),
					fc.double({ min: 0.001, max: 1, noNaN: true }),
					fc.double({ min: 0.001, max: 1, noNaN: true }),
				),
				(period, phase, steps, [a, b, c, d]) => {
					const startOf = (k: number) => 1_000_000 + phase * period + k * period;
					// Resumptions around windows 0 and 1, each from a refused send before to an admitted one after.
					let e = fromTwo(
						{ lo: startOf(0) - a * period, hi: startOf(0) + b * period * 0.49 },
						{ lo: startOf(1) - c * period * 0.49, hi: startOf(1) + d * period * 0.49 },
					);
					let k = 1;
					const holds = () => {
						expect(e).toBeDefined();
						expect(e!.period.lo).toBeLessThanOrEqual(period);
						expect(e!.period.hi).toBeGreaterThanOrEqual(period);
						expect(e!.next.lo).toBeLessThanOrEqual(startOf(k + 1));
						expect(e!.next.hi).toBeGreaterThanOrEqual(startOf(k + 1));
					};
					holds();
					// A time from inOneWindow lies in the first half of a true window.
					const inOne = (at: number) => {
						const sure = inOneWindow(e!, at);
						if (sure === undefined) return;
						const since = (sure - startOf(0)) % period;
						expect(sure).toBeGreaterThanOrEqual(at);
						expect(since).toBeLessThan(period / 2);
					};
					for (const step of steps) {
						inOne(e!.window.lo + (step.kind === 'head' ? step.at : 0.5) * period);
						if (step.kind === 'rest') {
							// Resting until some time into a later window.
							const at = startOf(k + step.windows) + period / 2;
							const before = e!.index;
							e = catchUp(e!, at);
							k += e!.index - before;
							holds();
							continue;
						}
						// A head within the prediction: refused before the start, admitted from it.
						const time =
							step.kind === 'head' ? e!.next.lo + step.at * (e!.next.hi - e!.next.lo) : e!.next.hi;
						if (time < startOf(k + 1)) {
							e = laterThan(e!, time);
						} else {
							e = advance(e!, { lo: -Infinity, hi: step.kind === 'head' ? time : Infinity });
							k++;
						}
						holds();
					}
				},
			),
			{ seed: 41, numRuns: 500 },
		);
	});
});
