import { readDecimal, readSerial } from '../serviceProtocol/numbers';
import {
	inSpecCase,
	ORDER_STATUSES,
	TERMINAL_ORDER_STATUSES,
} from '../serviceProtocol/orderStatus';
import { asWebhookEvent, type WebhookEvent } from '../serviceProtocol/signature';

export const ORDER_UPDATED = 'ORDER_UPDATED';
export const VOUCHER_UPDATED = 'VOUCHER_UPDATED';

export interface EventFilter {
	events: string[];
	orderStatuses: string[];
	includeUnknownEvents: boolean;
}

type Json = Record<string, unknown>;
type Readers = Record<string, (value: unknown) => unknown>;

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

const isObject = (value: unknown): value is Json =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

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

/** The fields the service itself advises deduplicating on, per event type. */
const IDENTITY_FIELDS = new Map<string, string[]>([
	[ORDER_UPDATED, ['orderNumber', 'status']],
	[VOUCHER_UPDATED, ['serialNumber', 'balance']],
]);

export type Reading = { event: WebhookEvent } | { unreadable: string };

/**
 * The event in a verified body, read once for the filters, the key and the output: a known
 * type and its statuses in the spec's case, its numbers as numbers. An unknown type's event
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

const shown = (value: unknown) =>
	value === undefined ? 'missing' : JSON.stringify(value).slice(0, 60);

export type Verdict = 'run' | 'filtered' | { unreadable: string };

/**
 * 'filtered' only where the filters read the event with certainty: a known type, a status
 * the spec lists. An event they cannot read is never acknowledged unrun: it runs when every
 * reading of it would pass (all four statuses selected), otherwise it is unreadable,
 * answered 5xx so the service delivers it again.
 */
export function filterEvent(event: WebhookEvent, filter: EventFilter): Verdict {
	if (!DATA_FIELDS.has(event.type)) {
		if (filter.includeUnknownEvents) return 'run';
		return {
			unreadable: `its type ${shown(event.type)} is not one this node knows; turn on Options → Include Unknown Event Types to run such events`,
		};
	}
	if (!filter.events.includes(event.type)) return 'filtered';
	if (event.type !== ORDER_UPDATED) return 'run';
	const { status } = event.data;
	if (typeof status === 'string' && ORDER_STATUSES.includes(status)) {
		return filter.orderStatuses.includes(status) ? 'run' : 'filtered';
	}
	if (TERMINAL_ORDER_STATUSES.every((terminal) => filter.orderStatuses.includes(terminal))) {
		return 'run';
	}
	return {
		unreadable: `its order status ${shown(status)} is not one of ${ORDER_STATUSES.join(', ')}; select all four Order Statuses to run such events`,
	};
}

/**
 * Undefined when the event cannot be identified (unknown type, or a key field missing):
 * such events are never suppressed, because guessing wrong would drop a real change. The
 * event as read, so a copy in another case or with numbers as text has the same key.
 */
export function deduplicationKey(event: WebhookEvent): string | undefined {
	const fields = IDENTITY_FIELDS.get(event.type);
	if (fields === undefined) return undefined;
	const values = fields.map((field) => event.data[field]);
	if (values.some((value) => typeof value !== 'string' && typeof value !== 'number')) {
		return undefined;
	}
	// JSON keeps "A|B" + "C" apart from "A" + "B|C"
	return JSON.stringify([event.type, ...values]);
}
