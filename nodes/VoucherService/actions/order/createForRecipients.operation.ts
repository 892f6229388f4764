import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { operationError } from '../../transport/errors';
import { planCampaign } from '../../orders/campaign/campaign';
import type { ReadCampaignRow } from '../../orders/campaign/campaign';
import { RECIPIENT_FIELDS, campaignRowOf } from '../../orders/campaign/campaignRows';
import { planItemOrders } from '../../orders/core/itemOrders';
import type { OrderRequest } from '../../orders/types';
import {
	amountField,
	couponCodeOption,
	outputModeField,
	productCodeField,
	referenceField,
} from '../fields';
import { executionParameters, readCredentialLimit, readOrderFields } from '../../shared/parameters';
import type { ExecutionParameters } from '../../shared/parameters';
import { fieldError, recipientOrderSchema, validate } from '../../shared/validation';
import type { ItemPlan, RunSettings } from '../../plan';
import {
	campaignOptionsField,
	campaignSettingsOf,
	createOptionsField,
	runSpendingOf,
} from './createOptions';
import { readItemOrder } from './create.operation';

const RECIPIENT_FIELD_LABELS: Record<(typeof RECIPIENT_FIELDS)[number], string> = {
	firstName: 'First Name',
	lastName: 'Last Name',
	email: 'Email',
};

/** The number Google Sheets gives each row it reads: the row's place in the sheet, not the row's own. */
const SHEETS_ROW_NUMBER = 'row_number';

const ROW_NUMBER_MOVES =
	"it moves when a row above is deleted or the sheet is sorted, so one person can take another's place and be bought twice";

const fromInputItems = { show: { recipientsSource: ['inputItems'] } };
const entered = { show: { recipientsSource: ['manual'] } };

const properties: INodeProperties[] = [
	referenceField(
		'Your unique order number. Running the workflow again with the same reference never creates a second order. With recipients from input items this is the base: orders are numbered with the base followed by -1, -2, … (spring-2026-1, spring-2026-2, …).',
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
		displayName: 'Row ID Column',
		name: 'rowIdField',
		type: 'string',
		default: '',
		displayOptions: fromInputItems,
		hint: "An ID filled once, never Google Sheets' row_number. Set it to feed one campaign in pages, executions or workers, even at once.",
		description: `A column of the input items with each row's own whole-number ID, filled once and never reused (a Data Table's ID, a database's primary key, a column of numbers filled down once), or an expression for it. Not Google Sheets' ${SHEETS_ROW_NUMBER}, which is refused: ${ROW_NUMBER_MOVES}. Each ID is bought once, whichever page or execution brings it. Empty: the whole sheet comes in one execution.`,
	},
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

/** The order for the recipients entered in the node, read and checked; nothing is sent yet. */
function readRecipientsRequest(
	context: IExecuteFunctions,
	parameters: ExecutionParameters,
	itemIndex: number,
): OrderRequest {
	const { fields, additional } = readOrderFields(parameters, itemIndex);
	const body = validate(
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
	return { kind: 'recipients', body };
}

/**
 * A column field (a recipient's, or Row ID) is either an expression (its value is used) or a
 * plain column name (the value of that column in the row is used), so both mapping styles work.
 */
function readColumnValue(
	context: IExecuteFunctions,
	parameters: ExecutionParameters,
	[parameter, label, fallback]: [string, string, string],
	itemIndex: number,
): unknown {
	const raw = parameters.node.parameters[parameter];
	const value = parameters.get(parameter, itemIndex, fallback);
	if (typeof raw === 'string' && raw.startsWith('=')) return value;
	const column = String(value);
	const { json } = context.getInputData()[itemIndex];
	if (Object.prototype.hasOwnProperty.call(json, column)) return json[column];
	const columns = Object.keys(json);
	const shown = columns.slice(0, 20).join(', ') + (columns.length > 20 ? ', …' : '');
	const columnsText =
		columns.length > 0 ? `The item's columns are: ${shown}.` : 'The item has no columns.';
	throw operationError(
		parameters.node,
		`Item ${itemIndex}: column "${column}" not found in the input item`,
		{
			itemIndex,
			description: `"${label}" names it. ${columnsText} Nothing was sent to the service.`,
		},
	);
}

const recipientColumn = (field: (typeof RECIPIENT_FIELDS)[number]): [string, string, string] => [
	`${field}Field`,
	`${RECIPIENT_FIELD_LABELS[field]} Column`,
	field,
];

/** Whether the campaign is fed in pages: Row ID Column set (a name, or an expression). */
const pagedCampaign = (parameters: ExecutionParameters) => {
	const raw = parameters.node.parameters.rowIdField;
	return typeof raw === 'string' && raw.trim() !== '';
};

/** `row_number` as a whole name in any case, as an expression may read it (`$json["row_number"]`). */
const READS_ROW_NUMBER = new RegExp(`(?<![\\w$])${SHEETS_ROW_NUMBER}(?![\\w$])`, 'i');

/**
 * Whether Row ID Column is Google Sheets' row number: its raw text, because n8n gives the node an
 * expression's value, and the row number's value looks like any ID.
 */
function readsRowNumber(raw: unknown): boolean {
	if (typeof raw !== 'string') return false;
	if (raw.startsWith('=')) return READS_ROW_NUMBER.test(raw);
	return raw.trim().toLowerCase() === SHEETS_ROW_NUMBER;
}

/** A row's Row ID. A Row ID that moves to another row buys twice, so row_number is refused by name. */
function readRowId(
	context: IExecuteFunctions,
	parameters: ExecutionParameters,
	itemIndex: number,
): unknown {
	if (readsRowNumber(parameters.node.parameters.rowIdField))
		throw fieldError(
			parameters.node,
			itemIndex,
			'rowIdField',
			`Row ID Column reads ${SHEETS_ROW_NUMBER}, the number Google Sheets gives each row by its place: ${ROW_NUMBER_MOVES}`,
			"Use an ID filled once and never reused: a column of numbers filled down once (values, not a formula such as =ROW()), a Data Table's id, or a database's primary key.",
		);
	return readColumnValue(context, parameters, ['rowIdField', 'Row ID Column', ''], itemIndex);
}

/** One spreadsheet row of a campaign, read and checked: its order fields and its recipient. */
function readCampaignRow(context: IExecuteFunctions, itemIndex: number): ReadCampaignRow {
	const parameters = executionParameters(context);
	try {
		const { fields, additional } = readOrderFields(parameters, itemIndex);
		const recipient = Object.fromEntries(
			RECIPIENT_FIELDS.map((field) => [
				field,
				readColumnValue(context, parameters, recipientColumn(field), itemIndex),
			]),
		);
		const paged = pagedCampaign(parameters);
		const rowId = paged ? readRowId(context, parameters, itemIndex) : undefined;
		return campaignRowOf(
			parameters.node,
			itemIndex,
			{
				...fields,
				templateId: parameters.get('templateId', itemIndex),
				narration: additional.narration,
				...recipient,
				rowId,
			},
			paged,
		);
	} catch (error) {
		return { itemIndex, error };
	}
}

/** Entered recipients make one order per input item; recipients from input items, a campaign. */
export async function plan(
	this: IExecuteFunctions,
	client: VoucherApiClient,
	run: RunSettings,
): Promise<ItemPlan> {
	const credentialLimit = await readCredentialLimit(this);
	if (this.getNodeParameter('recipientsSource', 0) === 'inputItems') {
		// One setting per run, read from item 0; a bad one stops the node before anything is sent.
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		const settings = campaignSettingsOf(this.getNode(), options, credentialLimit);
		const rows = this.getInputData().map((_, itemIndex) => readCampaignRow(this, itemIndex));
		return await planCampaign(client, rows, settings, run);
	}
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const spending = runSpendingOf(this.getNode(), options, false);
	const items = this.getInputData().map((_, itemIndex) =>
		readItemOrder(this, itemIndex, credentialLimit, (parameters) =>
			readRecipientsRequest(this, parameters, itemIndex),
		),
	);
	return await planItemOrders(client, items, run, spending);
}
