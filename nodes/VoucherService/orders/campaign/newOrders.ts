import type { INode } from 'n8n-workflow';

import type { ItemOutcome } from '../../plan';
import type { CampaignRow, CampaignSettings, PlannedOrder } from '../types';
import { orderTotalKobo } from '../core/orderTotal';
import { SPENDING_LIMIT_ADVICE, spendingLimitProblem } from '../core/spendingGuard';
import { chunkNewRows } from './reconciliation';
import { rowFailure } from './rowOutcomes';

/** A new order of a campaign and the rows it buys for. */
export interface NewOrder {
	rows: CampaignRow[];
	/** Its number in the campaign's (or block's) numbering. */
	number: number;
	order: PlannedOrder;
}

/**
 * New rows as orders of at most Recipients per Order, numbered from `firstNumber` by
 * `referenceOf`. An order above Maximum Order Total is refused before it is sent and takes no
 * number, so numbers stay gap-free here.
 */
export function planNewOrders(
	node: INode,
	rows: CampaignRow[],
	settings: Pick<CampaignSettings, 'recipientsPerOrder' | 'limitKobo'>,
	firstNumber: number,
	referenceOf: (number: number) => string,
): { orders: NewOrder[]; refused: ItemOutcome[]; chunks: number } {
	const orders: NewOrder[] = [];
	const refused: ItemOutcome[] = [];
	const chunks = chunkNewRows(rows, settings.recipientsPerOrder);
	let number = firstNumber;
	for (const chunk of chunks) {
		// The amount after the product code, where the body of a campaign's order has always had it.
		const { productCode, ...orderFields } = chunk[0].orderFields;
		const order: PlannedOrder = {
			itemIndex: chunk[0].itemIndex,
			request: {
				kind: 'recipients',
				body: {
					productCode,
					amountKobo: chunk[0].amountKobo,
					...orderFields,
					reference: referenceOf(number),
					recipients: chunk.map((row) => row.recipient),
				},
			},
		};
		const overLimit = spendingLimitProblem(orderTotalKobo(order.request), settings.limitKobo);
		if (overLimit) {
			const why: [string, string] = [
				`not bought: order ${order.request.body.reference} of ${chunk.length} recipients would be refused: ${overLimit}`,
				`${SPENDING_LIMIT_ADVICE} The limit applies to each order of the campaign; lower "Recipients per Order" to make smaller orders.`,
			];
			for (const row of chunk) refused.push(rowFailure(node, row, why));
			continue;
		}
		orders.push({ rows: chunk, number, order });
		number++;
	}
	return { orders, refused, chunks: chunks.length };
}
