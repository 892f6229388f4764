/**
 * What a campaign run outputs: each row's own item, labelled with what really happened, and
 * errors that name the row.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';

import { campaignSandboxForThisFile, atAmount, sheet } from '../../campaignRuns.mts';
import { uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign } = await campaignSandboxForThisFile();

describe('outputs and errors of a run', () => {
	it('a row bought by this run whose answer was dropped is not reported as alreadyExisted', async () => {
		sandbox.configure({ faults: { commitThenDropRate: 1, paths: ['/v2/orders/recipients'] } });
		let run;
		try {
			run = await runCampaign(uniqueReference('drop'), atAmount(sheet(2), 1000));
		} finally {
			sandbox.configure({ faults: {} });
		}
		expect(run.error).toBeUndefined();
		expect(run.posts).toBe(1);
		// These rows were bought now (a dry run just before says wouldBuy: true); a sheet
		// written back from this output would say an earlier run bought them.
		expect(run.json.map((row) => row.alreadyExisted)).toEqual([false, false]);
	});

	it('every row of an order the service refused gets an error that names that row', async () => {
		const run = await runCampaign(
			uniqueReference('refused'),
			atAmount(sheet(3), 1000),
			{},
			{ extra: { templateId: 99 }, continueOnFail: true },
		);
		expect(run.posts).toBe(1);
		run.main.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			// Today: "The voucher service refused the request: Invalid template: 99 (code 05)" on
			// all three, and the error's itemIndex is 0 on every one of them.
			expect(String(item.json.error)).toMatch(new RegExp(`^Item ${index}: `));
			expect((item.error as { context?: IDataObject } | undefined)?.context?.itemIndex).toBe(index);
		});
	});

	it('every row of an order the spending guard refused gets an error that names that row', async () => {
		const run = await runCampaign(
			uniqueReference('guard-rows'),
			atAmount(sheet(3), 2000),
			{ maxOrderTotal: 5000 },
			{ continueOnFail: true },
		);
		expect(run.posts).toBe(0);
		// Today all three say "Item 0: order total NGN 6,000.00 is above …".
		run.json.forEach((item, index) =>
			expect(String(item.error)).toMatch(new RegExp(`^Item ${index}: `)),
		);
	});

	it('an existing COMPLETED order without a voucher list is not called PROCESSING, nor promised to clear', async () => {
		const base = uniqueReference('nolist');
		const rows = sheet(2);
		await runCampaign(base, rows);
		// The spec types vouchers as "array or null"; the sandbox answers null for an order
		// without vouchers, so this is a COMPLETED order whose list is null.
		sandbox.state.orders.get(`${base}-1`)!.vouchers = [];
		const again = await runCampaign(base, [...rows, ...sheet(1, 'late')]);
		expect(again.posts).toBe(0);
		// Today: "… is still PROCESSING" and "a later run will finish the job"; the order is
		// COMPLETED, so every later run stops at it in the same way.
		expect(again.error?.message).not.toMatch(/still PROCESSING/);
		expect(again.error?.description).not.toMatch(/a later run will finish the job/);
	});
});
