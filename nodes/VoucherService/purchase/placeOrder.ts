import type { INode } from 'n8n-workflow';

import type { VoucherApiClient } from '../transport/client';
import type { CreateSettings, OrderResult, PlannedOrder } from '../orderTypes';
import { waitForTerminalStatus } from './orderLookup';
import { checkFoundOrder } from './orderMatch';
import { orderTotalKobo } from './orderRequest';
import { createOrderSafely } from './safeCreate';
import { assertWithinSpendingLimit } from './spendingGuard';

/** Throws when the order's total is above the spending limit. Plans call it before anything is sent. */
export function checkSpending(
	node: INode,
	order: PlannedOrder,
	limitKobo: number | undefined,
): void {
	assertWithinSpendingLimit(node, order.itemIndex, orderTotalKobo(order.request), limitKobo);
}

/** The one way an order is bought: spending guard, safe create, then the wait if asked for. */
export async function placeOrder(
	client: VoucherApiClient,
	order: PlannedOrder,
	settings: Omit<CreateSettings, 'dryRun'>,
): Promise<OrderResult> {
	checkSpending(client.node, order, settings.limitKobo);
	const created = await createOrderSafely(client, order, settings.ifReferenceExists);
	if (!settings.waitForCompletion) return created;
	const waited = await waitForTerminalStatus(
		client,
		created,
		settings.waitTimeoutMs,
		order.itemIndex,
	);
	return waited.unverified ? verifiedAfterWait(client, order, waited) : waited;
}

/** An order found under the reference while it listed no vouchers, compared once it lists them. */
function verifiedAfterWait(
	client: VoucherApiClient,
	order: PlannedOrder,
	result: OrderResult,
): OrderResult {
	const match = checkFoundOrder(client.node, order, result.order);
	return match === 'match' ? { ...result, unverified: undefined } : result;
}
