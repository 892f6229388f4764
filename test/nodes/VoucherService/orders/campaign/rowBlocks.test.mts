/**
 * The names of a block's orders: they never meet a whole-sheet campaign's, a campaign begun on
 * 0.3.0 (whose names do) finishes once the user says whose its orders are, and a service that
 * answers every Reference with an order is read only up to the cap. Judged from the sandbox's
 * books, over HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';

import { MAX_BLOCK_ORDERS } from '../../../../../nodes/VoucherService/orders/campaign/rowBlocks';
import {
	byId,
	campaignSandboxForThisFile,
	GET_CAMPAIGN_BY_ROW_IDS,
	table,
} from '../../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, placeDirectly } = await campaignSandboxForThisFile();

/** The recipients (e-mails) of each order of the books whose reference starts with `prefix`. */
const ordersUnder = (prefix: string) =>
	Object.fromEntries(
		[...sandbox.state.orders.values()]
			.filter((order) => order.reference.startsWith(prefix))
			.map((order) => [order.reference, order.vouchers.map((voucher) => voucher.email).sort()]),
	);

const emails = (rows: IDataObject[]) => rows.map((row) => String(row.email)).sort();

describe("the names of a block's orders", () => {
	it("never meet a whole-sheet campaign's: promo-b1 (a whole sheet) and promo (by Row ID) each buy their own", async () => {
		const base = uniqueReference('promo');
		const rows = table(3, 100); // block 0, and 0.3.0's block 1
		const batch = await runCampaign(`${base}-b1`, rows);
		expect(batch.error).toBeUndefined();

		// promo-b1-1 is also 0.3.0's name of promo's first order in block 1: whose it is cannot be
		// read, so the block is refused until the user says (the next test); never taken as held.
		const unsure = await runCampaign(base, rows, {}, { ...byId, continueOnFail: true });
		expect(unsure.posts).toBe(0);
		expect(unsure.json.every((row) => /name of version 0\.3\.0/.test(String(row.error)))).toBe(
			true,
		);

		const paged = await runCampaign(base, rows, { oldBlockNames: 'ignore' }, byId);
		expect(paged.error).toBeUndefined();
		expect(paged.json.map((row) => [row.reference, row.alreadyExisted])).toEqual(
			rows.map(() => [`${base}-k0-n1`, false]),
		);
		expect(ordersUnder(base)).toEqual({
			[`${base}-b1-1`]: emails(rows),
			[`${base}-k0-n1`]: emails(rows),
		});
	});

	it('a campaign begun on 0.3.0: its block is refused until the user says whose the orders are, then finishes', async () => {
		const base = uniqueReference('old');
		const rows = table(300, 0);
		// 0.3.0 bought rows of its blocks 0 and 1 (IDs 0–99, 100–199), both in today's block 0.
		await placeDirectly(`${base}-b0-1`, rows.slice(0, 20));
		await placeDirectly(`${base}-b0-2`, rows.slice(20, 40));
		await placeDirectly(`${base}-b1-1`, rows.slice(100, 130));
		const old = (i: number) => i < 40 || (i >= 100 && i < 130);
		const fresh = rows.filter((_, i) => !old(i));

		const refused = await runCampaign(base, rows, {}, { ...byId, continueOnFail: true });
		expect(refused.posts).toBe(0);
		expect(refused.json.map((row) => row.error)).toEqual(
			rows.map(
				(_, i) =>
					`Item ${i}: order ${base}-b0-1 has a name of version 0.3.0, so nothing was bought for this row's block`,
			),
		);

		const finished = await runCampaign(base, rows, { oldBlockNames: 'thisCampaign' }, byId);
		expect(finished.error).toBeUndefined();
		expect(finished.json.map((row) => row.alreadyExisted)).toEqual(rows.map((_, i) => old(i)));
		// Today's orders are numbered on their own, from -n1.
		expect(ordersUnder(base)).toEqual({
			[`${base}-b0-1`]: emails(rows.slice(0, 20)),
			[`${base}-b0-2`]: emails(rows.slice(20, 40)),
			[`${base}-b1-1`]: emails(rows.slice(100, 130)),
			[`${base}-k0-n1`]: emails(fresh.slice(0, 100)),
			[`${base}-k0-n2`]: emails(fresh.slice(100, 200)),
			[`${base}-k0-n3`]: emails(fresh.slice(200)),
		});

		// A re-run, in pages that each hold rows of 0.3.0's, reads the old names, buys nothing.
		for (const page of [rows.slice(0, 150), rows.slice(150)]) {
			const again = await runCampaign(base, page, { oldBlockNames: 'thisCampaign' }, byId);
			expect(again.posts).toBe(0);
			expect(again.json.every((row) => row.alreadyExisted === true)).toBe(true);
		}
		// A page whose rows today's orders hold reads no 0.3.0 name.
		const before = apiRequests(sandbox, 'GET').length;
		const held = await runCampaign(base, rows.slice(200), { oldBlockNames: 'thisCampaign' }, byId);
		expect(held.posts).toBe(0);
		const read = apiRequests(sandbox, 'GET').slice(before);
		expect(read.filter((entry) => /-b\d+-\d+$/.test(entry.path))).toEqual([]);
	});

	it("0.3.0's orders hold only rows of their own block of 100, as in 0.3.0", async () => {
		const base = uniqueReference('scope');
		const rows = table(3, 0); // 0.3.0's block 0
		const moved = rows.map((row, i) => ({ ...row, id: 100 + i })); // the same people in its block 1
		await placeDirectly(`${base}-b1-1`, moved);

		const own = await runCampaign(base, rows, { oldBlockNames: 'thisCampaign' }, byId);
		expect(own.error).toBeUndefined();
		expect(own.json.map((row) => [row.reference, row.alreadyExisted])).toEqual(
			rows.map(() => [`${base}-k0-n1`, false]),
		);
		const both = await runCampaign(
			base,
			[...rows, ...moved],
			{ oldBlockNames: 'thisCampaign' },
			byId,
		);
		expect(both.posts).toBe(0);
		expect(both.json.map((row) => [row.reference, row.alreadyExisted])).toEqual([
			...rows.map(() => [`${base}-k0-n1`, true]),
			...moved.map(() => [`${base}-b1-1`, true]),
		]);
	});

	it("orders under 0.3.0's names that are another campaign's: ignored, and not read", async () => {
		const base = uniqueReference('other');
		const rows = table(3, 0);
		await placeDirectly(`${base}-b0-1`, rows);
		const before = apiRequests(sandbox, 'GET').length;
		const run = await runCampaign(base, rows, { oldBlockNames: 'ignore' }, byId);
		expect(run.error).toBeUndefined();
		expect(run.json.map((row) => row.reference)).toEqual(rows.map(() => `${base}-k0-n1`));
		const paths = apiRequests(sandbox, 'GET')
			.slice(before)
			.map((entry) => entry.path);
		expect(paths).not.toContain(`/v2/orders/${base}-b0-1`);
	});

	it('a service that answers every Reference with an order: the block is read up to its cap, and its rows fail clearly', async () => {
		const base = uniqueReference('phantom');
		sandbox.configure({ phantomOrders: true });
		try {
			const run = await runCampaign(base, table(3, 0), {}, { ...byId, continueOnFail: true });
			expect(run.posts).toBe(0);
			expect(run.gets).toBe(MAX_BLOCK_ORDERS);
			expect(String(run.json[0].error)).toBe(
				`Item 0: block 0 of campaign "${base}" answers more than ${MAX_BLOCK_ORDERS} orders`,
			);
			expect(run.json.every((row) => typeof row.error === 'string')).toBe(true);
		} finally {
			sandbox.configure({ phantomOrders: false });
		}
	});
});

describe("Get Campaign of a block with orders under 0.3.0's names", () => {
	const reportOf = (base: string, oldBlockNames?: string) =>
		runVoucher(
			sandbox,
			{ ...GET_CAMPAIGN_BY_ROW_IDS, options: oldBlockNames ? { oldBlockNames } : {} },
			{ items: [{ base, from: 0, to: 99 }], continueOnFail: true },
		);

	it('fails the item until told whose they are; then reports them, or leaves them out', async () => {
		const base = uniqueReference('old-report');
		const rows = table(3, 0);
		await placeDirectly(`${base}-b0-1`, rows);

		const unsure = await reportOf(base);
		expect(String(unsure.json[0].error)).toBe(
			`Item 0: order ${base}-b0-1 has a name of version 0.3.0, so its block is not reported`,
		);
		const own = await reportOf(base, 'thisCampaign');
		expect(own.json.map((item) => item.reference)).toEqual(rows.map(() => `${base}-b0-1`));
		const other = await reportOf(base, 'ignore');
		expect(other.json).toEqual([]);
	});
});
