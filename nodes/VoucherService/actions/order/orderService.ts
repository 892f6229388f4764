import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { asNodeError, isVoucherApiError } from '../../transport/errors';
import { backoffDelay, CREATE_RETRY, wait } from '../../transport/retry';
import { isTerminal } from '../../shared/order';
import type { Order, OrderResult } from '../../shared/order';

export const ORDER_NOT_FOUND_CODE = '04';

export type IfReferenceExists = 'returnExisting' | 'fail';

export interface CreateOrderRequest {
	path: '/v2/orders' | '/v2/orders/recipients';
	body: IDataObject;
	reference: string;
	itemIndex: number;
	ifReferenceExists: IfReferenceExists;
}

/** The order with this reference, or undefined when the service answers `04`. Reads are retried. */
export async function findOrder(
	client: VoucherApiClient,
	reference: string,
	itemIndex: number,
): Promise<Order | undefined> {
	return await client.request<Order | undefined>({
		method: 'GET',
		path: `/v2/orders/${encodeURIComponent(reference)}`,
		itemIndex,
		acceptCodes: [ORDER_NOT_FOUND_CODE],
	});
}

/**
 * Creates an order so that no retry can ever create a second one. The service has no
 * idempotency key, only the client's unique reference, so whenever the outcome of a
 * create is unclear (timeout, reset, 5xx, 429, or any refusal such as a duplicate
 * reference) the reference is looked up first:
 * - found: that order is returned, marked alreadyExisted;
 * - not found (`04`): a transient failure is retried with backoff, a refusal is reported.
 */
export async function createOrderSafely(
	client: VoucherApiClient,
	request: CreateOrderRequest,
): Promise<OrderResult> {
	const policy = CREATE_RETRY;
	for (let attempt = 1; ; attempt++) {
		try {
			const envelope = await client.send({
				method: 'POST',
				path: request.path,
				body: request.body,
				itemIndex: request.itemIndex,
			});
			return { order: envelope.data as Order, alreadyExisted: false };
		} catch (error) {
			if (!isVoucherApiError(error) || error.kind === 'auth' || error.kind === 'notFound') {
				throw asNodeError(client.node, error);
			}
			const existing = await findOrder(client, request.reference, request.itemIndex);
			if (existing) {
				// Only a first attempt that was refused proves the reference predates this run;
				// after an unanswered attempt the order found is most likely the one we sent.
				const predatesRun = attempt === 1 && error.kind === 'rejected';
				if (predatesRun && request.ifReferenceExists === 'fail') {
					throw new NodeOperationError(
						client.node,
						`Item ${request.itemIndex}: an order with reference "${request.reference}" already exists`,
						{
							itemIndex: request.itemIndex,
							description: `It is order ${existing.orderNumber} with status ${existing.status}. Nothing new was created. Set "If Reference Exists" to "Return Existing Order" to get it instead.`,
						},
					);
				}
				return { order: existing, alreadyExisted: true };
			}
			if (error.kind === 'rejected' || attempt >= policy.attempts) {
				throw asNodeError(client.node, error);
			}
			await wait(error.retryAfterMs ?? backoffDelay(policy, attempt));
		}
	}
}

/** Polling for "wait for completion": first check after 1 s, then 1.5× longer, at most 15 s apart. */
export const WAIT_POLL = { firstDelayMs: 1_000, factor: 1.5, maxDelayMs: 15_000 };

/** Polls Get Order until a terminal status or the deadline; on timeout returns the order as it is. */
export async function waitForTerminalStatus(
	client: VoucherApiClient,
	result: OrderResult,
	timeoutMs: number,
	itemIndex: number,
	poll = WAIT_POLL,
): Promise<OrderResult> {
	const deadline = Date.now() + timeoutMs;
	let order = result.order;
	let delay = poll.firstDelayMs;
	while (!isTerminal(order.status)) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) return { ...result, order, waitTimedOut: true };
		await wait(Math.min(delay, remaining));
		delay = Math.min(poll.maxDelayMs, delay * poll.factor);
		order = (await findOrder(client, result.order.reference, itemIndex)) ?? order;
	}
	return { ...result, order };
}
