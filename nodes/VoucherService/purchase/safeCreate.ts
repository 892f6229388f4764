import { NodeOperationError } from 'n8n-workflow';

import type { VoucherApiClient } from '../transport/client';
import { asNodeError, isVoucherApiError } from '../transport/errors';
import { backoffDelay, CREATE_RETRY, wait } from '../transport/retry';
import type { IfReferenceExists, OrderResult, PlannedOrder } from '../orderTypes';
import { asOrder, findOrder } from './orderLookup';
import { checkFoundOrder } from './orderMatch';

/**
 * Creates an order so that no retry can ever create a second one. The service has no
 * idempotency key, only the client's unique reference, so whenever the outcome of a
 * create is unclear (timeout, reset, 5xx, 429, or any refusal such as a duplicate
 * reference) the reference is looked up first:
 * - found: that order is returned, marked alreadyExisted, if it is this request (see
 *   orderMatch.ts); an order that differs is an error;
 * - not found (`04`): a transient failure is retried with backoff, a refusal is reported.
 */
/**
 * A create whose outcome could not be settled: it may have bought the order or not. Said
 * apart from "not bought", so nobody buys again under a new reference; the same reference is
 * safe, as the next run looks it up first.
 */
export class OutcomeUnknownError extends NodeOperationError {}

function outcomeUnknown(
	client: VoucherApiClient,
	itemIndex: number,
	reference: string,
	why: string,
): OutcomeUnknownError {
	return new OutcomeUnknownError(
		client.node,
		`Item ${itemIndex}: whether order "${reference}" was bought is unknown`,
		{
			itemIndex,
			description: `${why} Run the workflow again with the same Reference: it finds the order if it exists and buys it only if it does not. Do not change the Reference, or it may be bought twice.`,
		},
	);
}

/** The create's answer as the order; an answer that is not the order leaves the outcome unknown. */
function createdOrder(
	client: VoucherApiClient,
	data: unknown,
	reference: string,
	itemIndex: number,
) {
	try {
		return asOrder(client, data, reference, itemIndex);
	} catch (error) {
		const { description } = error as NodeOperationError;
		throw outcomeUnknown(
			client,
			itemIndex,
			reference,
			`The service accepted the create, but its answer is not the order. ${description ?? ''}`,
		);
	}
}

/** The order under the reference after an unclear create; a look-up that fails leaves the outcome unknown. */
async function lookUpAfterUnclearCreate(
	client: VoucherApiClient,
	reference: string,
	itemIndex: number,
	createError: Error,
) {
	try {
		return await findOrder(client, reference, itemIndex);
	} catch (lookupError) {
		throw outcomeUnknown(
			client,
			itemIndex,
			reference,
			`The create got "${createError.message}", and the look-up that would tell got "${(lookupError as Error).message}".`,
		);
	}
}

export async function createOrderSafely(
	client: VoucherApiClient,
	{ itemIndex, request }: PlannedOrder,
	ifReferenceExists: IfReferenceExists,
): Promise<OrderResult> {
	const { reference } = request.body;
	for (let attempt = 1; ; attempt++) {
		let answer: unknown;
		try {
			answer = (
				await client.send({ method: 'POST', path: request.path, body: request.body, itemIndex })
			).data;
		} catch (error) {
			if (!isVoucherApiError(error) || error.kind === 'auth' || error.kind === 'notFound') {
				throw asNodeError(client.node, error);
			}
			const existing = await lookUpAfterUnclearCreate(client, reference, itemIndex, error);
			if (existing) {
				const match = checkFoundOrder(client.node, { itemIndex, request }, existing);
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
					foundByLookup: true,
					...(match === 'unverified' ? { unverified: true } : {}),
				};
			}
			if (error.kind === 'rejected' || attempt >= CREATE_RETRY.attempts) {
				throw asNodeError(client.node, error);
			}
			await wait(error.retryAfterMs ?? backoffDelay(CREATE_RETRY, attempt));
			continue;
		}
		return { order: createdOrder(client, answer, reference, itemIndex), alreadyExisted: false };
	}
}
