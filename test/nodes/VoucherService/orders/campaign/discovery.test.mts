/**
 * Finding a whole-sheet campaign's orders: the check a campaign by Row ID makes for them finds
 * them as discovery does (past a gap at 1), and discovery stops at its cap when a service
 * answers every Reference with an order. Over HTTP against the sandbox.
 */
import { describe, expect, it } from 'vitest';

import {
	DISCOVERY_MISSES,
	MAX_CAMPAIGN_ORDERS,
} from '../../../../../nodes/VoucherService/orders/campaign/discovery';
import {
	byId,
	campaignSandboxForThisFile,
	GET_CAMPAIGN_BY_ROW_IDS,
	table,
} from '../../campaignRuns.mts';
import { runVoucher, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, placeDirectly, vouchersPerRecipient } =
	await campaignSandboxForThisFile();

describe('the check for whole-sheet orders before a campaign by Row ID buys', () => {
	it.each([1, 2, DISCOVERY_MISSES])(
		'finds a whole-sheet campaign whose first order is %i (refused ones before it left a gap)',
		async (first) => {
			const base = uniqueReference('gap');
			const rows = table(3, 0);
			await placeDirectly(`${base}-${first}`, rows);

			const run = await runCampaign(base, rows, {}, { ...byId, continueOnFail: true });
			expect(run.posts).toBe(0);
			expect(run.json.map((row) => row.error)).toEqual(
				rows.map(
					(_, i) =>
						`Item ${i}: campaign "${base}" has orders made without Row ID (${base}-${first}, …), so nothing was bought for it`,
				),
			);
			for (const values of vouchersPerRecipient(base).values()) expect(values).toEqual([1000]);
		},
	);
});

describe('discovery under a service that answers every Reference with an order', () => {
	it('stops at its cap: the whole sheet fails clearly, nothing is bought', async () => {
		const base = uniqueReference('phantom-sheet');
		sandbox.configure({ phantomOrders: true });
		try {
			const run = await runCampaign(base, table(2), {}, { continueOnFail: true });
			expect(run.posts).toBe(0);
			expect(run.gets).toBeLessThanOrEqual(MAX_CAMPAIGN_ORDERS + 2 * DISCOVERY_MISSES);
			expect(String(run.json[0].error)).toBe(
				`Item 0: campaign "${base}" answers more than ${MAX_CAMPAIGN_ORDERS.toLocaleString('en-US')} orders`,
			);
		} finally {
			sandbox.configure({ phantomOrders: false });
		}
	});

	it('Get Campaign by Row IDs stops too: each block at its cap', async () => {
		const base = uniqueReference('phantom-report');
		sandbox.configure({ phantomOrders: true });
		try {
			const run = await runVoucher(sandbox, GET_CAMPAIGN_BY_ROW_IDS, {
				items: [{ base, from: 0, to: 99 }],
				continueOnFail: true,
			});
			expect(String(run.json[0].error)).toMatch(
				/^Item 0: block 0 of campaign .* answers more than/,
			);
		} finally {
			sandbox.configure({ phantomOrders: false });
		}
	});
});
