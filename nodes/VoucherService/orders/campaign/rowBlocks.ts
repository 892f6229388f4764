import type { VoucherApiClient } from '../../transport/client';
import { operationError } from '../../transport/errors';
import type { CampaignOrder, CampaignRow } from '../types';
import { findOrder } from '../lookup';

/*
 * Where a campaign fed by Row ID keeps its orders (issue 41): rows are grouped by ID into blocks
 * of ROW_BLOCK_SIZE = 1,000 (IDs 12000 to 12999 are block 12), and each block numbers its own
 * orders `<base>-k12-n1`, `-n2`, …, every amount (product, template) in one series. Shared by
 * the runs that buy (pagedCampaign.ts) and the report that reads (campaignReport.ts).
 *
 * Why 1,000: an order has one amount, so a block costs one create per amount it holds (per 100
 * rows of it). With three amounts, blocks of 100 cost 0.03 creates a row; blocks of 1,000 cost
 * 0.012 (3 × ⌈333 ÷ 100⌉ ÷ 1,000), at Recipients per Order 100. One series per block (not one per
 * amount) keeps a new block at one look-up. The price: a page smaller than a block reads the
 * block's orders bought by other pages (up to the first that misses, or until its rows are held),
 * and a person listed twice at one amount in a block, on two pages, gets one voucher (C2 in
 * test/sim/model.mts): the block is the scope.
 *
 * Requests a row (Recipients per Order 100, pages aligned to blocks, the wallet checked, Orders
 * Named by 0.3.0 read): a first run costs per block 1 look-up, 10 look-ups of 0.3.0's names and
 * one create per 100 rows of each amount; per page, the wallet and 32 look-ups for whole-sheet
 * orders (pagedCampaign.ts, refuseWholeSheetOrders). A re-run costs one look-up per order. So
 * pages of 1,000 with 3 amounts: 56 requests (0.056 a row) first, 12 (0.012) again; the 32 alone
 * keep a first run above 0.025. Worst cases: 50 amounts cost 50 creates a block (0.094 a row
 * first, 0.05 again); pages of one row read on average half their block's orders (about 500
 * look-ups a row where blocks of 100 read 50), as pages of 100 read about five (0.055 a row again).
 *
 * What keeps each row bought once is unchanged from blocks of 100 (pagedCampaign.ts): a page
 * reads every order of its blocks before buying, a block's orders are gap-free, two runs at once
 * meet at one number and the second matches its rows against the first's order, and a crash
 * leaves a block's orders gap-free, so the re-run reads them all.
 *
 * Why `-n`: a whole-sheet campaign's orders end in `-<digits>` (discovery.ts), and these never
 * do, so no whole-sheet base can name one of them; and read from its end, a name gives back its
 * base, so two paged bases never share one either. Why `-k`: the unreleased `-b<block>-n<m>`
 * names were blocks of 100; a new letter keeps an order of theirs from being read as a block of
 * 1,000.
 *
 * 0.3.0 named blocks of 100 `<base>-b123-1`, `-2`, … (block 123 is IDs 12300 to 12399), which
 * the whole-sheet campaign `<base>-b123` also names: an order found under such a name cannot be
 * told apart, so the user says whose it is (Orders Named by 0.3.0). They are read, never
 * created: the ten blocks of 100 in a block, each up to its first miss, whenever a page has a
 * row of the block that today's orders do not hold, so what a page reads does not depend on
 * where it was cut. Each holds only rows of its own block of 100 (holdsRowOf), as in 0.3.0,
 * and a re-run whose rows are held reads none of them.
 */
const ROW_BLOCK_DIGITS = 3;
export const ROW_BLOCK_SIZE = 10 ** ROW_BLOCK_DIGITS;

/** 0.3.0's blocks of 100 IDs: the last digit of their number is the place in today's block. */
const OLD_BLOCK_DIGITS = 2;
const OLD_BLOCKS_PER_BLOCK = 10 ** (ROW_BLOCK_DIGITS - OLD_BLOCK_DIGITS);

/**
 * The most orders one block may hold as read: a block has 1,000 rows, each bought once, so even
 * with one recipient per order and every order refused once, 2,000 are enough. A service or
 * gateway that answers every Reference with an order would otherwise be read without end.
 */
export const MAX_BLOCK_ORDERS = 5 * ROW_BLOCK_SIZE;

/** The same bound for one of 0.3.0's blocks of 100 (its cap in 0.3.0). */
export const MAX_OLD_BLOCK_ORDERS = 5 * 10 ** OLD_BLOCK_DIGITS;

/** The block of a Row ID given as digits without leading zeros, as a block number's digits. */
export const rowBlock = (rowId: string) =>
	rowId.length > ROW_BLOCK_DIGITS ? rowId.slice(0, -ROW_BLOCK_DIGITS) : '0';

export const blockOrderReference = (base: string, block: string, number: number) =>
	`${base}-k${block}-n${number}`;

/** 0.3.0's name of an order of its block of 100: read, never created, so its campaigns can finish. */
const legacyBlockOrderReference = (base: string, oldBlock: string, number: number) =>
	`${base}-b${oldBlock}-${number}`;

/** 0.3.0's block of 100 of a Row ID given as digits without leading zeros. */
const oldBlockOf = (rowId: string) =>
	rowId.length > OLD_BLOCK_DIGITS ? rowId.slice(0, -OLD_BLOCK_DIGITS) : '0';

/**
 * Whether an order can hold a row: 0.3.0's orders only the rows of their own block of 100, as
 * 0.3.0 read them. Counting them for the whole block would let the clash of their names with
 * the whole-sheet campaign `<base>-b<k>` reach ten times the rows.
 */
export const holdsRowOf = (order: CampaignOrder, row: CampaignRow) =>
	order.oldBlock === undefined || order.oldBlock === oldBlockOf(row.rowId ?? '0');

/** 0.3.0's blocks of 100 within a block: 0 to 9 in block 0, 120 to 129 in block 12. */
const oldBlocksOf = (block: string) =>
	Array.from({ length: OLD_BLOCKS_PER_BLOCK }, (_, digit) =>
		block === '0' ? String(digit) : `${block}${digit}`,
	);

/** Why a block with an order under 0.3.0's names is not used until the user says whose it is. */
export function oldNameProblem(reference: string, what: string): [string, string] {
	const owner = reference.replace(/-\d+$/, '');
	return [
		`order ${reference} has a name of version 0.3.0, so ${what}`,
		`Version 0.3.0 named a block's orders so, and a whole-sheet campaign named "${owner}" makes the same names: whose it is cannot be read from the service. In Options, set "Orders Named by 0.3.0" to "Count as This Campaign's" if this campaign was started on 0.3.0, or to "Ignore (Another Campaign's)" if it is that whole-sheet campaign's, and run again.`,
	];
}

/** How a block is read. */
export interface BlockReading {
	/** One of a bounded window of blocks read at once (see findOrder). */
	burst?: boolean;
	/** Told when `-n1` is missing: the block most likely has no order, so the caller can send what it will need then. */
	onFirstMiss?: () => void;
}

/** Orders numbered 1, 2, … under `referenceOf`, read one after the other up to the first `04`. */
async function* series(
	client: VoucherApiClient,
	referenceOf: (number: number) => string,
	cap: number,
	what: string,
	itemIndex: number,
	{ burst = false, onFirstMiss }: BlockReading,
): AsyncGenerator<CampaignOrder> {
	for (let number = 1; ; number++) {
		const reference = referenceOf(number);
		if (number > cap)
			throw operationError(
				client.node,
				`Item ${itemIndex}: ${what} answers more than ${cap} orders`,
				{
					itemIndex,
					description: `A block of ${ROW_BLOCK_SIZE} Row IDs never needs so many, so the answers are not this campaign's orders: the service, or something in front of it, may answer every Reference with an order. Nothing was bought for the rows of this block. Check ${reference} with Order → Get.`,
				},
			);
		const order = await findOrder(client, reference, itemIndex, burst);
		if (!order) {
			if (number === 1) onFirstMiss?.();
			return;
		}
		yield { number, reference, order };
	}
}

/**
 * A block's orders in number order, read one after the other until the first `04`: a block's
 * orders have no gap (pagedCampaign.ts says why). A reader that has seen enough stops early.
 */
export function blockOrders(
	client: VoucherApiClient,
	base: string,
	block: string,
	itemIndex: number,
	reading: BlockReading = {},
): AsyncGenerator<CampaignOrder> {
	const what = `block ${block} of campaign "${base}"`;
	const referenceOf = (number: number) => blockOrderReference(base, block, number);
	return series(client, referenceOf, MAX_BLOCK_ORDERS, what, itemIndex, reading);
}

/**
 * The orders of the block under 0.3.0's names (marked with their `oldBlock`): its ten blocks of 100 read at
 * once, each up to its first `04` (0.3.0 kept them gap-free the same way), in block order.
 */
export async function oldBlockOrders(
	client: VoucherApiClient,
	base: string,
	block: string,
	itemIndex: number,
	burst = false,
): Promise<CampaignOrder[]> {
	const read = await Promise.all(
		oldBlocksOf(block).map(async (oldBlock) => {
			const orders: CampaignOrder[] = [];
			const what = `block ${oldBlock} of campaign "${base}" (0.3.0's names)`;
			const referenceOf = (number: number) => legacyBlockOrderReference(base, oldBlock, number);
			const reading = { burst };
			for await (const found of series(
				client,
				referenceOf,
				MAX_OLD_BLOCK_ORDERS,
				what,
				itemIndex,
				reading,
			))
				orders.push({ ...found, oldBlock });
			return orders;
		}),
	);
	return read.flat();
}
