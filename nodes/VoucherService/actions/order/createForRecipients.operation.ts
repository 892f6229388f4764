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
import { recipientOrderSchema, validate } from '../../shared/validation';
import type { ItemPlan } from '../types';
import { planCampaign } from './campaign/campaign';
import { RECIPIENT_FIELD_LABELS, RECIPIENT_FIELDS } from './campaign/campaignRows';
import { campaignOptionsField, createOptionsField } from './createOptions';
import { planItemOrders } from './itemOrders';
import { readOrderFields } from './orderParameters';
import { executionParameters } from '../../shared/parameters';
import { recipientOrderRequest } from './orderRequest';
import type { OrderRequest } from './orderRequest';

const fromInputItems = { show: { recipientsSource: ['inputItems'] } };
const entered = { show: { recipientsSource: ['manual'] } };

const properties: INodeProperties[] = [
	referenceField(
		'Your unique order number. Running the workflow again with the same reference never creates a second order. With recipients from input items this is the base: orders are numbered <reference>-1, <reference>-2, …',
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
		name: 'recipientsSource',
		type: 'options',
		default: 'manual',
		options: [
			{
				name: 'Enter Below',
				value: 'manual',
				description: 'One order for the recipients listed in this node, per input item',
			},
			{
				name: 'From Input Items',
				value: 'inputItems',
				description:
					'Each input item is one recipient (e.g. one spreadsheet row); rows become as few orders as possible',
			},
		],
	},
	...RECIPIENT_FIELDS.map(
		(field): INodeProperties => ({
			displayName: `${RECIPIENT_FIELD_LABELS[field]} Column`,
			name: `${field}Field`,
			type: 'string',
			default: field,
			displayOptions: fromInputItems,
			hint: 'A column name of the input items, or an expression for the value',
			description: `Where each row's ${RECIPIENT_FIELD_LABELS[field].toLowerCase()} comes from`,
		}),
	),
	{
		displayName: 'Recipient List',
		name: 'recipients',
		displayOptions: entered,
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
	{ ...outputModeField, displayOptions: entered },
	{ ...createOptionsField, displayOptions: entered },
	{ ...campaignOptionsField, displayOptions: fromInputItems },
];

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['createForRecipients'] } },
	properties,
);

function readRequest(context: IExecuteFunctions, itemIndex: number): OrderRequest {
	const { fields, additional } = readOrderFields(context, itemIndex);
	const parameters = executionParameters(context);
	const input = validate(
		recipientOrderSchema,
		{
			...fields,
			templateId: parameters.get('templateId', itemIndex),
			recipients: context.getNodeParameter('recipients.recipient', itemIndex, []),
			narration: additional.narration,
		},
		parameters.node,
		itemIndex,
	);
	return recipientOrderRequest(input);
}

/** Entered recipients make one order per input item; recipients from input items, a campaign. */
export async function plan(this: IExecuteFunctions, client: VoucherApiClient): Promise<ItemPlan> {
	if (this.getNodeParameter('recipientsSource', 0) === 'inputItems') {
		return await planCampaign(this, client);
	}
	return await planItemOrders(this, client, (itemIndex) => readRequest(this, itemIndex));
}
