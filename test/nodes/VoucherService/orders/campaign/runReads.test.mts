/**
 * A run's check reads: each sent once, for the first item that asks, and one asked for early
 * but never awaited (the page bought nothing after all) fails nothing.
 */
import { describe, expect, it } from 'vitest';

import type { VoucherApiClient } from '../../../../../nodes/VoucherService/transport/client';
import { DISCOVERY_MISSES } from '../../../../../nodes/VoucherService/orders/campaign/discovery';
import { runReads } from '../../../../../nodes/VoucherService/orders/campaign/runReads';

type Call = { path: string; itemIndex: number; burst?: boolean };

function clientAnswering(answer: (call: Call) => Promise<unknown>) {
	const calls: Call[] = [];
	const client = {
		node: { name: 'Voucher Service', type: 'voucherService', typeVersion: 1, parameters: {} },
		request: async (call: Call) => {
			calls.push(call);
			return await answer(call);
		},
	} as unknown as VoucherApiClient;
	return { client, calls };
}

describe('the reads of a run’s checks', () => {
	it('sends the wallet read once, for the item and in the way of the first call', async () => {
		const { client, calls } = clientAnswering(async () => [{ currency: 'NGN', balance: 500 }]);
		const reads = runReads(client);
		const early = reads.wallet(3, true);
		expect(await reads.wallet(7)).toBe(50_000);
		expect(await early).toBe(50_000);
		expect(calls).toEqual([expect.objectContaining({ itemIndex: 3, burst: true })]);
	});

	it('reads the whole-sheet orders once per base, one window of DISCOVERY_MISSES', async () => {
		const { client, calls } = clientAnswering(async ({ path }) => ({
			orderNumber: 'ORD-1',
			reference: path.split('/').at(-1),
			status: 'COMPLETED',
		}));
		const reads = runReads(client);
		await Promise.all([
			reads.wholeSheetOrder('a', 0),
			reads.wholeSheetOrder('a', 1),
			reads.wholeSheetOrder('b', 2),
		]);
		const window = (base: string) =>
			Array.from({ length: DISCOVERY_MISSES }, (_, i) => `/v2/orders/${base}-${i + 1}`);
		expect(calls.map((call) => call.path).sort()).toEqual([...window('a'), ...window('b')].sort());
	});

	it('a failed read asked for early and never awaited fails nothing; awaited, it fails', async () => {
		const { client } = clientAnswering(async () => {
			throw new Error('service down');
		});
		const reads = runReads(client);
		void reads.wallet(0, true);
		void reads.wholeSheetOrder('a', 0, true);
		// An unhandled rejection would fail this file.
		await new Promise((resolve) => setTimeout(resolve, 20));
		await expect(reads.wallet(0)).rejects.toThrow(/service down/);
	});
});
