// bench/queue.mts's pure helpers: where each copy goes, and the exactly-once tally
// that is the benchmark's verdict on correctness. No timing here: the benchmark
// itself prints figures and fails on none.
import { describe, expect, it } from 'vitest';

import { deliveryPlan, listSome, tallyRuns } from '../../bench/queuePlan.mts';

describe('bench:queue delivery plan', () => {
	it('sends one copy of every event to each process, the copies side by side', () => {
		expect(deliveryPlan(3, 2)).toEqual([
			{ event: 0, target: 0 },
			{ event: 0, target: 1 },
			{ event: 1, target: 1 },
			{ event: 1, target: 0 },
			{ event: 2, target: 0 },
			{ event: 2, target: 1 },
		]);
	});

	it('gives each process half of all deliveries and half of the first copies', () => {
		const plan = deliveryPlan(500, 2);
		expect(plan).toHaveLength(1000);
		expect(plan.filter((d) => d.target === 0)).toHaveLength(500);
		const firsts = plan.filter((_, i) => i % 2 === 0);
		expect(firsts.filter((d) => d.target === 0)).toHaveLength(250);
		for (let e = 0; e < 500; e++) {
			expect(new Set(plan.filter((d) => d.event === e).map((d) => d.target))).toEqual(new Set([0, 1]));
		}
	});

	it('refuses a plan with no process', () => {
		expect(() => deliveryPlan(1, 0)).toThrow();
	});
});

describe('bench:queue exactly-once tally', () => {
	it('counts exact, missing, extra, short and unknown runs', () => {
		const tally = tallyRuns(['a', 'b', 'c', 'd'], ['a', 'b', 'b', 'd', 'd', 'd', 'x'], 2);
		expect(tally).toEqual({ exact: 1, missing: ['c'], over: [['d', 3]], under: [['a', 1]], unknown: ['x'] });
	});

	it('once per event by default', () => {
		expect(tallyRuns(['a', 'b'], ['b', 'a'])).toEqual({ exact: 2, missing: [], over: [], under: [], unknown: [] });
	});

	it('lists a few', () => {
		expect(listSome([])).toBe('none');
		expect(listSome(['a', ['b', 2]])).toBe('2: a, b ×2');
		expect(listSome(['a', 'b', 'c'], 2)).toBe('3: a, b, …');
	});
});
