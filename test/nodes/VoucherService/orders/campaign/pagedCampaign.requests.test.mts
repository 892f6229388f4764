/**
 * What a paged campaign costs in requests a row (issue 41 item 4): the PostgreSQL example's
 * shape, pages of 1,000 IDs each a block, three amounts mixed in every block, counted at the
 * sandbox (every request the node sent, wallet included). A count, not a time: the figures
 * rowBlocks.ts states, and the goal's (0.025 first, 0.012 again) beside them.
 */
import { describe, expect, it } from 'vitest';
import type { INodeParameters } from 'n8n-workflow';

import { byId, campaignSandboxForThisFile, pages, table } from '../../campaignRuns.mts';
import { apiRequests, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, expectEveryRowHeldOnce, expectOneDebitPerOrder } =
	await campaignSandboxForThisFile();

const AMOUNTS = [1000, 2000, 1500];

/** Requests a row of each page's run, in order, and the rows each bought. */
async function perRow(base: string, rows: ReturnType<typeof table>, options: INodeParameters) {
	const figures: number[] = [];
	let bought = 0;
	for (const page of pages(rows, 1000)) {
		const before = apiRequests(sandbox).length;
		const run = await runCampaign(base, page, options, byId);
		expect(run.error).toBeUndefined();
		bought += run.json.filter((row) => row.alreadyExisted === false).length;
		figures.push((apiRequests(sandbox).length - before) / page.length);
	}
	return { figures, bought };
}

describe('requests a row, pages of 1,000 IDs with three amounts in every block', () => {
	const sheet = () =>
		table(3000, 0).map((row, i) => ({ ...row, amount: AMOUNTS[i % AMOUNTS.length] }));

	it("reading 0.3.0's names (the default): 0.056 first, 0.012 again", async () => {
		const base = uniqueReference('cost');
		const rows = sheet();
		// Per page: 1 look-up (-n1), 10 of 0.3.0's names, 32 for whole-sheet orders, the wallet,
		// and 3 × ⌈333 ÷ 100⌉ = 12 creates.
		const first = await perRow(base, rows, {});
		expect(first).toEqual({ figures: [0.056, 0.056, 0.056], bought: 3000 });
		// Per page: one look-up per order, the last of them holding the page's last rows.
		const again = await perRow(base, rows, {});
		expect(again).toEqual({ figures: [0.012, 0.012, 0.012], bought: 0 });
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('with Orders Named by 0.3.0 → Ignore: 0.046 first, what the whole-sheet check leaves', async () => {
		const base = uniqueReference('cost-new');
		const rows = sheet();
		const options = { oldBlockNames: 'ignore' };
		const first = await perRow(base, rows, options);
		expect(first).toEqual({ figures: [0.046, 0.046, 0.046], bought: 3000 });
		const again = await perRow(base, rows, options);
		expect(again).toEqual({ figures: [0.012, 0.012, 0.012], bought: 0 });
	});
});
