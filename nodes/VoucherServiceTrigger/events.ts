import type { WebhookEvent } from '../serviceProtocol/signature';

export const ORDER_UPDATED = 'ORDER_UPDATED';
export const VOUCHER_UPDATED = 'VOUCHER_UPDATED';

export interface EventFilter {
	events: string[];
	orderStatuses: string[];
	includeUnknownEvents: boolean;
}

/** The fields the service itself advises deduplicating on, per event type. */
const IDENTITY_FIELDS: Record<string, string[]> = {
	[ORDER_UPDATED]: ['orderNumber', 'status'],
	[VOUCHER_UPDATED]: ['serialNumber', 'balance'],
};

export function isWanted(event: WebhookEvent, filter: EventFilter): boolean {
	if (IDENTITY_FIELDS[event.type] === undefined) return filter.includeUnknownEvents;
	if (!filter.events.includes(event.type)) return false;
	if (event.type !== ORDER_UPDATED) return true;
	return filter.orderStatuses.includes(String(event.data.status));
}

/**
 * Undefined when the event cannot be identified (unknown type, or a key field missing):
 * such events are never suppressed, because guessing wrong would drop a real change.
 */
export function deduplicationKey(event: WebhookEvent): string | undefined {
	const fields = IDENTITY_FIELDS[event.type];
	if (fields === undefined) return undefined;
	const values = fields.map((field) => event.data[field]);
	if (values.some((value) => typeof value !== 'string' && typeof value !== 'number')) {
		return undefined;
	}
	// JSON keeps "A|B" + "C" apart from "A" + "B|C"
	return JSON.stringify([event.type, ...values]);
}
