import { describe, expect, it } from 'vitest';

import { initialState } from '../../../../nodes/VoucherService/transport/pacingActions';
import { MAX_KEPT_PERIOD_MS } from '../../../../nodes/VoucherService/transport/pacingConditions';
import { nextSendAt, phaseOf } from '../../../../nodes/VoucherService/transport/pacingState';
import type { PacingEvent, Phase } from '../../../../nodes/VoucherService/transport/pacingState';
import { phasesIn, step, TRANSITIONS } from '../../../../nodes/VoucherService/transport/ratePacing';
import type { Action } from '../../../../nodes/VoucherService/transport/ratePacing';
import type { RateHints } from '../../../../nodes/VoucherService/transport/rateHints';

const NOW = 1_700_000_000_000;

const send = (at = NOW): PacingEvent => ({ kind: 'send', at });
/** The last execution on the pace ends. */
const rest = (at: number): PacingEvent => ({ kind: 'rest', at });
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
/**
 * Two admitted of three, then found again by probes: two every 1.1 s from NOW + 2,800, learnt
 * from admissions alone, and kept when its execution ended; its next cycle's three sends.
 */
const TWO_RESUMED = [
	...[send(), send(), send(), answer('admitted', 1), answer('admitted', 2), answer('refused', 3)],
	...[send(NOW + 500), answer('refused', 4, {}, NOW + 500)],
	...[send(NOW + 800), answer('admitted', 5, {}, NOW + 800), send(NOW + 800), send(NOW + 800)],
	...[answer('admitted', 6, {}, NOW + 800), answer('refused', 7, {}, NOW + 800)],
	...[send(NOW + 1_600), answer('admitted', 8, {}, NOW + 1_600)],
];
const TWO_PACED = [
	...TWO_RESUMED,
	...[send(NOW + 2_800), answer('admitted', 9, {}, NOW + 2_800)],
	...[send(NOW + 2_800), answer('admitted', 10, {}, NOW + 2_800)],
];
const KEPT = [...TWO_PACED, rest(NOW + 2_900)];
const TRIAL = [send(NOW + 4_000), send(NOW + 4_000), send(NOW + 4_000)];
const TELLING = [send(), send(), send(), answer('refused', 1, retryAfter)];
/** A pace forgotten at an admission after a refusal; the next cycle admits one, then is refused. */
const FORGOTTEN = [
	...[...PACED, send(NOW + 2_020), answer('refused', 4, retryAfter, NOW + 2_020)],
	...[send(NOW + 2_100), answer('admitted', 5, {}, NOW + 2_100)],
	...[send(NOW + 2_200), send(NOW + 2_200), answer('admitted', 6, {}, NOW + 2_200)],
	...[answer('refused', 7, retryAfter, NOW + 2_200), send(NOW + 2_300)],
];
/** `count` sent at `at` from request `first`: the first `admittedCount` admitted, the rest refused. */
const burst = (first: number, count: number, admittedCount: number, at: number) => [
	...Array.from({ length: count }, () => send(at)),
	...Array.from({ length: count }, (_, i) =>
		answer(i < admittedCount ? 'admitted' : 'refused', first + i, {}, at),
	),
];
/**
 * Six every 3 s from NOW + 1,000 (windowEdges.ts): found again between the refused send and the
 * admitted answer, (2,700, 3,125] and (5,800, 6,075], so 2,675 to 3,375 ms long; a cycle at the
 * latest start, 9,450, admitted whole. The next window begins in (11,150, 12,825], wide enough
 * for a head halfway, at 11,988.
 */
const WINDOW_HEAD_OUT = [
	...burst(1, 7, 6, NOW + 100),
	...[send(NOW + 2_700), answer('refused', 8, {}, NOW + 2_700)],
	...[send(NOW + 3_100), answer('admitted', 9, {}, NOW + 3_100), ...burst(10, 6, 5, NOW + 3_130)],
	...[send(NOW + 5_800), answer('refused', 16, {}, NOW + 5_800)],
	...[send(NOW + 6_050), answer('admitted', 17, {}, NOW + 6_050), ...burst(18, 6, 5, NOW + 6_080)],
	...[...burst(24, 6, 6, NOW + 9_450), send(NOW + 11_988)],
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
	'paced, two every 1.1 s': TWO_PACED,
	'kept, two every 1.1 s': KEPT,
	'kept, raised to three, its retrial of four sent, three admitted': [
		...[...KEPT, ...TRIAL, ...[11, 12, 13].map((n) => answer('admitted', n, {}, NOW + 4_000))],
		...[send(NOW + 5_200), send(NOW + 5_200), send(NOW + 5_200), send(NOW + 5_200)],
		...[14, 15, 16].map((n) => answer('admitted', n, {}, NOW + 5_200)),
	],
	'kept, its trial of three sent, two admitted': [
		...[...KEPT, ...TRIAL, answer('admitted', 11, {}, NOW + 4_000)],
		answer('admitted', 12, {}, NOW + 4_000),
	],
	// Its first refused, then its second: the window was spent (by the last execution, say).
	'kept, its trial of three sent, two refused at once': [
		...[...KEPT, ...TRIAL, answer('refused', 11, {}, NOW + 4_000)],
		answer('refused', 12, {}, NOW + 4_000),
	],
	'paced, 5 clean cycles': [...PACED, ...cycles(5, 4, NOW + 2_020)],
	"paced by a window's edges, its head out": WINDOW_HEAD_OUT,
	// The head was what the last window had left: the rest of the cycle is refused.
	"paced by a window's edges, its head admitted, the rest out": [
		...[...WINDOW_HEAD_OUT, answer('admitted', 30, {}, NOW + 11_988)],
		...Array.from({ length: 5 }, () => send(NOW + 12_018)),
	],
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
	[
		'ramping, two every 1.1 s',
		send(NOW + 3_300),
		'paced',
		['start the next cycle', 'count the send'],
	],
	['paced, one a second', send(NOW + 2_020), 'paced', ['start the next cycle', 'count the send']],
	['paced, 5 clean cycles', send(NOW + 7_120), 'paced', ['grow the pace', 'count the send']],
	[
		"paced by a window's edges, its head out",
		answer('refused', 30, {}, NOW + 11_988),
		'paced',
		['wait for the window'],
	],
	[
		"paced by a window's edges, its head out",
		answer('admitted', 30, {}, NOW + 11_988),
		'paced',
		['count the admission'],
	],
	[
		"paced by a window's edges, its head admitted, the rest out",
		answer('refused', 35, {}, NOW + 12_018),
		'paced',
		['wait for the window'],
	],
	['paced, two every 1.1 s', rest(NOW + 2_900), 'paced', ['keep the pace']],
	// One a cycle: a probe's wait, or a guess; a limit told, or a pace not learnt.
	['paced, one a second', rest(NOW + 1_100), 'free', ['forget the pace']],
	['window told, 1 out', rest(NOW + 100), 'free', ['forget the pace']],
	['probing', rest(NOW + 100), 'free', ['forget the pace']],
	['kept, two every 1.1 s', send(NOW + 4_000), 'paced', ['try one more', 'count the send']],
	[
		'kept, its trial of three sent, two admitted',
		answer('refused', 13, {}, NOW + 4_000),
		'paced',
		['undo the growth'],
	],
	[
		'kept, its trial of three sent, two refused at once',
		answer('refused', 13, {}, NOW + 4_000),
		'probing',
		['learn from the refusal', 'forget the kept pace, learn again', 'probe later'],
	],
	[
		'kept, its trial of three sent, two admitted',
		answer('admitted', 13, {}, NOW + 4_000),
		'paced',
		['raise the kept pace'],
	],
	[
		'kept, raised to three, its retrial of four sent, three admitted',
		answer('admitted', 17, {}, NOW + 5_200),
		'free',
		['forget the kept pace'],
	],
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

	it('keeps a pace learnt from admissions alone, its period at most MAX_KEPT_PERIOD_MS', () => {
		const keptAfter = (events: PacingEvent[]) =>
			events.reduce((s, e) => step(s, e).state, initialState()).kept;
		expect(keptAfter(KEPT)).toBe('pending');
		expect(keptAfter([...PACED, rest(NOW + 1_100)])).toBeUndefined();
		const toldWindow = [...setups['window told, 1 out'], answer('admitted', 2)];
		expect(keptAfter([...toldWindow, rest(NOW + 100)])).toBeUndefined();
		// A pace learnt from a Retry-After is the service's word, said again next time.
		const fromRetryAfter = [...setups['telling a Retry-After, 1 admitted from rest']];
		const paced = [...fromRetryAfter, answer('refused', 3, retryAfter, NOW + 25)];
		const resumed = [...paced, send(NOW + 1_100), answer('admitted', 4, {}, NOW + 1_100)];
		const state = resumed.reduce((s, e) => step(s, e).state, initialState());
		expect([phaseOf(state), state.cycle?.periodMs]).toEqual(['paced', expect.any(Number)]);
		expect(keptAfter([...resumed, rest(NOW + 1_200)])).toBeUndefined();
		// A cycle of twelve seconds came from a slow cycle more likely than from a limit.
		const slow = [
			...REFUSED_AFTER_ONE,
			send(NOW + 12_000),
			answer('admitted', 3, {}, NOW + 12_000),
		];
		const slowState = slow.reduce((s, e) => step(s, e).state, initialState());
		expect(slowState.cycle?.periodMs).toBeGreaterThan(MAX_KEPT_PERIOD_MS);
		expect(phaseOf(slowState)).toBe('paced');
		expect(keptAfter([...slow, rest(NOW + 12_100)])).toBeUndefined();
	});

	it('keeps the pace proven, not one on trial, and a refused trial keeps it as its own', () => {
		const at = (events: PacingEvent[]) => events.reduce((s, e) => step(s, e).state, initialState());
		const kept = at(KEPT);
		expect(kept.cycle).toEqual({ budget: 2, periodMs: 1_125 });
		const onTrial = at([...KEPT, ...TRIAL]);
		expect([onTrial.cycle?.budget, onTrial.kept]).toEqual([3, 'trial']);
		const raised = at([
			...KEPT,
			...TRIAL,
			...[11, 12, 13].map((n) => answer('admitted', n, {}, NOW + 4_000)),
		]);
		// A refusal of the raised pace goes back to the kept one: the trial may have crossed a
		// window's start.
		expect([raised.cycle, raised.beforeGrowth, raised.kept]).toEqual([
			{ budget: 3, periodMs: 1_125 },
			kept.cycle,
			'raised',
		]);
		expect(at([...KEPT, ...TRIAL, rest(NOW + 4_100)]).cycle).toEqual(kept.cycle);
		const refused = at([
			...setups['kept, its trial of three sent, two admitted'],
			answer('refused', 13, {}, NOW + 4_000),
		]);
		expect(refused.cycle).toEqual(kept.cycle);
		expect(refused.kept).toBeUndefined();
	});

	it('waits for a window begun later than its head, keeping the budget: it was early, not too large', () => {
		for (const [setup, sequence, sentAt] of [
			["paced by a window's edges, its head out", 30, NOW + 11_988],
			["paced by a window's edges, its head admitted, the rest out", 35, NOW + 12_018],
		] as const) {
			const refused = answer('refused', sequence, {}, sentAt);
			const before = setups[setup].reduce((s, e) => step(s, e).state, initialState());
			const { state } = step(before, refused);
			expect(state.cycle!.budget, setup).toBe(6);
			// The window begins after the refused send, by 12,825 at the latest; half of what is
			// left holds under a request of six a 3,375 ms window: the next head goes at the latest.
			expect(state.edges!.next.lo - NOW, setup).toBe(sentAt - NOW);
			expect(nextSendAt(state, NOW + 12_100).at - NOW, setup).toBe(12_825);
		}
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
