import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { toKobo } from '../../../shared/money';
import { campaignRowSchema, validate } from '../../../shared/validation';
import type { Recipient, RecipientOrderInput } from '../../../shared/validation';
import { readOrderFields } from '../orderParameters';

export const RECIPIENT_FIELDS = ['firstName', 'lastName', 'email'] as const;

export const RECIPIENT_FIELD_LABELS = {
	firstName: 'First Name',
	lastName: 'Last Name',
	email: 'Email',
};

/** One valid row of a sheet: one recipient of one campaign. */
export interface CampaignRow {
	itemIndex: number;
	/** The campaign's base reference; its orders are `<base>-1`, `<base>-2`, … */
	base: string;
	recipient: Recipient;
	/** Who the row is, as matched against the vouchers of earlier orders. */
	recipientKey: string;
	amountKobo: number;
	/** The fields a new order for this row sends, besides its reference and recipients. */
	orderFields: Omit<RecipientOrderInput, 'reference' | 'recipients'>;
	/** Rows with the same key may share a new order. */
	orderKey: string;
}

/** A person: e-mail, first and last name, each trimmed and compared case-insensitively. */
export function recipientKey(person: { email?: unknown; firstName?: unknown; lastName?: unknown }) {
	const part = (value: unknown) =>
		String(value ?? '')
			.trim()
			.toLowerCase();
	return JSON.stringify([part(person.email), part(person.firstName), part(person.lastName)]);
}

/**
 * A recipient field is either an expression (its value is used) or a plain column name
 * (the value of that column in the row is used), so both mapping styles work.
 */
function recipientValue(
	context: IExecuteFunctions,
	field: (typeof RECIPIENT_FIELDS)[number],
	itemIndex: number,
): unknown {
	const parameter = `${field}Field`;
	const raw = context.getNode().parameters[parameter];
	const value = context.getNodeParameter(parameter, itemIndex, field);
	if (typeof raw === 'string' && raw.startsWith('=')) return value;
	const column = String(value);
	const { json } = context.getInputData()[itemIndex];
	if (Object.prototype.hasOwnProperty.call(json, column)) return json[column];
	const columns = Object.keys(json);
	throw new NodeOperationError(
		context.getNode(),
		`Item ${itemIndex}: column "${column}" not found in the input item`,
		{
			itemIndex,
			description: `"${RECIPIENT_FIELD_LABELS[field]} Column" names it. ${
				columns.length > 0
					? `The item's columns are: ${columns.slice(0, 20).join(', ')}${columns.length > 20 ? ', …' : ''}.`
					: 'The item has no columns.'
			} Nothing was sent to the service.`,
		},
	);
}

/** What rows must agree on to share an order, besides their narration. */
function sharedOrderFields(row: Pick<CampaignRow, 'amountKobo' | 'orderFields'>): unknown[] {
	const { productCode, couponCode, templateId } = row.orderFields;
	return [productCode, row.amountKobo, couponCode, templateId];
}

/** The order key a row would have if every row had the same narration. */
export const orderKeyWithoutNarration = (row: CampaignRow): string =>
	JSON.stringify(sharedOrderFields(row));

/** Reads and validates one row; throws an error naming the item and the field. */
export function readCampaignRow(context: IExecuteFunctions, itemIndex: number): CampaignRow {
	const { fields, additional } = readOrderFields(context, itemIndex);
	const recipientFields = Object.fromEntries(
		RECIPIENT_FIELDS.map((field) => [field, recipientValue(context, field, itemIndex)]),
	);
	const { reference, firstName, lastName, email, ...orderFields } = validate(
		campaignRowSchema,
		{
			...fields,
			templateId: context.getNodeParameter('templateId', itemIndex),
			narration: additional.narration,
			...recipientFields,
		},
		context.getNode(),
		itemIndex,
	);
	const recipient = { firstName, lastName, email };
	const amountKobo = toKobo(orderFields.amount) as number;
	return {
		itemIndex,
		base: reference,
		recipient,
		recipientKey: recipientKey(recipient),
		amountKobo,
		orderFields,
		orderKey: JSON.stringify([
			...sharedOrderFields({ amountKobo, orderFields }),
			orderFields.narration,
		]),
	};
}
