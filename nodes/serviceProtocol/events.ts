import { readDecimal, readSerial } from './numbers';
import { inSpecCase } from './orderStatus';

/*
 * A webhook event as both nodes read it: the trigger for its filters, key and output, and
 * Webhook → Verify Signature for its output, so the same bytes give the same event.
 */

export const ORDER_UPDATED = 'ORDER_UPDATED';
export const VOUCHER_UPDATED = 'VOUCHER_UPDATED';

export interface WebhookEvent {
	type: string;
	data: Record<string, unknown>;
}

type Json = Record<string, unknown>;
type Readers = Record<string, (value: unknown) => unknown>;

const isObject = (value: unknown): value is Json =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** The event a parsed body holds: the spec gives every body a string `type` and an object `data`. */
function asWebhookEvent(body: Json): WebhookEvent | undefined {
	if (typeof body.type !== 'string' || !isObject(body.data)) return undefined;
	return { type: body.type, data: body.data };
}

/** A type or status as the spec writes it, whatever case and surrounding spaces it came in. */
const inSpelling = (value: unknown) => inSpecCase(typeof value === 'string' ? value.trim() : value);

/** Decimal text as its number; anything else as sent, for the workflow to see. */
const asNumber = (value: unknown) => readDecimal(value) ?? value;

/** The spec types order numbers as text: one sent as a number is the same order. */
const asText = (value: unknown) => (typeof value === 'number' ? String(value) : value);

/** `object` with each field `readers` names read by its reader; absent fields stay absent. */
function readFields(object: Json, readers: Readers): Json {
	const read = { ...object };
	for (const [field, reader] of Object.entries(readers)) {
		if (Object.prototype.hasOwnProperty.call(object, field)) read[field] = reader(object[field]);
	}
	return read;
}

const VOUCHER_FIELDS: Readers = { value: asNumber, serial: readSerial, status: inSpelling };

/** The known types, and the fields of their data that are read (a Map: no inherited keys). */
const DATA_FIELDS = new Map<string, Readers>([
	[
		ORDER_UPDATED,
		{
			orderNumber: asText,
			status: inSpelling,
			vouchers: (vouchers) =>
				Array.isArray(vouchers)
					? vouchers.map((voucher) =>
							isObject(voucher) ? readFields(voucher, VOUCHER_FIELDS) : voucher,
						)
					: vouchers,
		},
	],
	[VOUCHER_UPDATED, { orderNumber: asText, serialNumber: readSerial, balance: asNumber }],
]);

/** Whether the spec defines events of this type (as readEvent spells it). */
export const isKnownEventType = (type: string) => DATA_FIELDS.has(type);

export type Reading = { event: WebhookEvent } | { unreadable: string };

/**
 * The event in a verified body, read once: a known type and its statuses in the spec's case,
 * its numbers as numbers (decimal text too; anything else as sent). An unknown type's event
 * is kept as sent.
 */
export function readEvent(body: Json): Reading {
	const sent = asWebhookEvent(body);
	if (sent === undefined) return { unreadable: 'it has no string `type` with an object `data`' };
	const type = inSpelling(sent.type) as string;
	const readers = DATA_FIELDS.get(type);
	if (readers === undefined) return { event: sent };
	return { event: { type, data: readFields(sent.data, readers) } };
}
