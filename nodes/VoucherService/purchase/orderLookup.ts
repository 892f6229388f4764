import { NodeOperationError } from 'n8n-workflow';

import type { VoucherApiClient } from '../transport/client';
import { wait } from '../transport/retry';
import { isTerminal } from '../../voucherServiceApi/orderStatus';
import type { Order, OrderResult } from '../orderTypes';

const ORDER_NOT_FOUND_CODE = '04';

/** A reference as the service may compare it (not documented): any case, no surrounding spaces. */
export const referenceKey = (reference: string) => reference.trim().toLowerCase();

/** What is wrong with an answer that is not the order asked for, for the error's description. */
export const whyNotTheOrder = (data: unknown) =>
	Array.isArray(data)
		? 'It answered with a list.'
		: 'It lacks an order number or status, or names another reference.';

/**
 * The answer's data as the order under `reference`, or an error. Whatever else the service
 * answers (a list, another order) must never be taken for this order: safe create and the
 * campaigns decide what to buy from it.
 */
export function asOrder(
	client: VoucherApiClient,
	data: unknown,
	reference: string,
	itemIndex: number,
): Order {
	const order = data as Partial<Order> | null;
	const isOrder =
		typeof order === 'object' &&
		order !== null &&
		!Array.isArray(order) &&
		typeof order.orderNumber === 'string' &&
		typeof order.status === 'string' &&
		(order.reference === undefined ||
			referenceKey(String(order.reference)) === referenceKey(reference));
	if (isOrder) return order as Order;
	throw new NodeOperationError(
		client.node,
		`Item ${itemIndex}: the service's answer for reference "${reference}" is not that order`,
		{
			itemIndex,
			description: `${whyNotTheOrder(data)} The output shows nothing from it, and nothing was bought on the strength of it.`,
		},
	);
}

/**
 * The order with this reference, or undefined when the service answers `04`. Reads are
 * retried. `burst`: one of a bounded window of look-ups sent at once (see ApiCall.burst).
 */
export async function findOrder(
	client: VoucherApiClient,
	reference: string,
	itemIndex: number,
	burst = false,
): Promise<Order | undefined> {
	const data = await client.request<unknown>({
		method: 'GET',
		path: `/v2/orders/${encodeURIComponent(reference)}`,
		itemIndex,
		acceptCodes: [ORDER_NOT_FOUND_CODE],
		burst,
	});
	return data === undefined ? undefined : asOrder(client, data, reference, itemIndex);
}

/** Polling while an order is PROCESSING: first check after 1 s, then 1.5× longer, at most 15 s apart. */
const WAIT_POLL = { firstDelayMs: 1_000, factor: 1.5, maxDelayMs: 15_000 };

/** Polls Get Order until a terminal status or the deadline; on timeout returns the order as it is. */
export async function waitForTerminalStatus(
	client: VoucherApiClient,
	result: OrderResult,
	timeoutMs: number,
	itemIndex: number,
): Promise<OrderResult> {
	const deadline = Date.now() + timeoutMs;
	let order = result.order;
	let delay = WAIT_POLL.firstDelayMs;
	while (!isTerminal(order.status)) {
		const remaining = deadline - Date.now();
		// `!(> 0)` also ends a wait whose timeout is not a number: never poll without a pause.
		if (!(remaining > 0)) return { ...result, order, waitTimedOut: true };
		await wait(Math.min(delay, remaining));
		delay = Math.min(WAIT_POLL.maxDelayMs, delay * WAIT_POLL.factor);
		order = (await findOrder(client, result.order.reference, itemIndex)) ?? order;
	}
	return { ...result, order };
}
