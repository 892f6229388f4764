import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import { formatNaira, toKobo } from './money';

/**
 * Refuses an order above the tightest of the credential's and the node's limits
 * (0 = no limit), before any request. Totals are compared in integer kobo.
 */
export function assertWithinSpendingLimit(
	node: INode,
	itemIndex: number,
	order: { amountKobo: number; vouchers: number },
	limitsNgn: number[],
): void {
	const limits = limitsNgn
		.filter((limit) => limit > 0)
		.map((limit) => toKobo(limit) ?? Math.round(limit * 100));
	if (limits.length === 0) return;
	const limitKobo = Math.min(...limits);
	const totalKobo = order.amountKobo * order.vouchers;
	if (totalKobo > limitKobo) {
		throw new NodeOperationError(
			node,
			`Item ${itemIndex}: order total ${formatNaira(totalKobo)} is above the maximum order total of ${formatNaira(limitKobo)}`,
			{
				itemIndex,
				description:
					'Nothing was sent. Raise "Maximum Order Total (NGN)" on the node or the credential if this order is intended.',
			},
		);
	}
}
