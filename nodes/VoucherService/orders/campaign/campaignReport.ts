import type { INode } from 'n8n-workflow';

import type { ItemPlan, RunSettings } from '../../plan';
import type { VoucherApiClient } from '../../transport/client';
import { mapWithConcurrency } from '../../shared/concurrency';
import { operationError } from '../../transport/errors';
import { fieldError } from '../../shared/validation';
import type { CampaignOrder, OldBlockNames, Order } from '../types';
import { campaignReportHint } from './campaignReportHint';
import type { CampaignReport, ReportedVoucher } from './campaignReportHint';
import { unlistedOrderDeliveryStatus, voucherDeliveryStatus } from './deliveryStatus';
import { discoverCampaignOrders } from './discovery';
import {
	blockOrderReference,
	blockOrders,
	oldBlockOrders,
	oldNameProblem,
	ROW_BLOCK_SIZE,
	rowBlock,
} from './rowBlocks';

/** The blocks an item asks about, for a campaign fed by Row ID: `count` blocks from `first`. */
export interface BlockRange {
	first: string;
	count: number;
}

/** The base reference one input item asks about, checked, with its blocks if paged; or why it cannot be used. */
export type ReadCampaignBase =
	| { itemIndex: number; base: string; blocks?: BlockRange }
	| { itemIndex: number; error: unknown };

/*
 * The most blocks one item may read: 10,000 blocks are 10,000,000 Row IDs, and at least as many
 * look-ups as blocks (eleven with 0.3.0's names), since the service lists no orders. A range past
 * it (0 to 10^15 would be 10^12 look-ups) is a mistake, not a report; a larger campaign is
 * reported in several ranges.
 */
export const MAX_REPORT_BLOCKS = 10_000;

/**
 * The most orders one item's blocks may hold as read: twenty per block at the most blocks (a
 * block of 1,000 rows with three amounts holds twelve). Each block is capped too (rowBlocks.ts);
 * this keeps a report of many blocks, each answered with orders without end, from reading
 * millions before it fails.
 */
export const MAX_REPORT_ORDERS = 20 * MAX_REPORT_BLOCKS;

const grouped = (count: number | bigint) => count.toLocaleString('en-US');

/** The blocks that hold Row IDs `from` to `to`; too many is bad input, naming the item and the field. */
export function reportBlocks(
	node: INode,
	itemIndex: number,
	{ from, to }: { from: string; to: string },
): BlockRange {
	const first = BigInt(rowBlock(from));
	const count = BigInt(rowBlock(to)) - first + BigInt(1);
	if (count > BigInt(MAX_REPORT_BLOCKS))
		throw fieldError(
			node,
			itemIndex,
			'rowIdsTo',
			`Row IDs ${from} to ${to} span ${grouped(count)} blocks of ${ROW_BLOCK_SIZE} IDs, more than the ${grouped(MAX_REPORT_BLOCKS)} one item may read`,
			`Each block costs a look-up. Report at most ${grouped(MAX_REPORT_BLOCKS * ROW_BLOCK_SIZE)} Row IDs per item, in several items or executions.`,
		);
	return { first: first.toString(), count: Number(count) };
}

function tooManyOrders(node: INode, itemIndex: number, base: string) {
	return operationError(
		node,
		`Item ${itemIndex}: the Row IDs asked for hold more than ${grouped(MAX_REPORT_ORDERS)} orders of campaign "${base}"`,
		{
			itemIndex,
			description:
				'Report a smaller range of Row IDs per item. If the range is small, the service, or something in front of it, may answer every Reference with an order.',
		},
	);
}

/** The order's columns on each of its items; the reference is the one looked up (the answer may omit it). */
const orderColumns = (reference: string, order: Order) => ({
	reference,
	orderNumber: order.orderNumber,
	orderStatus: order.status,
});

/**
 * One item per listed voucher. An order that lists none (still PROCESSING, FAILED, CANCELED,
 * or final without a list) is one item of its own with `vouchersListed: false`, so the report
 * never hides an order whose recipients the service did not name. Codes and PINs are left out
 * on purpose: the report is about delivery, and may go to an AI agent.
 */
function reportedVouchers(reference: string, order: Order): ReportedVoucher[] {
	const vouchers = order.vouchers ?? [];
	if (vouchers.length === 0) {
		return [
			{
				email: null,
				firstName: null,
				lastName: null,
				value: null,
				serial: null,
				...orderColumns(reference, order),
				deliveryStatus: unlistedOrderDeliveryStatus(order),
				vouchersListed: false,
			},
		];
	}
	return vouchers.map((voucher) => ({
		email: voucher.email ?? null,
		firstName: voucher.firstName ?? null,
		lastName: voucher.lastName ?? null,
		value: voucher.value ?? null,
		serial: voucher.serial ?? null,
		...orderColumns(reference, order),
		deliveryStatus: voucherDeliveryStatus(voucher.status),
	}));
}

/** Orders read under one numbering (the whole sheet's, or one block's) and their items. */
interface Found {
	orders: number;
	items: ReportedVoucher[];
}

const foundOf = (orders: CampaignOrder[]): Found => ({
	orders: orders.length,
	items: orders.flatMap(({ reference, order }) => reportedVouchers(reference, order)),
});

/** What the report has read of one campaign, each part once however many items ask for it. */
interface ReadCampaign {
	wholeSheet?: Found;
	blocks: Map<string, Found>;
}

const blockAt = ({ first }: BlockRange, index: number) =>
	(BigInt(first) + BigInt(index)).toString();

/**
 * The vouchers of the blocks in `range`, each block read up to its first `04` (rowBlocks.ts),
 * up to `concurrency` blocks at once. A block read already, for an earlier item, is not read
 * again; the blocks of this item join `campaign` only once all of them are read, so that the
 * hint counts no part of a failed item's range.
 */
async function readBlocks(
	client: VoucherApiClient,
	base: string,
	campaign: ReadCampaign,
	range: BlockRange,
	itemIndex: number,
	concurrency: number,
	oldNames: OldBlockNames,
): Promise<ReportedVoucher[]> {
	const blocks = Array.from({ length: range.count }, (_, index) => blockAt(range, index));
	const unread = blocks.filter((block) => !campaign.blocks.has(block));
	let left = MAX_REPORT_ORDERS;
	const read = await mapWithConcurrency(unread.length, concurrency, async (index) => {
		const block = unread[index];
		const orders: CampaignOrder[] = [];
		for await (const order of blockOrders(client, base, block, itemIndex)) {
			if (--left < 0) throw tooManyOrders(client.node, itemIndex, base);
			orders.push(order);
		}
		if (oldNames === 'ignore') return foundOf(orders);
		const old = await oldBlockOrders(client, base, block, itemIndex);
		left -= old.length;
		if (left < 0) throw tooManyOrders(client.node, itemIndex, base);
		if (old.length > 0 && oldNames === 'refuse') {
			const [message, description] = oldNameProblem(old[0].reference, 'its block is not reported');
			throw operationError(client.node, `Item ${itemIndex}: ${message}`, {
				itemIndex,
				description,
			});
		}
		return foundOf([...old, ...orders]);
	});
	unread.forEach((block, index) => campaign.blocks.set(block, read[index]));
	return blocks.flatMap((block) => campaign.blocks.get(block)?.items ?? []);
}

/** Digits of whole numbers without leading zeros, in numeric order. */
const numerically = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** The orders looked for, for the hint when none was found. */
function lookedFor(base: string, campaign: ReadCampaign): string[] {
	const where = campaign.wholeSheet ? [`${base}-1, ${base}-2, …`] : [];
	const blocks = [...campaign.blocks.keys()].sort(numerically);
	if (blocks.length === 0) return where;
	const [first, last] = [blocks[0], blocks[blocks.length - 1]];
	const firstOrder = blockOrderReference(base, first, 1);
	return [
		...where,
		first === last ? firstOrder : `${firstOrder} to ${blockOrderReference(base, last, 1)}`,
	];
}

function reportOf(base: string, campaign: ReadCampaign): CampaignReport {
	const parts = [
		...(campaign.wholeSheet ? [campaign.wholeSheet] : []),
		...campaign.blocks.values(),
	];
	return {
		base,
		orders: parts.reduce((sum, part) => sum + part.orders, 0),
		items: parts.flatMap((part) => part.items),
		lookedFor: lookedFor(base, campaign),
		byRowId: campaign.blocks.size > 0,
	};
}

/**
 * Order → Get Campaign: each input item's campaign as one item per voucher. Reads only:
 * nothing is ever created. A campaign, or a block of one, asked for by several items is read
 * once; each item gets its own copy. With no order found an item gets no output, and the hint
 * says so.
 *
 * Without Row IDs, the orders `<base>-1`, … are found as a campaign run finds them
 * (discovery.ts, the same stopping rule). With Row IDs, only the blocks that hold them are read,
 * and no whole-sheet order: a base is paged or whole-sheet, never both (a paged run refuses a
 * base with `<base>-1`), so looking for them would cost at least 32 look-ups per campaign and
 * find nothing.
 */
export async function planCampaignReport(
	client: VoucherApiClient,
	reads: ReadCampaignBase[],
	run: RunSettings,
	oldNames: OldBlockNames,
): Promise<ItemPlan> {
	const plan: ItemPlan = { settled: [], jobs: [] };
	const failed = () => plan.settled.filter((outcome) => 'error' in outcome).length;
	for (const read of reads) if ('error' in read) plan.settled.push(read);
	// Without continueOnFail a bad item stops the node before anything is sent.
	if (failed() > 0 && !run.continueOnFail) return plan;

	const campaigns = new Map<string, ReadCampaign>();
	for (const read of reads) {
		if ('error' in read) continue;
		const { itemIndex, base, blocks } = read;
		const campaign = campaigns.get(base) ?? { blocks: new Map<string, Found>() };
		let items: ReportedVoucher[];
		try {
			if (blocks) {
				items = await readBlocks(
					client,
					base,
					campaign,
					blocks,
					itemIndex,
					run.concurrency,
					oldNames,
				);
			} else {
				campaign.wholeSheet ??= foundOf(await discoverCampaignOrders(client, base, itemIndex));
				items = campaign.wholeSheet.items;
			}
		} catch (error) {
			plan.settled.push({ itemIndex, error });
			if (!run.continueOnFail) return plan;
			continue;
		}
		campaigns.set(base, campaign);
		plan.settled.push({ itemIndex, json: items.map((item) => ({ ...item })) });
	}
	const reports = [...campaigns].map(([base, campaign]) => reportOf(base, campaign));
	if (reports.length > 0) plan.hints = [campaignReportHint(reports, failed())];
	return plan;
}
