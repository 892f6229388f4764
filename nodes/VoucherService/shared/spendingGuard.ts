import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import { formatNaira, toKobo } from './money';

/** The tightest of the credential's and the node's limits in kobo; undefined when neither is set (0). */
export function spendingLimitKobo(limitsNgn: number[]): number | undefined {
	const limits = limitsNgn
		.filter((limit) => Number.isFinite(limit) && limit > 0)
		.map((limit) => toKobo(limit) ?? Math.round(limit * 100));
	return limits.length > 0 ? Math.min(...limits) : undefined;
}

/** Refuses an order whose total is above the limit, before any request. Totals are integer kobo. */
export function assertWithinSpendingLimit(
	node: INode,
	itemIndex: number,
	totalKobo: number,
	limitKobo: number | undefined,
): void {
	if (limitKobo === undefined || totalKobo <= limitKobo) return;
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
