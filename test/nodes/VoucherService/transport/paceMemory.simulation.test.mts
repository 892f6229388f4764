import { afterAll, describe, expect, it } from 'vitest';

import { PACE_LIFETIME_MS } from '../../../../nodes/VoucherService/transport/paceMemory';
import type { Pace } from '../../../../nodes/VoucherService/transport/pacingState';
import type { RateLimits } from '../../../../sandbox/server.mts';
import { simulateExecutions } from './ratePacingSimulation.mts';
import type { SimulatedRun } from './ratePacingSimulation.mts';

/*
 * Executions one after another in one process, on a fake clock, against bench:ratelimit's fixed
 * windows of 3 s that tell nothing (its rows: 12 a second of the rate, at least 20), each started
 * a second after the last one's last answer, in the window it left. Issue 41's goal: at most a
 * tenth refused from the second execution on; the first's share is shown beside it. Each runs
 * from several points of the window's grid.
 */
const GOAL = 0.1;

/*
 * Later executions' wall against the floor, where the goal (1.25 x, or no worse than the first)
 * is missed, held at its worst over the grid. `startFloor`: from the execution's start, where the
 * window the last one left may be spent (the floor counts from the first send, after that wait).
 * The pace's window is found by edges: a refused send and the next admitted one bracket one, and
 * they repeat every window; tries for the next edge are held to a tenth of the requests refused,
 * which leaves the brackets of 3 and 6 a window wide (see the table printed).
 */
const LATER_WALL_HELD: Record<number, { floor: number; startFloor: number }> = {
	3: { floor: 1.95, startFloor: 1.9 },
	6: { floor: 2.37, startFloor: 2.05 },
	15: { floor: 1.61, startFloor: 1.37 },
	60: { floor: 3.14, startFloor: 2.11 },
};

const OFFSETS_MS = [0, 400, 700, 1_100, 1_500, 1_900, 2_300, 2_700];

const window = (requests: number): { limit: RateLimits } => ({
	limit: { kind: 'fixedWindow', requests, seconds: 3, signal: 'none' },
});
const share = (run: { refused: number; requests: number }) => run.refused / run.requests;
const wall = (run: SimulatedRun) => run.wallMs / run.floorMs;
const startWall = (run: SimulatedRun) => run.wallMs / run.startFloorMs!;
const rate = (pace: Pace) => pace.budget / pace.periodMs!;

let keys = 0;
/** A memory of its own for each case, as for a base URL and key of its own. */
const newKey = () => `simulated ${++keys}`;

describe('a pace remembered between executions, simulated', () => {
	const table = ['refused and wall / floor / floor from the start: first execution | later ones'];
	afterAll(() => console.log(table.join('\n')));

	it.each([3, 6, 15, 60])(
		'%i per 3 s without headers: at most a tenth refused from the second execution on',
		async (requests) => {
			const rows = Math.max(20, (12 * requests) / 3);
			for (const startMs of OFFSETS_MS) {
				const runs = await simulateExecutions(window(requests), rows, 3, {
					memoryKey: newKey(),
					startMs,
				});
				const figures = (run: SimulatedRun) =>
					`${share(run).toFixed(2)} ${wall(run).toFixed(2)} ${startWall(run).toFixed(2)}`;
				table.push(`${requests} per 3 s from ${startMs} ms: ${runs.map(figures).join(' | ')}`);
				// 60 per 3 s is the one window the slow start's rounds do not overshoot by much.
				if (requests < 60) expect(share(runs[0])).toBeGreaterThan(GOAL);
				// One request a cycle is not kept (MIN_REMEMBERED_BUDGET): each execution learns again.
				if (!runs[0].remembered) continue;
				for (const later of runs.slice(1)) {
					expect(share(later)).toBeLessThanOrEqual(GOAL);
					expect(wall(later)).toBeLessThanOrEqual(LATER_WALL_HELD[requests].floor);
					expect(startWall(later)).toBeLessThanOrEqual(LATER_WALL_HELD[requests].startFloor);
				}
			}
		},
	);

	it('keeps a pace for most points of the grid', async () => {
		const kept = [];
		for (const startMs of OFFSETS_MS)
			for (const requests of [3, 6, 15]) {
				const rows = Math.max(20, (12 * requests) / 3);
				const [first] = await simulateExecutions(window(requests), rows, 1, {
					memoryKey: newKey(),
					startMs,
				});
				kept.push(first.remembered !== undefined);
			}
		// One of the 24 (3 per 3 s from 700 ms) learnt one request every 2.5 s.
		expect(kept.filter(Boolean).length).toBeGreaterThanOrEqual(23);
	});

	it('uses no memory older than its lifetime: the next execution learns again', async () => {
		for (const startMs of OFFSETS_MS) {
			const [first, second] = await simulateExecutions(window(6), 24, 2, {
				memoryKey: newKey(),
				startMs,
				gapMs: PACE_LIFETIME_MS,
			});
			expect(share(second)).toBeGreaterThan(GOAL);
			expect(second.refused).toBeGreaterThanOrEqual(first.refused - 1);
		}
	});

	it('holds no execution to a pace learnt under a limit since raised: the pace grows', async () => {
		for (const startMs of OFFSETS_MS) {
			const memoryKey = newKey();
			const [learning] = await simulateExecutions(window(6), 40, 1, { memoryKey, startMs });
			const before = learning.remembered!;
			const [raised] = await simulateExecutions(window(15), 100, 1, {
				memoryKey,
				startMs: startMs + learning.wallMs + 1_000,
			});
			// Growth counts clean cycles (six a growth of an eighth), so it is slow: the memory's
			// lifetime bounds the rest.
			expect(rate(raised.remembered!)).toBeGreaterThan(rate(before));
			// Held to the old pace, its 100 creates would take 100 / budget periods.
			const heldMs = (100 / before.budget - 1) * before.periodMs!;
			console.log(`raised from ${startMs} ms: ${raised.wallMs} ms, held ${heldMs} ms`);
			expect(raised.wallMs).toBeLessThan(heldMs);
			expect(share(raised)).toBeLessThanOrEqual(GOAL);
		}
	});
});
