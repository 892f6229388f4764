import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { concurrencyOption, COUPON_CODE_FIELD, maxOrderTotalOption } from '../../shared/fields';
import { toKobo } from '../../shared/money';
import { orderOutput } from '../../shared/order';
import type { OrderResult, OutputMode } from '../../shared/order';
import { assertWithinSpendingLimit } from '../../shared/spendingGuard';
import { createOrderSafely, waitForTerminalStatus } from './orderService';
import type { CreateOrderRequest, IfReferenceExists } from './orderService';

export const DEFAULT_WAIT_TIMEOUT_SECONDS = 120;

/** Options shared by both create operations. */
export const createOptionsField: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		concurrencyOption,
		{
			displayName: 'If Reference Exists',
			name: 'ifReferenceExists',
			type: 'options',
			default: 'returnExisting',
			options: [
				{
					name: 'Return Existing Order',
					value: 'returnExisting',
					description: 'Output the order that already has this reference, marked alreadyExisted',
				},
				{
					name: 'Fail',
					value: 'fail',
					description: 'Stop with an error; nothing new is created either way',
				},
			],
			description:
				'What to do when the service already has an order with this reference, e.g. when a workflow is run again',
		},
		maxOrderTotalOption,
		{
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: false,
			description:
				'Whether to poll the order while it is PROCESSING until it reaches a final status or the timeout',
		},
		{
			displayName: 'Wait Timeout (Seconds)',
			name: 'waitTimeoutSeconds',
			type: 'number',
			default: DEFAULT_WAIT_TIMEOUT_SECONDS,
			typeOptions: { minValue: 1 },
			displayOptions: { show: { waitForCompletion: [true] } },
			description:
				'How long to wait for a final status. On timeout the PROCESSING order is output with waitTimedOut: true.',
		},
	],
};

export interface CreateOptions {
	ifReferenceExists?: IfReferenceExists;
	maxOrderTotal?: number;
	waitForCompletion?: boolean;
	waitTimeoutSeconds?: number;
}

export interface OrderToPlace extends Omit<CreateOrderRequest, 'ifReferenceExists'> {
	amount: number;
	vouchers: number;
}

/** The raw fields every create reads, before validation; `additional` holds the rest. */
export function readOrderFields(context: IExecuteFunctions, itemIndex: number) {
	const additional = context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	return {
		additional,
		fields: {
			reference: context.getNodeParameter('reference', itemIndex),
			productCode: context.getNodeParameter('productCode', itemIndex),
			amount: context.getNodeParameter('amount', itemIndex),
			couponCode: additional[COUPON_CODE_FIELD],
		},
	};
}

/** Spending guard, safe create, optional wait: the path every created order takes. */
export async function placeOrder(
	this: IExecuteFunctions,
	client: VoucherApiClient,
	order: OrderToPlace,
): Promise<OrderResult> {
	const { itemIndex } = order;
	const options = this.getNodeParameter('options', itemIndex, {}) as CreateOptions;
	assertWithinSpendingLimit(
		this.getNode(),
		itemIndex,
		{ amountKobo: toKobo(order.amount) as number, vouchers: order.vouchers },
		[await client.maxOrderTotalNgn(), Number(options.maxOrderTotal ?? 0)],
	);
	const created = await createOrderSafely(client, {
		path: order.path,
		body: order.body,
		reference: order.reference,
		itemIndex,
		ifReferenceExists: options.ifReferenceExists ?? 'returnExisting',
	});
	if (!options.waitForCompletion) return created;
	const timeoutSeconds = Number(options.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS);
	return await waitForTerminalStatus(client, created, timeoutSeconds * 1000, itemIndex);
}

export function outputModeOf(context: IExecuteFunctions, itemIndex: number): OutputMode {
	return context.getNodeParameter('outputMode', itemIndex, 'order') as OutputMode;
}

export function toOutput(
	context: IExecuteFunctions,
	itemIndex: number,
	result: OrderResult,
): IDataObject[] {
	return orderOutput(result, outputModeOf(context, itemIndex));
}
