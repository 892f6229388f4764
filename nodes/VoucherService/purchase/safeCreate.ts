import { NodeOperationError } from 'n8n-workflow';

import type { VoucherApiClient } from '../transport/client';
import { asNodeError, isVoucherApiError } from '../transport/errors';
import { backoffDelay, CREATE_RETRY, wait } from '../transport/retry';
import type { IfReferenceExists, OrderResult, PlannedOrder } from '../orderTypes';
import { asOrder, findOrder } from './orderLookup';
import { matchOrder, referenceTakenError } from './orderMatch';

/**
 * Creates an order so that no retry can ever create a second one. The service has no
 * idempotency key, only the client's unique reference, so whenever the outcome of a
 * create is unclear (timeout, reset, 5xx, 429, or any refusal such as a duplicate
 * reference) the reference is looked up first:
 * - found: that order is returned, marked alreadyExisted, if it is this request (see
 *   orderMatch.ts); an order that differs is an error;
 * - not found (`04`): a transient failure is retried with backoff, a refusal is reported.
 */
export async function createOrderSafely(
	client: VoucherApiClient,
	{ itemIndex, request }: PlannedOrder,
	ifReferenceExists: IfReferenceExists,
): Promise<OrderResult> {
	const { reference } = request.body;
	for (let attempt = 1; ; attempt++) {
		try {
			const envelope = await client.send({
				method: 'POST',
				path: request.path,
				body: request.body,
				itemIndex,
			});
			return { order: asOrder(client, envelope.data, reference, itemIndex), alreadyExisted: false };
		} catch (error) {
			if (!isVoucherApiError(error) || error.kind === 'auth' || error.kind === 'notFound') {
				throw asNodeError(client.node, error);
			}
			const existing = await findOrder(client, reference, itemIndex);
			if (existing) {
				const match = matchOrder(existing, request);
				if (match.kind === 'mismatch') {
					throw referenceTakenError(client.node, itemIndex, reference, existing, match.differences);
				}
				// Only a first attempt that was refused proves the reference predates this run;
				// after an unanswered attempt the order found is most likely the one we sent.
				const predatesRun = attempt === 1 && error.kind === 'rejected';
				if (predatesRun && ifReferenceExists === 'fail') {
					throw new NodeOperationError(
						client.node,
						`Item ${itemIndex}: an order with reference "${reference}" already exists`,
						{
							itemIndex,
							description: `It is order ${existing.orderNumber} with status ${existing.status}. Nothing new was created.`,
						},
					);
				}
				// alreadyExisted says "an earlier run bought this", so a workflow that delivers
				// codes only for new orders never skips one paid for in this run.
				return {
					order: existing,
					alreadyExisted: predatesRun,
					...(match.kind === 'unverified' ? { unverified: true } : {}),
				};
			}
			if (error.kind === 'rejected' || attempt >= CREATE_RETRY.attempts) {
				throw asNodeError(client.node, error);
			}
			await wait(error.retryAfterMs ?? backoffDelay(CREATE_RETRY, attempt));
		}
	}
}
