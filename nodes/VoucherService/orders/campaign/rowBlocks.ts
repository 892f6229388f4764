import type { VoucherApiClient } from '../../transport/client';
import type { CampaignOrder } from '../types';
import { findOrder } from '../lookup';

/*
 * Where a campaign fed by Row ID keeps its orders: rows are grouped by ID into blocks of
 * ROW_BLOCK_SIZE (IDs 12300 to 12399 are block 123), and each block numbers its own orders
 * `<base>-b123-1`, `<base>-b123-2`, …. Shared by the runs that buy (pagedCampaign.ts) and the
 * report that reads (campaignReport.ts).
 */
const ROW_BLOCK_DIGITS = 2;
export const ROW_BLOCK_SIZE = 10 ** ROW_BLOCK_DIGITS;

/** The block of a Row ID given as digits without leading zeros, as a block number's digits. */
export const rowBlock = (rowId: string) =>
	rowId.length > ROW_BLOCK_DIGITS ? rowId.slice(0, -ROW_BLOCK_DIGITS) : '0';

export const blockOrderReference = (base: string, block: string, number: number) =>
	`${base}-b${block}-${number}`;

/**
 * A block's orders in number order, read one after the other until the first `04`: a block's
 * orders have no gap (pagedCampaign.ts says why). A reader that has seen enough stops early.
 * `burst`: the reader reads a bounded window of blocks at once (see findOrder).
 */
export async function* blockOrders(
	client: VoucherApiClient,
	base: string,
	block: string,
	itemIndex: number,
	burst = false,
): AsyncGenerator<CampaignOrder> {
	for (let number = 1; ; number++) {
		const reference = blockOrderReference(base, block, number);
		const order = await findOrder(client, reference, itemIndex, burst);
		if (!order) return;
		yield { number, order };
	}
}
