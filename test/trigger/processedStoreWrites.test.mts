// The execute()-side claim against a store that reads and writes back the whole list
// without a lock, like n8n's processed_data helper, where one write is slowed past the
// election's settle time (SQLite waiting for its lock under a burst).
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';

import { claimInExecution } from '../../nodes/VoucherServiceTrigger/deduplication';

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
		expect([slow, fast]).toEqual([true, true]);
		// A key confirmed and then dropped would run again after a restart.
		expect(list()).toEqual(expect.arrayContaining(['slow', 'fast']));
	}, 20_000);
});
