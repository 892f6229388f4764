import { describe, expect, it } from 'vitest';

import { initialState } from '../../../../nodes/VoucherService/transport/pacingActions';
import { nextSendAt } from '../../../../nodes/VoucherService/transport/pacingState';
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
});
