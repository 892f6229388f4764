// The execute()-side claim against a store that reads and writes back the whole list
// without a lock, like n8n's processed_data helper, where one write is slowed past the
// election's settle time (SQLite waiting for its lock under a burst).
import type { ICheckProcessedOptions, IExecuteFunctions, INode } from 'n8n-workflow';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

import { claimInExecution } from '../../../nodes/VoucherServiceTrigger/deduplication';
import { UNSETTLED_ELECTION } from '../../../nodes/VoucherServiceTrigger/unsettledElection';
import { VoucherServiceTrigger } from '../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';

type Store = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'removeProcessed'>;

const node = { id: 'trigger', name: 'Voucher Service Trigger' } as INode;

/** On the global clock, which a test's fake timers move. */
const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Read, wait, write back what was read plus the new values: the last writer wins. */
function lastWriterWinsStore(slowValue: string, slowMs: number) {
	let list: string[] = [];
	const store = {
		async checkProcessedAndRecord(values: string[]) {
			const read = [...list];
			await sleep(values.includes(slowValue) && !read.includes(slowValue) ? slowMs : 5);
			list = [...read, ...values.filter((value) => !read.includes(value))];
			return {
				new: values.filter((value) => !read.includes(value)),
				processed: values.filter((value) => read.includes(value)),
			};
		},
	} as unknown as Store;
	return { store, list: () => list };
}

describe("claims in one process's executions", () => {
	it('keep every confirmed key when a rival write is slowed past the settle time', async () => {
		// Fake timers: the rival claim comes 10 ms into the slow write, on any machine, however
		// busy; on real ones it might come after that write, and nothing would be tested.
		vi.useFakeTimers();
		try {
			const { store, list } = lastWriterWinsStore('slow', 1_500);
			const claims = Promise.all([
				claimInExecution(store, node, 'slow', 'execution-1'),
				sleep(10).then(() => claimInExecution(store, node, 'fast', 'execution-2')),
			]);
			await vi.advanceTimersByTimeAsync(20_000);
			expect(await claims).toEqual(['run', 'run']);
			// A key confirmed and then dropped would run again after a restart.
			expect(list()).toEqual(expect.arrayContaining(['slow', 'fast']));
		} finally {
			vi.useRealTimers();
		}
	});
});

describe('an election that never settles', () => {
	/** A rival process's writes always land between ours and drop every value we wrote. */
	const droppingStore = {
		async checkProcessedAndRecord(values: string[]) {
			return { new: values, processed: [] };
		},
	} as unknown as Store;

	it('does not run the event, and fails the execution with a line the benchmarks count', async () => {
		vi.useFakeTimers();
		try {
			const claim = claimInExecution(droppingStore, node, 'k', 'execution-1');
			await vi.advanceTimersByTimeAsync(10_000);
			expect(await claim).toBe('unsettled');

			const warnings: string[] = [];
			const context = {
				getInputData: () => [{ json: { deduplicationKey: 'k' } }],
				getNodeParameter: () => true,
				getMode: () => 'webhook',
				getNode: () => node,
				getWorkflow: () => ({ id: 'wf-1' }),
				getExecutionId: () => 'execution-2',
				getWorkflowStaticData: () => ({}),
				logger: { warn: (message: string) => warnings.push(message) },
				helpers: droppingStore,
			} as unknown as IExecuteFunctions;
			const run = new VoucherServiceTrigger().execute.call(context);
			const failed = expect(run).rejects.toThrow(UNSETTLED_ELECTION);
			await vi.advanceTimersByTimeAsync(10_000);
			await failed;
			expect(warnings).toEqual([UNSETTLED_ELECTION]);
		} finally {
			vi.useRealTimers();
		}
	});
});

/** n8n's DeduplicationHelper in 'entries' mode (2.41.1, the same in 1.85.3 and 1.123.81). */
function n8nStore(afterWrite: (list: string[]) => void = () => undefined) {
	const hash = (value: string) => createHash('md5').update(value).digest('base64');
	let list: string[] = [];
	const store = {
		async checkProcessedAndRecord(
			values: string[],
			_scope: string,
			options: ICheckProcessedOptions,
		) {
			const known = new Set(list);
			const fresh = values.filter((value) => !known.has(hash(value)));
			list.push(...fresh.map(hash));
			list.splice(0, list.length - options.maxEntries!);
			afterWrite(list);
			return { new: fresh, processed: values.filter((value) => known.has(hash(value))) };
		},
		async removeProcessed(values: string[]) {
			for (const value of values) {
				const index = list.indexOf(hash(value));
				if (index !== -1) list.splice(index, 1);
			}
		},
	} as unknown as Store;
	return {
		store,
		list: () => list,
		hash,
		replace: (values: string[]) => (list = values.map(hash)),
	};
}

describe('copies that reach the execution', () => {
	it('leave nothing in the list, so however many arrive the event is never pushed out', async () => {
		const { store, list, hash } = n8nStore();
		const key = '["ORDER_UPDATED","ORD-1","COMPLETED"]';
		expect(await claimInExecution(store, node, key, 'execution-0')).toBe('run');
		const recorded = [...list()];
		// n8n keeps 10,000 values; without the withdrawal copy 9,999 pushed the key out.
		for (let copy = 1; copy <= 10_001; copy++) {
			const claim = await claimInExecution(store, node, key, `execution-${copy}`);
			if (claim !== 'duplicate') throw new Error(`copy ${copy} got ${claim}`);
		}
		expect(list()).toEqual(recorded);
		expect(list()).toEqual([hash(key), hash(JSON.stringify([key, 'execution-0']))]);
	}, 30_000);

	it('stay duplicates when the database refuses the withdrawal, so no retry is invited', async () => {
		const { store } = n8nStore();
		const failing = {
			checkProcessedAndRecord: store.checkProcessedAndRecord,
			removeProcessed: () => Promise.reject(new Error('SQLITE_BUSY')),
		} as unknown as Store;
		expect(await claimInExecution(failing, node, 'k', 'execution-0')).toBe('run');
		expect(await claimInExecution(failing, node, 'k', 'execution-1')).toBe('duplicate');
	}, 10_000);

	it("leave nothing when they lose an election to another process's claim", async () => {
		vi.useFakeTimers();
		try {
			const key = 'k';
			const rival = JSON.stringify([key, 'execution-other-process']);
			let raced = false;
			// Another process read the list before this claim landed and wrote its own after.
			const { store, list, hash, replace } = n8nStore((written) => {
				if (!raced && written.length > 0) {
					raced = true;
					replace([key, rival]);
				}
			});
			const claim = claimInExecution(store, node, key, 'execution-1');
			await vi.advanceTimersByTimeAsync(10_000);
			expect(await claim).toBe('duplicate');
			expect(list()).toEqual([hash(key), hash(rival)]);
		} finally {
			vi.useRealTimers();
		}
	});
});
