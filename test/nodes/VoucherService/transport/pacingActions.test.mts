import { describe, expect, it } from 'vitest';

import { initialState } from '../../../../nodes/VoucherService/transport/pacingActions';
import type { Pace, PacingState } from '../../../../nodes/VoucherService/transport/pacingState';
import { step } from '../../../../nodes/VoucherService/transport/ratePacing';

const NOW = 1_700_000_000_000;

/**
 * Probing since a cycle at `kept` was refused before anything in it was admitted; its probe,
 * sent now, is out. The cycle started `periodMs` ago, at the resumption before.
 */
function probingAfter(kept: Pace, periodMs: number): PacingState {
	return {
		...initialState(),
		sent: 20,
		unanswered: [20],
		mode: 'probing',
		cycle: kept,
		cycleStart: { at: NOW - periodMs, resumed: true },
		cycleFirstSequence: 12,
		sentInCycle: 9,
		admissions: [NOW - periodMs - 100],
		lastAdmittedSentAt: NOW - periodMs - 100,
		probeAnchor: NOW - periodMs - 100,
		probeInFlight: { sequence: 20, sentAt: NOW },
	};
}

const admitted = { kind: 'admitted', sequence: 20, sentAt: NOW, at: NOW + 25, hints: {} } as const;

describe('a probe admitted where nothing in the refused cycle was', () => {
	it('keeps the rate of a pace learnt for a shorter period, not its budget', () => {
		// A bucket's guess (2 every 40 ms), then a window of 60 every 3 s: kept as 2 a period,
		// the run went on at 2 every 2 s.
		const after = step(probingAfter({ budget: 2, periodMs: 40 }, 2_000), admitted).state;
		expect(after.cycle).toEqual({ budget: 100, periodMs: 2_000 });
	});

	it('keeps the budget of a pace whose period it finds about the same', () => {
		const after = step(probingAfter({ budget: 60, periodMs: 3_000 }, 3_100), admitted).state;
		expect(after.cycle).toEqual({ budget: 60, periodMs: 3_100 });
	});
});
