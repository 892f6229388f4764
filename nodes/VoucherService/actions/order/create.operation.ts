import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import {
	amountField,
	COUPON_CODE_FIELD,
	couponCodeOption,
	outputModeField,
	productCodeField,
	referenceField,
} from '../../shared/fields';
import { downloadOrderSchema, validate } from '../../shared/validation';
import { createOptionsField, placeOrder, readOrderFields, toOutput } from './placeOrder';

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

export async function execute(
	this: IExecuteFunctions,
	client: VoucherApiClient,
	itemIndex: number,
): Promise<IDataObject[]> {
	const { fields, additional } = readOrderFields(this, itemIndex);
	const input = validate(
		downloadOrderSchema,
		{ ...fields, quantity: this.getNodeParameter('quantity', itemIndex), pin: additional.pin },
		this.getNode(),
		itemIndex,
	);
	const body: IDataObject = {
		reference: input.reference,
		productCode: input.productCode,
		amount: input.amount,
		quantity: input.quantity,
		...(input.pin !== undefined ? { pin: input.pin } : {}),
		...(input.couponCode !== undefined ? { [COUPON_CODE_FIELD]: input.couponCode } : {}),
	};
	const result = await placeOrder.call(this, client, {
		path: '/v2/orders',
		body,
		reference: input.reference,
		itemIndex,
		amount: input.amount,
		vouchers: input.quantity,
	});
	return toOutput(this, itemIndex, result);
}
