import type { VoucherApiClient } from '../../transport/client';
import { operationError } from '../../transport/errors';
import type { CampaignOrder } from '../types';
import { findOrder } from '../lookup';

/*
 * Where a campaign fed by Row ID keeps its orders: rows are grouped by ID into blocks of
 * ROW_BLOCK_SIZE (IDs 12300 to 12399 are block 123), and each block numbers its own orders
 * `<base>-b123-n1`, `<base>-b123-n2`, …. Shared by the runs that buy (pagedCampaign.ts) and the
 * report that reads (campaignReport.ts).
 *
 * Why `-n`: a whole-sheet campaign's orders end in `-<digits>` (discovery.ts), and these never
 * do, so no whole-sheet base can name one of them; and read from its end, a name gives back its
 * base, so two paged bases never share one either. 0.3.0 named them `<base>-b123-1`, which the
 * whole-sheet campaign `<base>-b123` also names: an order found under such a name cannot be
 * told apart, so the user says whose it is (Orders Named by 0.3.0).
 */
const ROW_BLOCK_DIGITS = 2;
export const ROW_BLOCK_SIZE = 10 ** ROW_BLOCK_DIGITS;

/**
 * The most orders one block may hold as read: a block has 100 rows, each bought once, so even
 * with one recipient per order and every order refused once, 200 are enough. A service or
 * gateway that answers every Reference with an order would otherwise be read without end.
 */
export const MAX_BLOCK_ORDERS = 5 * ROW_BLOCK_SIZE;

/** The block of a Row ID given as digits without leading zeros, as a block number's digits. */
export const rowBlock = (rowId: string) =>
	rowId.length > ROW_BLOCK_DIGITS ? rowId.slice(0, -ROW_BLOCK_DIGITS) : '0';

export const blockOrderReference = (base: string, block: string, number: number) =>
	`${base}-b${block}-n${number}`;

/** 0.3.0's name of the same order: read, never created, so its campaigns can finish. */
const legacyBlockOrderReference = (base: string, block: string, number: number) =>
	`${base}-b${block}-${number}`;

/** Why a block with an order under 0.3.0's names is not used until the user says whose it is. */
export function oldNameProblem(reference: string, what: string): [string, string] {
	const owner = reference.replace(/-\d+$/, '');
	return [
		`order ${reference} has a name of version 0.3.0, so ${what}`,
		`Version 0.3.0 named a block's orders so, and a whole-sheet campaign named "${owner}" makes the same names: whose it is cannot be read from the service. In Options, set "Orders Named by 0.3.0" to "Count as This Campaign's" if this campaign was started on 0.3.0, or to "Ignore (Another Campaign's)" if it is that whole-sheet campaign's, and run again.`,
	];
}

/** How a block is read: `oldNames` off for a block whose 0.3.0 names are another campaign's. */
export interface BlockReading {
	/** One of a bounded window of blocks read at once (see findOrder). */
	burst?: boolean;
	oldNames?: boolean;
	/** Told when `-n1` is missing: the block most likely has no order, so the caller can send what it will need then. */
	onFirstMiss?: () => void;
}

/**
 * A block's orders in number order, read one after the other until the first `04`: a block's
 * orders have no gap (pagedCampaign.ts says why). A reader that has seen enough stops early.
 *
 * A block begun on 0.3.0 holds `-1` … `-m` under the old names, and its later orders go on from
 * `-n<m+1>`; so when `-n1` is missing, the old names are read first (marked `oldName`). That
 * costs a new block one look-up more.
 */
export async function* blockOrders(
	client: VoucherApiClient,
	base: string,
	block: string,
	itemIndex: number,
	{ burst = false, oldNames = true, onFirstMiss }: BlockReading = {},
): AsyncGenerator<CampaignOrder> {
	const read = async (reference: string, number: number) => {
		if (number > MAX_BLOCK_ORDERS)
			throw operationError(
				client.node,
				`Item ${itemIndex}: block ${block} of campaign "${base}" answers more than ${MAX_BLOCK_ORDERS} orders`,
				{
					itemIndex,
					description: `A block of ${ROW_BLOCK_SIZE} Row IDs never needs so many, so the answers are not this campaign's orders: the service, or something in front of it, may answer every Reference with an order. Nothing was bought for the rows of this block. Check ${reference} with Order → Get.`,
				},
			);
		const order = await findOrder(client, reference, itemIndex, burst);
		return order && { number, reference, order };
	};
	let number = 1;
	let found = await read(blockOrderReference(base, block, number), number);
	if (!found) {
		onFirstMiss?.();
		for (;;) {
			const old = oldNames && (await read(legacyBlockOrderReference(base, block, number), number));
			if (!old) break;
			yield { ...old, oldName: true };
			number++;
		}
		if (number === 1) return;
		found = await read(blockOrderReference(base, block, number), number);
	}
	while (found) {
		yield found;
		number++;
		found = await read(blockOrderReference(base, block, number), number);
	}
}
