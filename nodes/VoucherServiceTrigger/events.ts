import { ORDER_STATUSES, TERMINAL_ORDER_STATUSES } from '../serviceProtocol/orderStatus';
import {
	isKnownEventType,
	ORDER_UPDATED,
	VOUCHER_UPDATED,
	type WebhookEvent,
} from '../serviceProtocol/events';

export interface EventFilter {
	events: string[];
	orderStatuses: string[];
	includeUnknownEvents: boolean;
}

/** The fields the service itself advises deduplicating on, per event type. */
const IDENTITY_FIELDS = new Map<string, string[]>([
	[ORDER_UPDATED, ['orderNumber', 'status']],
	[VOUCHER_UPDATED, ['serialNumber', 'balance']],
]);

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
	if (!isKnownEventType(event.type)) {
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
