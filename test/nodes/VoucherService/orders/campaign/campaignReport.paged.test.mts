/**
 * Order → Get Campaign with Row IDs From and To: the report of a campaign bought by Row ID,
 * judged against the sandbox's own orders. It reads only the blocks that hold the range, each
 * up to its first `04`, each once however many items ask, and no whole-sheet order.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject, IPairedItemData } from 'n8n-workflow';

import {
	MAX_REPORT_BLOCKS,
	reportBlocks,
} from '../../../../../nodes/VoucherService/orders/campaign/campaignReport';
import { formatNaira } from '../../../../../nodes/VoucherService/shared/money';
import {
	byId,
	campaignSandboxForThisFile,
	GET_CAMPAIGN_BY_ROW_IDS,
	hints,
	pages,
	table,
	tableInBlocks,
} from '../../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, reportFromBooks } = await campaignSandboxForThisFile();

interface Asked extends IDataObject {
	base: string;
	from?: string | number;
	to?: string | number;
}

/** Get Campaign, one input item per campaign and range asked. */
async function report(asked: Asked[]) {
	const before = apiRequests(sandbox).length;
	const result = await runVoucher(sandbox, GET_CAMPAIGN_BY_ROW_IDS, { items: asked });
	const requests = apiRequests(sandbox).slice(before);
	return {
		...result,
		posts: requests.filter((entry) => entry.method !== 'GET').length,
		/** The References looked up, in the order asked. */
		read: requests.map((entry) => decodeURIComponent(entry.path.replace('/v2/orders/', ''))),
		hint: hints(result)[0],
	};
}

const inBlocks = (base: string, blocks: number[]) => (item: IDataObject) =>
	blocks.some((block) => String(item.reference).startsWith(`${base}-k${block}-`));

/** The first of 0.3.0's names of each block of 100 in `block`: read after today's names. */
const oldFirsts = (base: string, block: number) =>
	Array.from({ length: 10 }, (_, digit) => `${base}-b${block * 10 + digit}-1`);

/**
 * A campaign of 250 rows, 100 in each block (IDs 0–99, 1000–1099, 2000–2049), bought in pages
 * of 60, which cut across blocks: block 0 has orders -n1 and -n2, block 1 -n1 to -n3, block 2
 * -n1 and -n2. Then IDs 3000 to 3002 in an order that FAILED without vouchers (k3-n1).
 */
async function pagedCampaign(base: string) {
	for (const page of pages(tableInBlocks(250, 100), 60)) {
		expect((await runCampaign(base, page, {}, byId)).error).toBeUndefined();
	}
	const failed = tableInBlocks(3, 100, 3);
	const wait = { waitForCompletion: true, waitTimeoutSeconds: 10 };
	await runCampaign(base, failed, wait, {
		extra: { ...byId.extra, productCode: 'VCH-SLOW-FAILED' },
	});
}

describe('Get Campaign of a campaign bought by Row ID', () => {
	it('reports every voucher of the blocks in range as the books hold them, reading each block up to its first 04 and nothing else', async () => {
		const base = uniqueReference('paged-report');
		await pagedCampaign(base);
		const books = reportFromBooks(base);

		const run = await report([{ base, from: 0, to: 3999 }]);
		expect(run.error).toBeUndefined();
		expect(run.posts).toBe(0);
		expect(run.json).toEqual(books);
		expect(run.json).toHaveLength(250 + 1);
		// Each block's orders, the miss above them and its blocks of 100 under 0.3.0's names; no
		// whole-sheet order, no other block.
		const expectedReads = [0, 1, 2, 3].flatMap((block) => {
			const orders = books.filter(inBlocks(base, [block])).map((item) => item.reference);
			const miss = `${base}-k${block}-n${new Set(orders).size + 1}`;
			return [...new Set(orders), miss, ...oldFirsts(base, block)];
		});
		expect([...run.read].sort()).toEqual(expectedReads.sort());
		run.main.forEach((item) => expect(item.pairedItem).toEqual({ item: 0 }));

		const totalKobo = 250 * 1000 * 100;
		expect(run.hint.message).toBe(
			`Campaign "${base}": 250 vouchers in 8 orders, worth ${formatNaira(totalKobo)}: 250 DELIVERED, 0 FAILED, 0 CANCELED, 0 PROCESSING. Order ${base}-k3-n1 (FAILED) lists no vouchers, so its recipients are not in this report.`,
		);
	});

	it('reads only the blocks that hold the range, whole blocks, Row IDs as text with leading zeros', async () => {
		const base = uniqueReference('paged-range');
		await pagedCampaign(base);

		const middle = await report([{ base, from: '001050', to: ' 1080 ' }]);
		expect(middle.read.slice(0, 4)).toEqual([1, 2, 3, 4].map((n) => `${base}-k1-n${n}`));
		expect(middle.read.slice(4).sort()).toEqual(oldFirsts(base, 1).sort());
		expect(middle.json).toEqual(reportFromBooks(base).filter(inBlocks(base, [1])));
		expect(middle.json).toHaveLength(100);

		// ID 2049 lies in block 2, whose orders also hold IDs 2000 to 2048: a report is of whole blocks.
		const one = await report([{ base, from: 2049, to: 2049 }]);
		expect(one.read.slice(0, 3)).toEqual([1, 2, 3].map((n) => `${base}-k2-n${n}`));
		expect(one.read.slice(3).sort()).toEqual(oldFirsts(base, 2).sort());
		expect(one.json).toHaveLength(50);
	});

	it('a block asked for by several items is read once, each item gets its own blocks, the hint counts each once', async () => {
		const base = uniqueReference('paged-twice');
		await pagedCampaign(base);
		const books = reportFromBooks(base);

		const run = await report([
			{ base, from: 0, to: 1999 },
			{ base, from: 1000, to: 2999 },
		]);
		expect(run.error).toBeUndefined();
		expect(run.read).toHaveLength(3 + 4 + 3 + 3 * 10);
		expect(new Set(run.read).size).toBe(run.read.length);
		const itemsOf = (item: number) =>
			run.json.filter((_, index) => (run.main[index].pairedItem as IPairedItemData).item === item);
		expect(itemsOf(0)).toEqual(books.filter(inBlocks(base, [0, 1])));
		expect(itemsOf(1)).toEqual(books.filter(inBlocks(base, [1, 2])));
		expect(run.hint.message).toMatch(new RegExp(`^Campaign "${base}": 250 vouchers in 7 orders,`));
	});

	it('a Row ID of a database bigint, as text with leading zeros, finds its block', async () => {
		const base = uniqueReference('paged-bigint');
		const rows = table(3).map((row, i) => ({ ...row, key: `00${9007199254740993n + BigInt(i)}` }));
		await runCampaign(base, rows, {}, { extra: { rowIdField: '={{ $json.key }}' } });

		const run = await report([{ base, from: '009007199254740993', to: '9007199254740995' }]);
		expect(run.read.slice(0, 2)).toEqual([
			`${base}-k9007199254740-n1`,
			`${base}-k9007199254740-n2`,
		]);
		expect(run.read.slice(2).sort()).toEqual(
			Array.from({ length: 10 }, (_, digit) => `${base}-b9007199254740${digit}-1`).sort(),
		);
		expect(run.json).toEqual(reportFromBooks(base));
		expect(run.json).toHaveLength(3);
	});

	it('no order in range: no items, and the hint names the orders looked for', async () => {
		const base = uniqueReference('paged-none');
		const run = await report([{ base, from: 0, to: 9999 }]);
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([]);
		// Each block under its name, and its ten blocks of 100 under 0.3.0's.
		expect(run.read).toHaveLength(10 * 11);
		expect(run.hint.message).toBe(
			`No orders found for campaign "${base}" (orders ${base}-k0-n1 to ${base}-k9-n1): check the base reference and the Row IDs.`,
		);
		expect(run.hint.type).toBe('warning');
	});

	it('without Row IDs the report is unchanged: it looks for whole-sheet orders only', async () => {
		const base = uniqueReference('paged-unasked');
		await runCampaign(base, table(5), {}, byId);
		const run = await report([{ base }]);
		expect(run.json).toEqual([]);
		expect(run.read).toEqual(Array.from({ length: 32 }, (_, i) => `${base}-${i + 1}`));
		expect(run.hint.message).toBe(
			`No orders found for campaign "${base}" (orders ${base}-1, ${base}-2, …): check the base reference.`,
		);
	});
});

describe('the cap on blocks per item', () => {
	const node = { name: 'Voucher Service', parameters: {} } as never;

	it.each([
		['0', '9999999', 10_000],
		['50', '9999999', 10_000],
		['12000', '12999', 1],
		['999', '1000', 2],
	])('Row IDs %s to %s are %i blocks, within the cap', (from, to, count) => {
		expect(reportBlocks(node, 0, { from, to }).count).toBe(count);
		expect(count).toBeLessThanOrEqual(MAX_REPORT_BLOCKS);
	});

	it.each([
		['0', '10000000', '10,001'],
		['50', '10000049', '10,001'],
		['0', '1000000000000000', '1,000,000,000,001'],
	])('Row IDs %s to %s are %s blocks: refused, naming the field', (from, to, count) => {
		expect(() => reportBlocks(node, 3, { from, to })).toThrow(
			`Item 3: invalid "rowIdsTo": Row IDs ${from} to ${to} span ${count} blocks of 1000 IDs, more than the 10,000 one item may read`,
		);
	});
});
