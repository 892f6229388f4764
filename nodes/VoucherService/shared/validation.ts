import type { INode } from 'n8n-workflow';

import { operationError } from '../transport/errors';
import { emailProblem } from './email';
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
class Invalid {
	constructor(readonly problems: Problem[]) {}
}

const invalid = (message: string) => new Invalid([{ path: [], message }]);

/** A check of one value: returns it as the request needs it, or what is wrong with it. */
export type Rule<T> = (value: unknown) => T | Invalid;

const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * A given value as a message may show it: text quoted (cut), a number as it reads, anything
 * else by its kind. Only for fields that hold no one's name, address or PIN.
 */
function shown(value: unknown): string {
	if (typeof value === 'string')
		return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
	if (typeof value === 'number') return String(value);
	return kindOf(value);
}

/** A value's kind, for a message that must not show the value itself. */
function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'number') return `the number ${String(value)}`;
	if (typeof value === 'boolean') return `the boolean ${String(value)}`;
	if (typeof value === 'string') return 'text';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Nothing given is missing; blank text was given, and is empty: neither is "not a number". */
const numeric =
	(label: string): Rule<number> =>
	(value) => {
		if (value === undefined) return invalid(`${label} is required`);
		if (typeof value === 'string' && value.trim() === '')
			return invalid(`${label} must not be empty`);
		if (typeof value === 'number') return value;
		if (typeof value === 'string' && NUMERIC_TEXT.test(value.trim())) return Number(value.trim());
		return invalid(`${label} must be a number, not ${shown(value)}`);
	};

/*
 * A number mapped to a text field (a table's numeric id as Reference, a Product Code 1001) is
 * read as its digits. n8n gives `{{ $json.id }}` as the JavaScript number the item holds: a JSON
 * number past 2^53 was already rounded to the nearest double when n8n read it, before any node
 * runs, so its digits may not be the ones sent. Such a number is refused rather than sent with
 * digits nobody wrote (two rows' ids could become one Reference); as text it keeps every digit.
 */
function digitsOf(label: string, value: number | bigint): string | Invalid {
	if (typeof value === 'bigint') return String(value);
	if (!Number.isFinite(value)) return invalid(`${label} must be text or a number, not ${value}`);
	if (Math.abs(value) > Number.MAX_SAFE_INTEGER)
		return invalid(
			`${label} was given the number ${value}, past 2^53, whose digits were rounded before the node got them: give it as text to keep every digit`,
		);
	const digits = String(value);
	// 1e-7: JavaScript writes such a number with an exponent, not the digits someone wrote.
	if (/e/i.test(digits))
		return invalid(`${label} was given the number ${digits}: give it as text, as written`);
	return digits;
}

/** Text as it is, a number as its digits (digitsOf); undefined stays undefined. */
const asText =
	(label: string) =>
	(value: unknown): string | Invalid | undefined => {
		if (value === undefined || typeof value === 'string') return value;
		if (typeof value === 'number' || typeof value === 'bigint') return digitsOf(label, value);
		return invalid(`${label} must be text or a number, not ${kindOf(value)}`);
	};

/** Given text (asText), trimmed: undefined is the one value that is missing. */
const givenText =
	(label: string): Rule<string> =>
	(value) => {
		const text = asText(label)(value);
		if (text === undefined) return invalid(`${label} is required`);
		return text instanceof Invalid ? text : text.trim();
	};

const requiredText =
	(label: string): Rule<string> =>
	(value) => {
		const text = givenText(label)(value);
		return text === '' ? invalid(`${label} must not be empty`) : text;
	};

/** Blank optional text means "leave it out", so the service applies its own default. */
const optionalText =
	(label: string): Rule<string | undefined> =>
	(value) => {
		const text = asText(label)(value === null ? undefined : value);
		if (text instanceof Invalid) return text;
		return text?.trim() || undefined;
	};

/** The amount is written in Naira and kept in whole kobo from here on: its one conversion. */
const amountKobo: Rule<number> = (value) => {
	const naira = numeric('Amount')(value);
	if (naira instanceof Invalid) return naira;
	if (!(Number.isFinite(naira) && naira > 0))
		return invalid(`Amount must be greater than 0, not ${shown(value)}`);
	const kobo = toKobo(naira);
	if (kobo === undefined)
		return invalid(`Amount must have at most 2 decimal places, not ${shown(value)}`);
	return kobo;
};

const integer =
	(label: string, min: number, max = 2_147_483_647): Rule<number> =>
	(value) => {
		const number = numeric(label)(value);
		if (number instanceof Invalid) return number;
		if (Number.isInteger(number) && number >= min && number <= max) return number;
		return invalid(`${label} must be a whole number from ${min} to ${max}, not ${shown(value)}`);
	};

/** The PIN itself is never shown: only how it is not 4 digits. */
const pin: Rule<string | undefined> = (value) => {
	const text = optionalText('PIN')(value);
	if (text === undefined || text instanceof Invalid) return text;
	if (/^\d{4}$/.test(text)) return text;
	// 0123 as a number is 123: its leading zero is gone before the node sees it.
	if (typeof value === 'number')
		return invalid(
			`PIN must be exactly 4 digits, not a number of ${text.length} (a number loses its leading zeros: give the PIN as text)`,
		);
	return invalid(`PIN must be exactly 4 digits, not ${text.length} characters`);
};

const email: Rule<string> = (value) => {
	const address = requiredText('E-mail')(value);
	if (address instanceof Invalid) return address;
	const problem = emailProblem(address);
	return problem ? invalid(`E-mail is not a valid e-mail address: ${problem}`) : address;
};

/*
 * GET /v2/orders/{reference} shares its path with the service's fixed routes under /v2/orders/,
 * so an order under one of these names could be bought but never read back: not its status,
 * not the look-up that keeps a retry from buying twice. Compared as the service's router may
 * (any case, surrounding spaces ignored).
 */
const UNREADABLE_REFERENCES = ['templates', 'recipients'];

/*
 * A Reference is read back by its path, and one the order route does not get unchanged can be
 * bought twice: the look-up after an unclear create (or a re-run) reads another path's answer
 * as "no such order". Refused, so, is what an HTTP client or a gateway in front of the service
 * changes or refuses in a path, although URL-encoded:
 * - `.` and `..`: URL parsers, n8n's HTTP client among them, remove these segments
 *   (GET /v2/orders/.. is sent as GET /v2/);
 * - `/` and `\`: gateways and servers differ on an encoded separator: nginx decodes %2F and then
 *   removes dot segments ("a/.." reads GET /v2/orders/), Apache refuses it, ASP.NET routing
 *   leaves it encoded, and some servers read `\` as `/`;
 * - control characters (C0, DEL, C1): refused or stripped by servers and proxies;
 * - a lone UTF-16 surrogate: it cannot be URL-encoded at all.
 */
function whyUnreadable(reference: string): string | undefined {
	if (UNREADABLE_REFERENCES.includes(reference.toLowerCase()))
		return `"${reference}" cannot be a Reference: GET /v2/orders/${reference} is another of the service's endpoints, so an order under it could never be read back`;
	if (reference === '.' || reference === '..')
		return `"${reference}" cannot be a Reference: HTTP clients send GET /v2/orders/${reference} as GET /v2/${reference === '.' ? 'orders/' : ''}, so an order under it could never be read back`;
	if (/[/\\]/.test(reference))
		return 'Reference must not contain "/" or "\\": gateways in front of the service may read it as a path separator, so an order under it might never be read back';
	if (/\p{Cc}/u.test(reference))
		return 'Reference must not contain control characters (tabs, line breaks, …): servers may refuse or strip them in a path, so an order under it might never be read back';
	if (/\p{Cs}/u.test(reference))
		return 'Reference holds a broken character (a lone UTF-16 surrogate), which cannot be sent in a URL';
	return undefined;
}

const reference: Rule<string> = (value) => {
	const text = requiredText('Reference')(value);
	if (text instanceof Invalid) return text;
	const why = whyUnreadable(text);
	return why === undefined ? text : invalid(why);
};

/** A field kept under another name than the one it is read and named under in errors. */
interface Renamed<T> {
	readFrom: string;
	rule: Rule<T>;
}

type Shape = Record<string, Rule<unknown> | Renamed<unknown>>;
type Valid<R> = R extends Rule<infer T> ? T : R extends Renamed<infer T> ? T : never;
/** A field whose rule may give undefined is left out, so it is optional. */
type Output<S extends Shape> = {
	[K in keyof S as undefined extends Valid<S[K]> ? never : K]: Valid<S[K]>;
} & {
	[K in keyof S as undefined extends Valid<S[K]> ? K : never]?: Exclude<Valid<S[K]>, undefined>;
};

/** The problems of a part of a value, placed under that part. */
const under = (part: PropertyKey, { problems }: Invalid) =>
	problems.map(({ path, message }) => ({ path: [part, ...path], message }));

/**
 * An object with these fields, in this order; every field's problems are kept. Other keys are
 * dropped, and so is a field whose rule gives undefined (blank optional text), so that a request
 * body leaves it out and the service applies its own default.
 */
function object<S extends Shape>(shape: S): Rule<Output<S>> {
	return (value) => {
		const input = (typeof value === 'object' && value !== null ? value : {}) as Record<
			string,
			unknown
		>;
		const output: Record<string, unknown> = {};
		const problems: Problem[] = [];
		for (const [key, field] of Object.entries(shape)) {
			const { readFrom, rule } =
				typeof field === 'function' ? { readFrom: key, rule: field } : field;
			const result = rule(input[readFrom]);
			if (result instanceof Invalid) problems.push(...under(readFrom, result));
			else if (result !== undefined) output[key] = result;
		}
		if (problems.length > 0) return new Invalid(problems);
		return output as Output<S>;
	};
}

function list<T>(rule: Rule<T>, emptyMessage: string): Rule<T[]> {
	return (value) => {
		if (!Array.isArray(value) || value.length === 0) return invalid(emptyMessage);
		const problems: Problem[] = [];
		const output: T[] = [];
		value.forEach((element, index) => {
			const result = rule(element);
			if (result instanceof Invalid) problems.push(...under(index, result));
			else output.push(result);
		});
		if (problems.length > 0) return new Invalid(problems);
		return output;
	};
}

const recipientShape = {
	firstName: requiredText('First name'),
	lastName: requiredText('Last name'),
	email,
};

/**
 * JSON key of the coupon code in both create bodies, and so the key the schemas read it under.
 * The spec does not name it; change it here only (the field's description quotes it too).
 */
export const COUPON_JSON_KEY = 'couponCode';

const orderShape = {
	reference,
	productCode: requiredText('Product code'),
	amountKobo: { readFrom: 'amount', rule: amountKobo },
	[COUPON_JSON_KEY]: optionalText('Coupon code'),
};

/**
 * The spec types the order's templateId as int32, while the template list gives ids as
 * strings. An id that is not a whole number cannot be sent as the spec says, and sending it
 * another way would be a guess: it is refused, saying why.
 */
const templateId: Rule<number> = (value) => {
	const id = integer('Template ID', 0)(value);
	const text = typeof value === 'string' ? value.trim() : undefined;
	if (!(id instanceof Invalid) || !text || NUMERIC_TEXT.test(text)) return id;
	return invalid(
		`Template ID "${text}" is not a whole number, and an order takes a numeric template ID`,
	);
};

const recipientOrderFields = {
	...orderShape,
	templateId,
	narration: optionalText('Narration'),
};

/**
 * A listed template's id (the list gives strings) as a create would send it, or undefined
 * when a create refuses it: the one rule for the Template dropdown and Service → Check.
 */
export function templateIdAsSent(id: unknown): number | undefined {
	const value = recipientOrderFields.templateId(id);
	return value instanceof Invalid ? undefined : value;
}

/*
 * The two create bodies are what these schemas give: a validated value is sent as it is (the
 * amount as the Naira of its kobo), so what is checked is what is sent.
 */
export const downloadOrderSchema = object({ ...orderShape, quantity: integer('Quantity', 1), pin });

export const recipientOrderSchema = object({
	...recipientOrderFields,
	recipients: list(object(recipientShape), 'At least one recipient is required'),
});

/** One spreadsheet row of a campaign: the order's fields plus that row's recipient. */
export const campaignRowSchema = object({ ...recipientOrderFields, ...recipientShape });

/**
 * A row's own ID in a campaign fed in pages: a whole number of 0 or more, up to 30 digits (past
 * a bigint's 19, which a database gives as text), kept as its digits without leading zeros. Not sent.
 */
const rowIdNamed =
	(label: string): Rule<string> =>
	(value) => {
		const text = givenText(label)(value);
		if (text instanceof Invalid) return text;
		if (!/^\d{1,30}$/.test(text))
			return invalid(
				`${label} must be a whole number of 0 or more, at most 30 digits, not ${shown(value)}`,
			);
		return text.replace(/^0+(?=\d)/, '');
	};

const rowId = rowIdNamed('Row ID');

export const pagedCampaignRowSchema = object({
	...recipientOrderFields,
	...recipientShape,
	rowId,
});

export type DownloadOrderBody = Valid<typeof downloadOrderSchema>;
export type RecipientOrderBody = Valid<typeof recipientOrderSchema>;
export type Recipient = Output<typeof recipientShape>;

export const lookupSchema = (field: string, label: string) =>
	object({ [field]: requiredText(label) });

export const orderLookupSchema = object({ reference });

/** A Row ID field of a report, blank when not given. */
const optionalRowId =
	(label: string): Rule<string | undefined> =>
	(value) =>
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
			? undefined
			: rowIdNamed(label)(value);

/** Whether Row ID digits `a` (no leading zeros, as rowId gives them) are a lower number than `b`. */
const rowIdBelow = (a: string, b: string) =>
	a.length < b.length || (a.length === b.length && a < b);

const reportFields = object({
	reference,
	rowIdsFrom: optionalRowId('Row IDs From'),
	rowIdsTo: optionalRowId('Row IDs To'),
});

/**
 * Get Campaign's base reference and, for a campaign fed by Row ID, the range of IDs to report:
 * both ends or neither, the first not above the last.
 */
export const campaignReportSchema: Rule<{
	reference: string;
	rowIds?: { from: string; to: string };
}> = (value) => {
	const fields = reportFields(value);
	if (fields instanceof Invalid) return fields;
	const { reference: base, rowIdsFrom: from, rowIdsTo: to } = fields;
	if (from === undefined && to === undefined) return { reference: base };
	if (from === undefined)
		return new Invalid([
			{ path: ['rowIdsFrom'], message: 'Row IDs From is required with Row IDs To' },
		]);
	if (to === undefined)
		return new Invalid([
			{ path: ['rowIdsTo'], message: 'Row IDs To is required with Row IDs From' },
		]);
	if (rowIdBelow(to, from))
		return new Invalid([
			{
				path: ['rowIdsTo'],
				message: `Row IDs To (${to}) must not be below Row IDs From (${from})`,
			},
		]);
	return { reference: base, rowIds: { from, to } };
};

function fieldPath(path: PropertyKey[]): string {
	return path
		.map((part, index) =>
			typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
		)
		.join('');
}

/** Bad input: an error that names the item and the field, and says that nothing was sent. */
function inputError(node: INode, itemIndex: number, problems: string[], advice?: string) {
	const all = problems.length > 1 ? `All problems in this item: ${problems.join('; ')}. ` : '';
	return operationError(node, `Item ${itemIndex}: invalid ${problems[0]}`, {
		itemIndex,
		description: `${advice ? `${advice} ` : ''}${all}Nothing was sent to the service.`,
	});
}

/** A field's value refused after validation, for a reason only a later step knows. */
export const fieldError = (
	node: INode,
	itemIndex: number,
	field: string,
	message: string,
	advice?: string,
) => inputError(node, itemIndex, [`"${field}": ${message}`], advice);

/** The valid value, or a NodeOperationError that names the item and the field. */
export function validate<T>(rule: Rule<T>, input: unknown, node: INode, itemIndex: number): T {
	const result = rule(input);
	if (!(result instanceof Invalid)) return result;
	const problems = result.problems.map((issue) => `"${fieldPath(issue.path)}": ${issue.message}`);
	throw inputError(node, itemIndex, problems);
}
