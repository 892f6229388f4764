import { describe, expect, it } from 'vitest';

import { initialState } from '../../../../nodes/VoucherService/transport/pacingActions';
import type { PacingState } from '../../../../nodes/VoucherService/transport/pacingState';
import { step } from '../../../../nodes/VoucherService/transport/ratePacing';

const NOW = 1_700_000_000_000;

describe('a refusal beyond the budget of a growth undone', () => {
	/** Nine a cycle, grown to eleven and undone at the tenth's refusal; seven answers in. */
	const undone: PacingState = {
		...initialState(),
		sent: 20,
		unanswered: [11, 12, 20],
		cycle: { budget: 9, periodMs: 3_000 },
		cycleStart: { at: NOW, resumed: true },
		cycleFirstSequence: 10,
		sentInCycle: 11,
		admittedInCycle: 7,
		refusedInCycle: true,
	};

	it('is noted, not taken for a budget too large: cut to the seven in, the pace fell to 7 of 9', () => {
		const taken = step(undone, {
			kind: 'refused',
			sequence: 20,
			sentAt: NOW,
			at: NOW + 25,
			hints: {},
		});
		expect(taken.actions).toEqual(['note the refusal']);
		expect(taken.state.cycle).toEqual({ budget: 9, periodMs: 3_000 });
	});
});
