import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import { z } from 'zod/v4';

import { toKobo } from './money';

/*
 * One schema per request body, checked before anything is sent. Values may arrive as
 * strings from expressions or spreadsheet columns, so numeric fields accept numeric text.
 */

const numeric = (label: string) =>
	z.union([
		z.number({ error: `${label} must be a number` }),
		z
			.string()
			.trim()
			.regex(/^-?\d+(\.\d+)?$/, `${label} must be a number`)
			.transform(Number),
	]);

const requiredText = (label: string) =>
	z
		.string({ error: `${label} is required` })
		.trim()
		.min(1, `${label} must not be empty`);

/** Blank optional text means "leave it out", so the service applies its own default. */
const optionalText = z
	.string()
	.trim()
	.optional()
	.nullable()
	.transform((value) => (value ? value : undefined));

const amountSchema = numeric('Amount')
	.refine((value) => Number.isFinite(value) && value > 0, 'Amount must be greater than 0')
	.refine((value) => toKobo(value) !== undefined, 'Amount must have at most 2 decimal places');

const integer = (label: string, min: number, max = 2_147_483_647) =>
	numeric(label).refine(
		(value) => Number.isInteger(value) && value >= min && value <= max,
		`${label} must be a whole number from ${min} to ${max}`,
	);

const pinSchema = z
	.union([z.string(), z.number()])
	.optional()
	.nullable()
	.transform((value) => (value === undefined || value === null ? '' : String(value).trim()))
	.refine((value) => value === '' || /^\d{4}$/.test(value), 'PIN must be exactly 4 digits')
	.transform((value) => (value === '' ? undefined : value));

const recipientSchema = z.object({
	firstName: requiredText('First name'),
	lastName: requiredText('Last name'),
	email: z
		.string({ error: 'E-mail is required' })
		.trim()
		.pipe(z.email('E-mail is not a valid e-mail address')),
});

/*
 * GET /v2/orders/{reference} shares its path with the service's fixed routes under /v2/orders/,
 * so an order under one of these names could be bought but never read back: not its status,
 * not the look-up that keeps a retry from buying twice. Compared as the service's router may
 * (any case, surrounding spaces ignored).
 */
const UNREADABLE_REFERENCES = ['templates', 'recipients'];

export const isUnreadableReference = (reference: string) =>
	UNREADABLE_REFERENCES.includes(reference.trim().toLowerCase());

const referenceSchema = requiredText('Reference').refine(
	(reference) => !isUnreadableReference(reference),
	{
		error: (issue) =>
			`"${String(issue.input).trim()}" cannot be a Reference: GET /v2/orders/${String(issue.input).trim()} is another of the service's endpoints, so an order under it could never be read back`,
	},
);

const orderBase = {
	reference: referenceSchema,
	productCode: requiredText('Product code'),
	amount: amountSchema,
	couponCode: optionalText,
};

export const downloadOrderSchema = z.object({
	...orderBase,
	quantity: integer('Quantity', 1),
	pin: pinSchema,
});

export const recipientOrderSchema = z.object({
	...orderBase,
	templateId: integer('Template ID', 0),
	recipients: z.array(recipientSchema).min(1, 'At least one recipient is required'),
	narration: optionalText,
});

/** One spreadsheet row of a campaign: the order's fields plus that row's recipient. */
export const campaignRowSchema = recipientOrderSchema
	.omit({ recipients: true })
	.extend(recipientSchema.shape);

export type DownloadOrderInput = z.output<typeof downloadOrderSchema>;
export type RecipientOrderInput = z.output<typeof recipientOrderSchema>;
export type Recipient = z.output<typeof recipientSchema>;

export const lookupSchema = (field: string, label: string) =>
	z.object({ [field]: requiredText(label) });

export const orderLookupSchema = z.object({ reference: referenceSchema });

function fieldPath(path: PropertyKey[]): string {
	return path
		.map((part, index) =>
			typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
		)
		.join('');
}

/** Parses or throws a NodeOperationError that names the item and the field. */
export function validate<Schema extends z.ZodType>(
	schema: Schema,
	input: unknown,
	node: INode,
	itemIndex: number,
): z.output<Schema> {
	const result = schema.safeParse(input);
	if (result.success) return result.data;
	const problems = result.error.issues.map(
		(issue) => `"${fieldPath(issue.path)}": ${issue.message}`,
	);
	throw new NodeOperationError(node, `Item ${itemIndex}: invalid ${problems[0]}`, {
		itemIndex,
		description:
			problems.length > 1
				? `All problems in this item: ${problems.join('; ')}. Nothing was sent to the service.`
				: 'Nothing was sent to the service.',
	});
}
