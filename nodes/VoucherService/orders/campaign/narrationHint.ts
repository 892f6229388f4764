import type { NodeExecutionHint } from 'n8n-workflow';

import type { CampaignRow } from '../types';
import { orderKeyWithoutNarration } from './campaignRows';
import { chunkNewRows } from './reconciliation';

/** The orders these rows would need if every row had the same narration. */
function ordersWithOneNarration(rows: CampaignRow[], perOrder: number): number {
	const sameNarration = rows.map((row) => ({ ...row, orderKey: orderKeyWithoutNarration(row) }));
	return chunkNewRows(sameNarration, perOrder).length;
}

/**
 * A Narration that differs from row to row (an expression such as `Hi {{ $json.first_name }}`)
 * makes one order per distinct narration: a campaign of 100 people becomes 100 orders. That is
 * allowed, but it is easy to do by accident, so the node says so above its output.
 */
export function narrationHint(
	campaigns: Array<{ rows: CampaignRow[]; orders: number }>,
	perOrder: number,
): NodeExecutionHint | undefined {
	let orders = 0;
	let needed = 0;
	for (const campaign of campaigns) {
		orders += campaign.orders;
		needed += ordersWithOneNarration(campaign.rows, perOrder);
	}
	if (orders <= needed) return undefined;
	return {
		message: `Narration differs between rows, so this run makes ${orders} orders where ${needed} would do: rows with different narrations never share an order. Use one narration for every row to make fewer, larger orders.`,
		type: 'info',
		location: 'outputPane',
	};
}
