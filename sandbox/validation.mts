import { COUPONS, TEMPLATES, findProduct } from './catalog.mts';
import type { Product } from './catalog.mts';
import { templateIdIn } from './dialect.mts';
import type { Dialect } from './dialect.mts';
import { toKobo } from './ledger.mts';
import type { OrderType, Recipient } from './types.mts';

/** The spec gives no bound; this one keeps a single request from exhausting the sandbox's memory. */
const MAX_VOUCHERS_PER_ORDER = 10_000;

export interface OrderRequest {
	reference: string;
	productCode: string;
	product: Product;
	amount: number;
	amountKobo: number;
	count: number;
	pin: string | null;
	couponCode: string | null;
	discountPercent: number;
	templateId: number | string | null;
	narration: string | null;
	recipients: Recipient[];
}

/** Thrown for a request the service would refuse with statusCode 05. */
export class InvalidRequest extends Error {}

/** A template that is not the client's nor global; answered as dialect.badTemplate says. */
export class InvalidTemplate extends InvalidRequest {}

function fail(message: string): never {
	throw new InvalidRequest(message);
}

function requiredString(body: Record<string, unknown>, field: string): string {
	const value = body[field];
	if (typeof value !== 'string' || value.length < 1)
		fail(`${field} is required and must be a non-empty string`);
	return value;
}

/** Absent, null and blank all mean "not given", as the spec says for pin. */
function optionalString(body: Record<string, unknown>, field: string): string | null {
	const value = body[field];
	if (value === undefined || value === null) return null;
	if (typeof value !== 'string') fail(`${field} must be a string or null`);
	return value.trim() === '' ? null : value;
}

const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

function parseRecipients(value: unknown): Recipient[] {
	if (!Array.isArray(value) || value.length < 1)
		fail('recipients must be an array with at least one element');
	if (value.length > MAX_VOUCHERS_PER_ORDER)
		fail(`recipients must have at most ${MAX_VOUCHERS_PER_ORDER} elements`);
	return value.map((item: unknown, i) => {
		if (typeof item !== 'object' || item === null) fail(`recipients[${i}] must be an object`);
		const r = item as Record<string, unknown>;
		for (const field of ['firstName', 'lastName', 'email']) {
			if (typeof r[field] !== 'string' || (r[field] as string).trim() === '')
				fail(`recipients[${i}].${field} is required`);
		}
		if (!EMAIL.test(r.email as string))
			fail(`recipients[${i}].email is not a valid e-mail address`);
		return {
			firstName: r.firstName as string,
			lastName: r.lastName as string,
			email: r.email as string,
		};
	});
}

function parseCount(value: unknown): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
		fail('quantity must be an integer >= 1');
	if (value > MAX_VOUCHERS_PER_ORDER) fail(`quantity must be at most ${MAX_VOUCHERS_PER_ORDER}`);
	return value;
}

/** The spec's int32 under numeric ids; under opaque ones, the id exactly as the list shows it. */
function parseTemplateId(value: unknown, dialect: Dialect): number | string {
	if (value === undefined || value === null) fail('templateId is required');
	const opaque = dialect.templateIds === 'opaque';
	if (!opaque && (typeof value !== 'number' || !Number.isInteger(value)))
		fail('templateId is required and must be an integer');
	const listed = opaque ? value : String(value);
	if (!TEMPLATES.some((t) => templateIdIn(dialect, t.id) === listed)) {
		const shown = typeof value === 'string' ? value : JSON.stringify(value);
		throw new InvalidTemplate(`Invalid template: ${shown}`);
	}
	return value as number | string;
}

export function parseOrderRequest(type: OrderType, input: unknown, dialect: Dialect): OrderRequest {
	if (typeof input !== 'object' || input === null || Array.isArray(input))
		fail('Request body must be a JSON object');
	const body = input as Record<string, unknown>;
	const reference = requiredString(body, 'reference');
	const productCode = requiredString(body, 'productCode');
	const product = findProduct(productCode) ?? fail(`Unknown product: ${productCode}`);

	const amount = body.amount;
	if (typeof amount !== 'number' || !(amount > 0))
		fail('amount is required and must be a number > 0');
	const amountKobo =
		toKobo(amount) ?? fail('amount must be a whole number of kobo (at most 2 decimals)');

	const recipients = type === 'recipients' ? parseRecipients(body.recipients) : [];
	const count = type === 'recipients' ? recipients.length : parseCount(body.quantity);
	if (!Number.isSafeInteger(amountKobo * count))
		fail('amount multiplied by the number of vouchers is too large');

	const pin = type === 'download' ? optionalString(body, 'pin') : null;
	if (pin !== null && !/^\d{4}$/.test(pin)) fail('pin must be exactly 4 digits');

	const templateId = type === 'recipients' ? parseTemplateId(body.templateId, dialect) : null;
	const narration =
		type === 'recipients'
			? (optionalString(body, 'narration') ?? `${product.name} vouchers`)
			: null;

	const couponCode = optionalString(body, 'couponCode');
	if (couponCode !== null && !Object.hasOwn(COUPONS, couponCode))
		fail(`Unknown coupon: ${couponCode}`);
	const discountPercent = couponCode === null ? 0 : COUPONS[couponCode];

	return {
		reference,
		productCode,
		product,
		amount,
		amountKobo,
		count,
		pin,
		couponCode,
		discountPercent,
		templateId,
		narration,
		recipients,
	};
}
