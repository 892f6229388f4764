import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import { toKobo } from './money';

/*
 * One schema per request body, checked before anything is sent. Values may arrive as
 * strings from expressions or spreadsheet columns, so numeric fields accept numeric text.
 *
 * Written without a validation library on purpose: a community package gets the host n8n's
 * copy of such a library, and n8n 1.85 ships a zod without the API newer n8n has, so the
 * whole package would fail to load there.
 */

interface Problem {
	path: PropertyKey[];
	message: string;
}

/** Every problem of a value, each with where in the value it is. */
class Invalid extends Error {
	constructor(readonly problems: Problem[]) {
		super(problems[0]?.message);
	}
}

const invalid = (message: string) => new Invalid([{ path: [], message }]);

/** A check of one value: returns it as the request needs it, or throws Invalid. */
export type Rule<T> = (value: unknown) => T;

const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

const numeric =
	(label: string): Rule<number> =>
	(value) => {
		if (typeof value === 'number') return value;
		if (typeof value === 'string' && NUMERIC_TEXT.test(value.trim())) return Number(value.trim());
		throw invalid(`${label} must be a number`);
	};

const requiredText =
	(label: string): Rule<string> =>
	(value) => {
		if (typeof value !== 'string') throw invalid(`${label} is required`);
		const text = value.trim();
		if (text.length === 0) throw invalid(`${label} must not be empty`);
		return text;
	};

/** Blank optional text means "leave it out", so the service applies its own default. */
const optionalText =
	(label: string): Rule<string | undefined> =>
	(value) => {
		if (value === undefined || value === null) return undefined;
		// A spreadsheet column of codes may hold numbers.
		if (typeof value !== 'string' && typeof value !== 'number')
			throw invalid(`${label} must be text`);
		return String(value).trim() || undefined;
	};

const amount: Rule<number> = (value) => {
	const naira = numeric('Amount')(value);
	if (!(Number.isFinite(naira) && naira > 0)) throw invalid('Amount must be greater than 0');
	if (toKobo(naira) === undefined) throw invalid('Amount must have at most 2 decimal places');
	return naira;
};

const integer =
	(label: string, min: number, max = 2_147_483_647): Rule<number> =>
	(value) => {
		const number = numeric(label)(value);
		if (Number.isInteger(number) && number >= min && number <= max) return number;
		throw invalid(`${label} must be a whole number from ${min} to ${max}`);
	};

const pin: Rule<string | undefined> = (value) => {
	const text = value === undefined || value === null ? '' : String(value).trim();
	if (text === '') return undefined;
	if (!/^\d{4}$/.test(text)) throw invalid('PIN must be exactly 4 digits');
	return text;
};

/** The same e-mail pattern zod's email() used, so nothing valid before is refused now. */
const EMAIL =
	/^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

const email: Rule<string> = (value) => {
	if (typeof value !== 'string') throw invalid('E-mail is required');
	const address = value.trim();
	if (!EMAIL.test(address)) throw invalid('E-mail is not a valid e-mail address');
	return address;
};

/*
 * GET /v2/orders/{reference} shares its path with the service's fixed routes under /v2/orders/,
 * so an order under one of these names could be bought but never read back: not its status,
 * not the look-up that keeps a retry from buying twice. Compared as the service's router may
 * (any case, surrounding spaces ignored).
 */
const UNREADABLE_REFERENCES = ['templates', 'recipients'];

export const isUnreadableReference = (reference: string) =>
	UNREADABLE_REFERENCES.includes(reference.trim().toLowerCase());

const reference: Rule<string> = (value) => {
	const text = requiredText('Reference')(value);
	if (isUnreadableReference(text)) {
		throw invalid(
			`"${text}" cannot be a Reference: GET /v2/orders/${text} is another of the service's endpoints, so an order under it could never be read back`,
		);
	}
	return text;
};

type Shape = Record<string, Rule<unknown>>;
type Output<S extends Shape> = { [K in keyof S]: ReturnType<S[K]> };

/** An object with these fields, in this order; every field's problems are kept. Other keys are dropped. */
function object<S extends Shape>(shape: S): Rule<Output<S>> {
	return (value) => {
		const input = (typeof value === 'object' && value !== null ? value : {}) as Record<
			string,
			unknown
		>;
		const output: Record<string, unknown> = {};
		const problems: Problem[] = [];
		for (const [key, rule] of Object.entries(shape)) {
			try {
				output[key] = rule(input[key]);
			} catch (error) {
				if (!(error instanceof Invalid)) throw error;
				problems.push(
					...error.problems.map(({ path, message }) => ({ path: [key, ...path], message })),
				);
			}
		}
		if (problems.length > 0) throw new Invalid(problems);
		return output as Output<S>;
	};
}

function list<T>(rule: Rule<T>, emptyMessage: string): Rule<T[]> {
	return (value) => {
		if (!Array.isArray(value) || value.length === 0) throw invalid(emptyMessage);
		const problems: Problem[] = [];
		const output = value.map((element, index) => {
			try {
				return rule(element);
			} catch (error) {
				if (!(error instanceof Invalid)) throw error;
				problems.push(
					...error.problems.map(({ path, message }) => ({ path: [index, ...path], message })),
				);
				return undefined as T;
			}
		});
		if (problems.length > 0) throw new Invalid(problems);
		return output;
	};
}

const recipientShape = {
	firstName: requiredText('First name'),
	lastName: requiredText('Last name'),
	email,
};

const orderShape = {
	reference,
	productCode: requiredText('Product code'),
	amount,
	couponCode: optionalText('Coupon code'),
};

const recipientOrderFields = {
	...orderShape,
	templateId: integer('Template ID', 0),
	narration: optionalText('Narration'),
};

export const downloadOrderSchema = object({ ...orderShape, quantity: integer('Quantity', 1), pin });

export const recipientOrderSchema = object({
	...recipientOrderFields,
	recipients: list(object(recipientShape), 'At least one recipient is required'),
});

/** One spreadsheet row of a campaign: the order's fields plus that row's recipient. */
export const campaignRowSchema = object({ ...recipientOrderFields, ...recipientShape });

export type DownloadOrderInput = ReturnType<typeof downloadOrderSchema>;
export type RecipientOrderInput = ReturnType<typeof recipientOrderSchema>;
export type Recipient = Output<typeof recipientShape>;

export const lookupSchema = (field: string, label: string) =>
	object({ [field]: requiredText(label) });

export const orderLookupSchema = object({ reference });

function fieldPath(path: PropertyKey[]): string {
	return path
		.map((part, index) =>
			typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
		)
		.join('');
}

/** Parses or throws a NodeOperationError that names the item and the field. */
export function validate<T>(rule: Rule<T>, input: unknown, node: INode, itemIndex: number): T {
	try {
		return rule(input);
	} catch (error) {
		if (!(error instanceof Invalid)) throw error;
		const problems = error.problems.map((issue) => `"${fieldPath(issue.path)}": ${issue.message}`);
		throw new NodeOperationError(node, `Item ${itemIndex}: invalid ${problems[0]}`, {
			itemIndex,
			description:
				problems.length > 1
					? `All problems in this item: ${problems.join('; ')}. Nothing was sent to the service.`
					: 'Nothing was sent to the service.',
		});
	}
}
