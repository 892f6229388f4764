import { describe, expect, it } from 'vitest';

import { initialState } from '../../../../nodes/VoucherService/transport/pacingActions';
import { MAX_PROBE_MS, nextSendAt } from '../../../../nodes/VoucherService/transport/pacingState';
import type { PacingState } from '../../../../nodes/VoucherService/transport/pacingState';

const NOW = 1_700_000_000_000;

describe('the next cycle behind a fixed window whose edges are known', () => {
	// Six every 3 s; its cycle at NOW admitted whole.
	const paced = (next: { lo: number; hi: number }): PacingState => ({
		...initialState(),
		sent: 6,
		cycle: { budget: 6, periodMs: 3_000 },
		cycleStart: { at: NOW, resumed: true },
		sentInCycle: 6,
		admittedInCycle: 6,
		edges: {
			window: { lo: NOW - 100, hi: NOW },
			index: 1,
			anchor: { lo: NOW - 100, hi: NOW },
			anchorIndex: 1,
			period: { lo: 2_900, hi: 3_000 },
			next,
		},
	});

	it('starts where the next window may begin: its head halfway where half the span holds more than a request of the window', () => {
		// Half of 1,200 ms of a 3 s window holds 1.2 requests of six; half of 900 ms, 0.9: the
		// latest start.
		expect(nextSendAt(paced({ lo: NOW + 1_800, hi: NOW + 3_000 }), NOW).at - NOW).toBe(2_400);
		expect(nextSendAt(paced({ lo: NOW + 2_100, hi: NOW + 3_000 }), NOW).at - NOW).toBe(3_000);
	});

	it('starts no later than the period alone would', () => {
		// Edges that a rest widened: the latest start, 6 s on, is later than the period's end.
		const { at } = nextSendAt(paced({ lo: NOW + 2_800, hi: NOW + 6_000 }), NOW);
		expect(at - NOW).toBe(3_060);
	});

	it("sends a kept pace's trial where it lies in one window: not across a start, which takes the last window's leftover too", () => {
		const kept = { ...paced({ lo: NOW + 1_800, hi: NOW + 3_000 }), kept: 'pending' as const };
		// Not a head halfway (2,400 ms), which may fall in the last window: from the latest start.
		expect(nextSendAt(kept, NOW).at - NOW).toBe(3_000);
		// An execution that begins in the first half of the window begun by 3 s (1,800 + 1,450): now.
		expect(nextSendAt(kept, NOW + 3_100).at - NOW).toBe(3_100);
		// Past it, where the window after may begin (from 4,700 ms): from the latest it may.
		expect(nextSendAt(kept, NOW + 4_000).at - NOW).toBe(6_000);
		// 7.5 s on, past the half of the next (begun in 5,700 to 6,000 ms, by the anchor).
		expect(nextSendAt(kept, NOW + 7_500).at - NOW).toBe(9_000);
	});

	it("sends a trial's one request more once its budget is admitted: its answer alone is the verdict", () => {
		const trial: PacingState = {
			...paced({ lo: NOW + 2_100, hi: NOW + 3_000 }),
			kept: 'trial',
			cycle: { budget: 7, periodMs: 3_000 },
			beforeGrowth: { budget: 6, periodMs: 3_000 },
			unanswered: [6],
			admittedInCycle: 5,
			cycleFirstSequence: 1,
		};
		expect(nextSendAt(trial, NOW + 30).at - NOW).toBe(MAX_PROBE_MS);
		const admitted = { ...trial, unanswered: [], admittedInCycle: 6 };
		expect(nextSendAt(admitted, NOW + 30).at).toBeLessThanOrEqual(NOW + 30);
	});
});
