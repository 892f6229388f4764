import { describe, expect, it } from 'vitest';

import { initialState } from '../../../../nodes/VoucherService/transport/pacingActions';
import { phaseOf } from '../../../../nodes/VoucherService/transport/pacingState';
import type { PacingEvent, Phase } from '../../../../nodes/VoucherService/transport/pacingState';
import { phasesIn, step, TRANSITIONS } from '../../../../nodes/VoucherService/transport/ratePacing';
import type { Action } from '../../../../nodes/VoucherService/transport/ratePacing';
import type { RateHints } from '../../../../nodes/VoucherService/transport/rateHints';

const NOW = 1_700_000_000_000;

const send = (at = NOW): PacingEvent => ({ kind: 'send', at });
/** The answer to request `sequence`, sent at `sentAt`, 25 ms later. */
const answer = (
	kind: 'admitted' | 'refused' | 'unanswered',
	sequence: number,
	hints: RateHints = {},
	sentAt = NOW,
): PacingEvent => ({ kind, sequence, sentAt, at: sentAt + 25, hints });
const retryAfter = { retryAfterMs: 1_000 };

/** Cycles of one request, each sent at its start (1.02 s apart) and admitted; `first` is sent. */
const cycles = (count: number, first: number, from: number) =>
	Array.from({ length: count }, (_, i) => [
		send(from + i * 1_020),
		answer('admitted', first + i, {}, from + i * 1_020),
	]).flat();

/** The states the cases start from, each reached by events from the start. */
const REFUSED_AFTER_ONE = [send(), send(), answer('admitted', 1), answer('refused', 2)];
const PACED = [...REFUSED_AFTER_ONE, send(NOW + 1_000), answer('admitted', 3, {}, NOW + 1_000)];
const RAMPING = [
	...[send(), send(), send(), answer('admitted', 1), answer('admitted', 2), answer('refused', 3)],
	...[send(NOW + 500), answer('refused', 4, {}, NOW + 500)],
	...[send(NOW + 1_300), answer('admitted', 5, {}, NOW + 1_300), send(NOW + 1_330)],
];
/** Two admitted of three, then found again by probes: two every 1.1 s, the ramp at its first. */
const TWO_RESUMED = [
	...[send(), send(), send(), answer('admitted', 1), answer('admitted', 2), answer('refused', 3)],
	...[send(NOW + 500), answer('refused', 4, {}, NOW + 500)],
	...[send(NOW + 800), answer('admitted', 5, {}, NOW + 800), send(NOW + 800), send(NOW + 800)],
	...[answer('admitted', 6, {}, NOW + 800), answer('refused', 7, {}, NOW + 800)],
	...[send(NOW + 1_600), answer('admitted', 8, {}, NOW + 1_600)],
];
const TELLING = [send(), send(), send(), answer('refused', 1, retryAfter)];
/** A pace forgotten at an admission after a refusal; the next cycle admits one, then is refused. */
const FORGOTTEN = [
	...[...PACED, send(NOW + 2_020), answer('refused', 4, retryAfter, NOW + 2_020)],
	...[send(NOW + 2_100), answer('admitted', 5, {}, NOW + 2_100)],
	...[send(NOW + 2_200), send(NOW + 2_200), answer('admitted', 6, {}, NOW + 2_200)],
	...[answer('refused', 7, retryAfter, NOW + 2_200), send(NOW + 2_300)],
];
const setups = {
	start: [],
	'3 out': [send(), send(), send()],
	'1 out': [send()],
	'telling, 2 sent after out': TELLING,
	'telling, 1 sent after refused': [...TELLING, answer('refused', 2)],
	'telling, 1 sent before out': [send(), send(), send(), answer('refused', 2)],
	'telling a lone Retry-After': [send(), answer('refused', 1, retryAfter), send(NOW + 25)],
	'telling a Retry-After, 1 admitted from rest': [
		...[send(), send(), answer('admitted', 1), answer('refused', 2, retryAfter), send(NOW + 25)],
	],
	'telling a Retry-After, 1 admitted since a pace was forgotten': FORGOTTEN,
	probing: REFUSED_AFTER_ONE,
	'probing, its probe out': [...REFUSED_AFTER_ONE, send(NOW + 1_000)],
	// Refused at once (a window the last execution spent): the guess, a whole second, is out.
	'probing from none admitted, its probe out': [send(), answer('refused', 1), send(NOW + 1_000)],
	'probing, one of before out': [
		send(),
		send(),
		send(),
		answer('admitted', 1),
		answer('refused', 3),
	],
	'ramping, period unknown': RAMPING,
	'ramping, two every 1.1 s': [...TWO_RESUMED, send(NOW + 1_630)],
	'paced, one a second': PACED,
	'paced, 5 clean cycles': [...PACED, ...cycles(5, 4, NOW + 2_020)],
	'paced, grown, 1 out': [...PACED, ...cycles(6, 4, NOW + 2_020), send(NOW + 8_140)],
	'window told, 0 left': [send(), answer('admitted', 1, { remaining: 0, resetAt: NOW + 1_000 })],
	'window told by a later answer, 1 out': [
		...[send(), send(), answer('admitted', 2, { remaining: 1, resetAt: NOW + 1_000 })],
	],
	'window told, 1 out': [
		send(),
		answer('admitted', 1, { remaining: 1, resetAt: NOW + 1_000 }),
		send(),
	],
} satisfies Record<string, PacingEvent[]>;

type Case = [setup: keyof typeof setups, event: PacingEvent, phase: Phase, actions: Action[]];

const later = NOW + 60_000;
const CASES: Case[] = [
	['start', send(), 'free', ['count the send']],
	['3 out', answer('admitted', 1), 'free', ['count the admission']],
	['3 out', answer('unanswered', 1), 'free', ['none']],
	['3 out', answer('refused', 1), 'telling', ['tell it apart']],
	['1 out', answer('refused', 1, retryAfter), 'telling', ['tell it apart']],
	['1 out', answer('refused', 1), 'probing', ['probe later']],
	['telling, 2 sent after out', answer('admitted', 2), 'free', ['forget the refusal']],
	['telling, 2 sent after out', answer('refused', 2), 'telling', ['count the refusal']],
	['telling, 2 sent after out', answer('unanswered', 2), 'telling', ['none']],
	[
		'telling, 1 sent after refused',
		answer('refused', 3),
		'free',
		['learn from the refusal', 'wait Retry-After'],
	],
	[
		'telling, 1 sent after refused',
		answer('unanswered', 3),
		'free',
		['learn from the refusal', 'wait Retry-After'],
	],
	['telling, 1 sent before out', answer('admitted', 1), 'telling', ['count the admission']],
	['telling, 1 sent before out', answer('refused', 1), 'telling', ['none']],
	['telling a lone Retry-After', answer('admitted', 2), 'free', ['forget the refusal']],
	[
		'telling a lone Retry-After',
		answer('refused', 2, retryAfter),
		'free',
		['learn from the refusal', 'wait Retry-After'],
	],
	[
		'telling a Retry-After, 1 admitted from rest',
		answer('refused', 3, retryAfter, NOW + 25),
		'paced',
		['learn from the refusal', 'wait Retry-After'],
	],
	// Where the pace was forgotten the cycle began with whatever the limit had left: no rate.
	[
		'telling a Retry-After, 1 admitted since a pace was forgotten',
		answer('refused', 8, retryAfter, NOW + 2_300),
		'free',
		['learn from the refusal', 'wait Retry-After'],
	],
	['probing', send(NOW + 1_000), 'probing', ['count the send']],
	['probing, its probe out', answer('admitted', 3, {}, NOW + 1_000), 'paced', ['resume']],
	// No burst was seen, so no bucket's rate is guessed from one: the ramp finds the budget.
	[
		'probing from none admitted, its probe out',
		answer('admitted', 2, {}, NOW + 1_000),
		'ramping',
		['resume'],
	],
	['probing, its probe out', answer('refused', 3, {}, NOW + 1_000), 'probing', ['probe later']],
	[
		'probing, its probe out',
		answer('refused', 3, retryAfter, NOW + 1_000),
		'probing',
		['wait Retry-After'],
	],
	['probing, one of before out', answer('refused', 2), 'probing', ['note the refusal']],
	['probing, one of before out', answer('admitted', 2), 'probing', ['count the admission']],
	[
		'ramping, period unknown',
		answer('admitted', 6, {}, NOW + 1_330),
		'ramping',
		['count the admission'],
	],
	[
		'ramping, period unknown',
		answer('refused', 6, {}, NOW + 1_330),
		'paced',
		['one per probe wait'],
	],
	['ramping, two every 1.1 s', answer('refused', 9, {}, NOW + 1_630), 'paced', ['cut the budget']],
	['ramping, two every 1.1 s', send(NOW + 3_300), 'paced', ['start the next cycle', 'count the send']],
	['paced, one a second', send(NOW + 2_020), 'paced', ['start the next cycle', 'count the send']],
	['paced, 5 clean cycles', send(NOW + 7_120), 'paced', ['grow the pace', 'count the send']],
	['paced, grown, 1 out', answer('refused', 11, {}, NOW + 8_140), 'paced', ['undo the growth']],
	['window told, 0 left', send(NOW + 1_000), 'free', ['open the window', 'count the send']],
	['window told, 1 out', answer('refused', 2), 'free', ['spend the window']],
	[
		'window told, 1 out',
		answer('admitted', 2, { remaining: 3, resetAt: later }),
		'free',
		['read the window', 'count the admission'],
	],
	[
		'window told by a later answer, 1 out',
		answer('admitted', 1, { remaining: 3, resetAt: later }),
		'free',
		['none', 'count the admission'],
	],
];

describe('the pacing’s transitions', () => {
	const named = CASES.map(([setup, event, phase, actions]) => {
		const what = 'sequence' in event ? `${event.kind} ${event.sequence}` : event.kind;
		return [
			`${setup}; ${what} → ${phase}, ${actions.join(', ')}`,
			setup,
			event,
			phase,
			actions,
		] as const;
	});

	it.each(named)('%s', (_, setup, event, phase, actions) => {
		const before = setups[setup].reduce((s, e) => step(s, e).state, initialState());
		const taken = step(before, event);
		expect(taken.actions).toEqual(actions);
		expect(phaseOf(taken.state)).toBe(phase);
		// The row taken names the state that follows.
		if (actions.length === 1) {
			const row = TRANSITIONS.find(
				([from, on, , , action]) =>
					on === event.kind && action === actions[0] && phasesIn(from).includes(phaseOf(before)),
			)!;
			expect(phasesIn(row[3], [phaseOf(before)])).toContain(phase);
		}
	});

	it('takes no pace of one a probe wait from a cycle that admitted nothing: the ramp finds it', () => {
		// Refused at once (a window another client spent), then probes: one refused, one admitted.
		const events = [
			...[send(), answer('refused', 1)],
			...[send(NOW + 1_025), answer('refused', 2, {}, NOW + 1_025)],
			...[send(NOW + 1_625), answer('admitted', 3, {}, NOW + 1_625)],
		];
		const s = events.reduce((state, e) => step(state, e).state, initialState());
		// One a cycle of 1.6 s held a run behind 300 every 3 s at 1 every 1.6 s.
		expect([phaseOf(s), s.cycle]).toEqual(['ramping', { budget: 1, periodMs: undefined }]);
	});

	it('leaves the state it is given as it was', () => {
		const before = setups['telling, 2 sent after out'].reduce(
			(s, e) => step(s, e).state,
			initialState(),
		);
		const copy = structuredClone(before);
		step(before, answer('refused', 2));
		expect(before).toEqual(copy);
	});

	it('has a case for every action of the table', () => {
		const covered = new Set(CASES.flatMap(([, , , actions]) => actions));
		expect(TRANSITIONS.map(([, , , , action]) => action).filter((a) => !covered.has(a))).toEqual(
			[],
		);
	});
});
