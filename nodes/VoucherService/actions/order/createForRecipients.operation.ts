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
import { recipientOrderSchema, validate } from '../../shared/validation';
import type { RecipientOrderInput } from '../../shared/validation';
import { createOptionsField, placeOrder, toOutput } from './placeOrder';

const properties: INodeProperties[] = [
	referenceField(
		'Your unique order number. Running the workflow again with the same reference never creates a second order.',
	),
	productCodeField,
	amountField,
	{
		displayName: 'Template Name or ID',
		name: 'templateId',
		type: 'options',
		required: true,
		default: '',
		typeOptions: { loadOptionsMethod: 'getTemplates' },
		description:
			'E-mail template for the delivery: one of your business\'s templates or a global one. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'Recipients',
		name: 'recipients',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Recipient',
		default: {},
		description: 'Each recipient gets one voucher by e-mail',
		options: [
			{
				displayName: 'Recipient',
				name: 'recipient',
				values: [
					{ displayName: 'First Name', name: 'firstName', type: 'string', default: '' },
					{ displayName: 'Last Name', name: 'lastName', type: 'string', default: '' },
					{
						displayName: 'Email',
						name: 'email',
						type: 'string',
						placeholder: 'name@email.com',
						default: '',
					},
				],
			},
		],
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
				displayName: 'Narration',
				name: 'narration',
				type: 'string',
				default: '',
				typeOptions: { rows: 2 },
				description:
					'Custom message in the e-mail. When empty, the service writes the product name followed by "vouchers".',
			},
		],
	},
	outputModeField,
	createOptionsField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['createForRecipients'] } },
	properties,
);

/** The request body, with optional fields left out so the service applies its defaults. */
export function recipientOrderBody(input: RecipientOrderInput): IDataObject {
	return {
		reference: input.reference,
		productCode: input.productCode,
		amount: input.amount,
		templateId: input.templateId,
		recipients: input.recipients,
		...(input.narration !== undefined ? { narration: input.narration } : {}),
		...(input.couponCode !== undefined ? { [COUPON_CODE_FIELD]: input.couponCode } : {}),
	};
}

export async function execute(
	this: IExecuteFunctions,
	client: VoucherApiClient,
	itemIndex: number,
): Promise<IDataObject[]> {
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const recipients = this.getNodeParameter('recipients.recipient', itemIndex, []) as IDataObject[];
	const input = validate(
		recipientOrderSchema,
		{
			reference: this.getNodeParameter('reference', itemIndex),
			productCode: this.getNodeParameter('productCode', itemIndex),
			amount: this.getNodeParameter('amount', itemIndex),
			templateId: this.getNodeParameter('templateId', itemIndex),
			recipients,
			narration: additional.narration,
			couponCode: additional[COUPON_CODE_FIELD],
		},
		this.getNode(),
		itemIndex,
	);
	const result = await placeOrder.call(this, client, {
		path: '/v2/orders/recipients',
		body: recipientOrderBody(input),
		reference: input.reference,
		itemIndex,
		amount: input.amount,
		vouchers: input.recipients.length,
	});
	return toOutput(this, itemIndex, result);
}
