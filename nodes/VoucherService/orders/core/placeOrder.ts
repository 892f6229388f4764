import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode } from 'n8n-workflow';

import { CREATE_ORDER_PATHS } from '../../../serviceProtocol/api';
import type { VoucherApiClient } from '../../transport/client';
import {
	asNodeError,
	isVoucherApiError,
	keepMessage,
	operationError,
} from '../../transport/errors';
import type { OperationErrorOptions, VoucherApiError } from '../../transport/errors';
import { backoffDelay, CREATE_RETRY, wait } from '../../transport/retry';
import { toNaira } from '../../shared/money';
import type {
	CreateSettings,
	IfReferenceExists,
	Order,
	OrderRequest,
	OrderResult,
	PlannedOrder,
} from '../types';
import { findOrder, readOrder, waitForTerminalStatus } from '../lookup';
import { checkFoundOrder, orderDifferences } from '../match';

/* Single orders and campaign orders are both bought here, and only here. */

/**
 * The body as the spec has it, the amount in Naira, in the place where the request holds its
 * kobo, so the JSON sent keeps its order of fields.
 */
function sentBody({ body }: OrderRequest): IDataObject {
	return Object.fromEntries(
		Object.entries(body).map(([key, value]) =>
			key === 'amountKobo' ? ['amount', toNaira(body.amountKobo)] : [key, value],
		),
	);
}

/**
 * Buys one planned order: safe create, then the wait if asked for. Its plan has refused it
 * already if it is above the spending limit.
 */
export async function placeOrder(
	client: VoucherApiClient,
	order: PlannedOrder,
	settings: Omit<CreateSettings, 'dryRun' | 'limitKobo'>,
): Promise<OrderResult> {
	const created = await createOrderSafely(client, order, settings.ifReferenceExists);
	if (!settings.waitForCompletion) return created;
	let waited: OrderResult;
	try {
		waited = await waitForTerminalStatus(client, created, settings.waitTimeoutMs, order.itemIndex);
	} catch (error) {
		// The order exists: a look-up that fails while waiting must not read as "not bought".
		return { ...created, waitFailed: asNodeError(client.node, error).message };
	}
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

/**
 * The Reference was taken before this create. It carries the order under it, so a campaign
 * that raced another run for the number can match its rows against that order.
 */
export class ReferenceExistsError extends NodeOperationError {
	constructor(
		node: INode,
		itemIndex: number,
		reference: string,
		readonly existing: Order,
	) {
		const message = `Item ${itemIndex}: an order with reference "${reference}" already exists`;
		super(node, message, {
			itemIndex,
			description: `It is order ${existing.orderNumber} with status ${existing.status}. Nothing new was created.`,
		});
		keepMessage(this, message);
	}
}

const referenceExists = (node: INode, itemIndex: number, reference: string, existing: Order) =>
	new ReferenceExistsError(node, itemIndex, reference, existing);

/**
 * If Reference Exists → Fail for a single order, checked by a read before the create: a
 * service that answers a used Reference with its order (HTTP 200, `00`) cannot be told from a
 * new order afterwards. One read per such order; campaigns know their orders already.
 */
export async function refuseExistingReference(
	client: VoucherApiClient,
	{ itemIndex, request }: PlannedOrder,
): Promise<void> {
	const existing = await findOrder(client, request.body.reference, itemIndex);
	if (existing) throw referenceExists(client.node, itemIndex, request.body.reference, existing);
}

/**
 * A create whose outcome could not be settled: it may have bought the order or not. Said
 * apart from "not bought", so nobody buys again under a new reference; the same reference is
 * safe, as the next run looks it up first.
 */
export class OutcomeUnknownError extends NodeOperationError {
	constructor(node: INode, message: string, options: OperationErrorOptions) {
		super(node, message, options);
		keepMessage(this, message);
	}
}

/**
 * A create answered with an order other than the one asked: most likely the Reference's earlier
 * order, from a service that answers a used Reference with it. It carries that order, so a
 * campaign that raced another run for the number reads it as that run's (pagedCampaign.ts).
 */
export class OtherOrderAnsweredError extends OutcomeUnknownError {
	constructor(
		node: INode,
		message: string,
		options: OperationErrorOptions,
		readonly answered: Order,
	) {
		super(node, message, options);
	}
}

/** An error's message continuing a sentence. */
const asClause = (message: string) => message.charAt(0).toLowerCase() + message.slice(1);

/** `cause`, when given, ends the message: what kept the outcome from being settled. */
function outcomeUnknown(
	client: VoucherApiClient,
	itemIndex: number,
	reference: string,
	why: string,
	cause?: VoucherApiError,
): OutcomeUnknownError {
	return new OutcomeUnknownError(
		client.node,
		`Item ${itemIndex}: whether order "${reference}" was bought is unknown${cause ? `: ${asClause(cause.message)}` : ''}`,
		{
			itemIndex,
			description: `${why} Run the workflow again with the same Reference: it finds the order if it exists and buys it only if it does not. Do not change the Reference, or it may be bought twice.`,
		},
	);
}

/**
 * The create's answer as the order; an answer that is not the order leaves the outcome unknown.
 * It is held against the request too: a service may answer a used Reference with the order
 * already under it (HTTP 200, `00`), and that order must not be handed out as this item's.
 */
function createdOrder(
	client: VoucherApiClient,
	{ itemIndex, request }: PlannedOrder,
	data: unknown,
): OrderResult['order'] {
	const { reference } = request.body;
	const reading = readOrder(data, reference);
	if (!('order' in reading)) {
		// Not asOrder's description: its "nothing was bought" would read here as "not bought".
		throw outcomeUnknown(
			client,
			itemIndex,
			reference,
			`The service accepted the create, but its answer ${reading.problem}. ${reading.why}`,
		);
	}
	const differences = orderDifferences(reading.order, request);
	if (differences.length === 0) return reading.order;
	// Outcome unknown, never "not bought": the order may be the one this create bought.
	throw new OtherOrderAnsweredError(
		client.node,
		`Item ${itemIndex}: the service answered the create of "${reference}" with order ${reading.order.orderNumber}, which is not what this item asks for`,
		{
			itemIndex,
			description: `The order differs: ${differences.join('; ')}. Either the Reference already belonged to another request and the service answered with that order, or the service made another order than asked. Check it with Order → Get before buying again, and give each new request a new Reference.`,
		},
		reading.order,
	);
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
			isVoucherApiError(lookupError) && lookupError.kind === 'unavailable'
				? lookupError
				: undefined,
		);
	}
}

/** The service refused a create for the whole patience, and `known` says how we know nothing was bought. */
function notBoughtRefused(
	client: VoucherApiClient,
	itemIndex: number,
	reference: string,
	refusal: VoucherApiError,
	known: string,
) {
	return operationError(
		client.node,
		`Item ${itemIndex}: order "${reference}" was not bought: ${asClause(refusal.message)}`,
		{
			itemIndex,
			description: `${known} So nothing was bought, and the row is safe to run again with the same Reference: it looks the order up first and buys it only if it does not exist.`,
		},
	);
}

/**
 * Creates an order so that no retry can ever create a second one. The service has no
 * idempotency key, only the client's unique reference, so whenever the outcome of a
 * create is unclear (timeout, reset, 5xx, or any refusal such as a duplicate
 * reference) the reference is looked up first:
 * - found: that order is returned if it is this request (see orders/match.ts), marked
 *   alreadyExisted only when a create was refused with no unclear attempt before it; an order
 *   that differs is an error; with If Reference Exists → Fail, such a refusal is
 *   ReferenceExistsError, whatever the order;
 * - not found (`04`): "not now" (a 502, 503 or 504, see client.send) is sent again with no
 *   attempt used, a transient failure is retried with backoff, a refusal is reported.
 * A 429 is not unclear: the service refuses it before processing, so the transport sends it
 * again itself, with no look-up and no attempt used. Any "not now" reaches here as
 * 'unavailable' once the service kept refusing for the patience (see retry.ts); then nothing
 * was bought if the look-up finds nothing, or, after a 429, if no earlier attempt was unclear.
 */
async function createOrderSafely(
	client: VoucherApiClient,
	{ itemIndex, request }: PlannedOrder,
	ifReferenceExists: IfReferenceExists,
): Promise<OrderResult> {
	const { reference } = request.body;
	let unclearBefore = false;
	let retries = 0;
	for (;;) {
		let answer: unknown;
		try {
			answer = (
				await client.send({
					method: 'POST',
					path: CREATE_ORDER_PATHS[request.kind],
					body: sentBody(request),
					itemIndex,
					reference,
				})
			).data;
		} catch (error) {
			if (!isVoucherApiError(error) || error.kind === 'auth' || error.kind === 'notFound') {
				throw asNodeError(client.node, error);
			}
			// Only a refusal with nothing unclear before proves the reference predates this run;
			// after an unanswered attempt the order found is most likely the one we sent.
			const predatesRun = error.kind === 'rejected' && !unclearBefore;
			unclearBefore ||= error.outcomeUnknown;
			const gaveUp = error.kind === 'unavailable';
			if (gaveUp && !unclearBefore) {
				throw notBoughtRefused(
					client,
					itemIndex,
					reference,
					error,
					'A request refused with HTTP 429 is not processed.',
				);
			}
			const existing = await lookUpAfterUnclearCreate(client, reference, itemIndex, error);
			if (existing) {
				// Before comparing: the order of another run at once differs from this one, and a
				// campaign fed by Row ID reads and matches it (pagedCampaign.ts) rather than failing.
				if (predatesRun && ifReferenceExists === 'fail') {
					throw referenceExists(client.node, itemIndex, reference, existing);
				}
				const match = checkFoundOrder(client.node, { itemIndex, request }, existing);
				// alreadyExisted says "an earlier run bought this", so a workflow that delivers
				// codes only for new orders never skips one paid for in this run.
				return {
					order: existing,
					alreadyExisted: predatesRun,
					foundByLookup: true,
					...(match === 'unverified' ? { unverified: true } : {}),
				};
			}
			if (gaveUp) {
				throw notBoughtRefused(
					client,
					itemIndex,
					reference,
					error,
					'A look-up found no order under this Reference.',
				);
			}
			// The pacing, told of the refusal, sets when it goes again.
			if (error.kind === 'notNow') continue;
			if (error.kind === 'rejected' || ++retries >= CREATE_RETRY.attempts) {
				throw asNodeError(client.node, error);
			}
			await wait(backoffDelay(CREATE_RETRY, retries));
			continue;
		}
		return { order: createdOrder(client, { itemIndex, request }, answer), alreadyExisted: false };
	}
}
