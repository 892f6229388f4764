import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { planItemOrders } from '../../orders/core/itemOrders';
import type { ReadItemOrder } from '../../orders/core/itemOrders';
import {
	amountField,
	couponCodeOption,
	outputModeField,
	productCodeField,
	readOrderOutput,
	referenceField,
} from '../fields';
import { executionParameters, readCredentialLimit, readOrderFields } from '../../shared/parameters';
import type { ExecutionParameters } from '../../shared/parameters';
import type { OrderRequest } from '../../orders/types';
import { downloadOrderSchema, validate } from '../../shared/validation';
import type { ItemPlan, RunSettings } from '../../plan';
import { createOptionsField, createSettingsOf, runSpendingOf } from './createOptions';

const properties: INodeProperties[] = [
	referenceField(
		'Your unique order number. Running the workflow again with the same reference never creates a second order.',
	),
	productCodeField,
	amountField,
	{
		displayName: 'Quantity',
		name: 'quantity',
		type: 'number',
		required: true,
		default: 1,
		typeOptions: { minValue: 1, numberPrecision: 0 },
		description: 'Number of vouchers to create',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			couponCodeOption,
			{
				displayName: 'PIN',
				name: 'pin',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				placeholder: 'e.g. 4821',
				description: 'Preferred 4-digit PIN for the vouchers. Leave empty for a random PIN.',
			},
		],
	},
	outputModeField,
	createOptionsField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['create'] } },
	properties,
);

/**
 * One item's order, options and output, read and checked; nothing is sent yet. Create for
 * Recipients → Enter Below reads its items the same way, with its own request.
 */
export function readItemOrder(
	context: IExecuteFunctions,
	itemIndex: number,
	credentialLimit: unknown,
	readRequest: (parameters: ExecutionParameters) => OrderRequest,
): ReadItemOrder {
	const parameters = executionParameters(context);
	try {
		const request = readRequest(parameters);
		const options = parameters.get('options', itemIndex, {}) as IDataObject;
		return {
			itemIndex,
			request,
			settings: createSettingsOf(parameters.node, itemIndex, options, credentialLimit),
			output: readOrderOutput(parameters, itemIndex),
		};
	} catch (error) {
		return { itemIndex, error };
	}
}

function readDownloadRequest(parameters: ExecutionParameters, itemIndex: number): OrderRequest {
	const { fields, additional } = readOrderFields(parameters, itemIndex);
	const body = validate(
		downloadOrderSchema,
		{ ...fields, quantity: parameters.get('quantity', itemIndex), pin: additional.pin },
		parameters.node,
		itemIndex,
	);
	return { kind: 'download', body };
}

export async function plan(
	this: IExecuteFunctions,
	client: VoucherApiClient,
	run: RunSettings,
): Promise<ItemPlan> {
	const credentialLimit = await readCredentialLimit(this);
	const spending = runSpendingOf(
		this.getNode(),
		this.getNodeParameter('options', 0, {}) as IDataObject,
		false,
	);
	const items = this.getInputData().map((_, itemIndex) =>
		readItemOrder(this, itemIndex, credentialLimit, (parameters) =>
			readDownloadRequest(parameters, itemIndex),
		),
	);
	return await planItemOrders(client, items, run, spending);
}
