import { describe, expect, it } from 'vitest';

import { moveEdges, nextEdge } from '../../../../nodes/VoucherService/transport/pacingEdges';
import type { Edges } from '../../../../nodes/VoucherService/transport/pacingEdges';

/** The last edge within (900, 1000], the window 2.8 to 3.2 s long. */
const edges = (): Edges => ({
	...{ after: 900, by: 1_000, shortest: 2_800, longest: 3_200, nextAfter: -Infinity },
	...{ firstAfter: 900, firstBy: 1_000, windows: 0 },
});

describe('the edges of a fixed window', () => {
	it('bound the next edges from the last and the window’s length', () => {
		expect(nextEdge(edges())).toEqual({ after: 3_700, by: 4_200 });
		expect(nextEdge(edges(), 2)).toEqual({ after: 6_500, by: 7_400 });
		// A try refused at 4 s: the next edge comes later.
		expect(nextEdge({ ...edges(), nextAfter: 4_000 })).toEqual({ after: 4_000, by: 4_200 });
	});

	it('move on by one window at its latest time, and narrow the length over windows', () => {
		const e = edges();
		expect(moveEdges(e, 4_200)).toEqual({ passed: 1, holds: true });
		expect([e.after, e.by, e.windows]).toEqual([3_700, 4_200, 1]);
		// A try admitted at 6.9 s, after one refused at 6.8 s: the edge within (6.8, 6.9] s.
		e.nextAfter = 6_800;
		expect(moveEdges(e, 6_900, { after: 6_800, by: 6_900 })).toEqual({ passed: 1, holds: true });
		expect([e.after, e.by]).toEqual([6_800, 6_900]);
		// Two windows from (0.9, 1] s: 2.9 to 3 s long. As wide as that first, it is counted from.
		expect([e.shortest, e.longest]).toEqual([2_900, 3_000]);
		expect([e.firstAfter, e.firstBy, e.windows]).toEqual([900, 1_000, 2]);
		// A narrower one is counted from next.
		expect(moveEdges(e, 9_850, { after: 9_800, by: 9_850 }).passed).toBe(1);
		expect([e.firstAfter, e.firstBy, e.windows]).toEqual([9_800, 9_850, 0]);
	});

	it('count again from a window whose number of edges before it is not sure', () => {
		const e = edges();
		// 10 s is 2 or 3 windows on: the window's edge within (6.5, 10] s.
		expect(moveEdges(e, 10_000)).toEqual({ passed: 2, holds: true });
		expect([e.after, e.by, e.windows]).toEqual([6_500, 10_000, 0]);
	});

	it('may still be in the last window before the next edge’s latest time', () => {
		expect(moveEdges(edges(), 4_000).passed).toBe(0);
	});

	it('do not hold where they contradict themselves', () => {
		const e = { ...edges(), shortest: 3_000, longest: 3_000 };
		// The next edge within (3, 3.1] s cannot be 3 s after one within (0.9, 1] s.
		expect(moveEdges(e, 4_000, { after: 3_000, by: 3_100 }).holds).toBe(false);
	});
});
