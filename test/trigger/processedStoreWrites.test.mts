// The execute()-side claim against a store that reads and writes back the whole list
// without a lock, like n8n's processed_data helper, where one write is slowed past the
// election's settle time (SQLite waiting for its lock under a burst).
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';

import { claimInExecution } from '../../nodes/VoucherServiceTrigger/deduplication';
import { UNSETTLED_ELECTION } from '../../nodes/VoucherServiceTrigger/unsettledElection';
import { VoucherServiceTrigger } from '../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';

type Store = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord'>;

const node = { id: 'trigger', name: 'Voucher Service Trigger' } as INode;

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
		const { store, list } = lastWriterWinsStore('slow', 1_500);
		const [slow, fast] = await Promise.all([
			claimInExecution(store, node, 'slow', 'execution-1'),
			sleep(10).then(() => claimInExecution(store, node, 'fast', 'execution-2')),
		]);
		expect([slow, fast]).toEqual(['run', 'run']);
		// A key confirmed and then dropped would run again after a restart.
		expect(list()).toEqual(expect.arrayContaining(['slow', 'fast']));
	}, 20_000);
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
