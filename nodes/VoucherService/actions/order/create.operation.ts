import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import {
	amountField,
	couponCodeOption,
	outputModeField,
	productCodeField,
	referenceField,
} from '../../shared/fields';
import { executionParameters } from '../../shared/parameters';
import { downloadOrderSchema, validate } from '../../shared/validation';
import type { ItemPlan } from '../types';
import { createOptionsField } from './createOptions';
import { planItemOrders } from './itemOrders';
import { readOrderFields } from './orderParameters';
import { downloadOrderRequest } from './orderRequest';
import type { OrderRequest } from './orderRequest';

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

function readRequest(context: IExecuteFunctions, itemIndex: number): OrderRequest {
	const { fields, additional } = readOrderFields(context, itemIndex);
	const parameters = executionParameters(context);
	const input = validate(
		downloadOrderSchema,
		{ ...fields, quantity: parameters.get('quantity', itemIndex), pin: additional.pin },
		parameters.node,
		itemIndex,
	);
	return downloadOrderRequest(input);
}

export async function plan(this: IExecuteFunctions, client: VoucherApiClient): Promise<ItemPlan> {
	return await planItemOrders(this, client, (itemIndex) => readRequest(this, itemIndex));
}
