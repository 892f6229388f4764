import type { Order } from '../types';

/** The delivery statuses the spec lists for an item of a recipient order. */
export const DELIVERY_STATUSES = ['DELIVERED', 'FAILED', 'CANCELED', 'PROCESSING'] as const;

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/*
 * Where the spec is silent, the report says PROCESSING: "not known to be delivered, not known
 * to have failed". Both other guesses cost more when wrong: DELIVERED would hide a person who
 * never got a voucher, and FAILED invites buying that person a voucher again, paying twice.
 */

/**
 * A voucher's delivery status: the service's own `status` when it is one the spec lists
 * (in any case). Anything else is PROCESSING: null (which the spec gives download vouchers)
 * or a value the spec does not list.
 */
export function voucherDeliveryStatus(status: unknown): DeliveryStatus {
	const named = typeof status === 'string' ? status.trim().toUpperCase() : undefined;
	return DELIVERY_STATUSES.find((known) => known === named) ?? 'PROCESSING';
}

/**
 * What the recipients of an order that lists no vouchers got, as far as its status tells:
 * a FAILED or CANCELED order is final and delivered nothing (the spec's ORDER_UPDATED carries
 * no vouchers for them); anything else (PROCESSING, or COMPLETED or PARTIALLY_COMPLETED
 * without a list) is not known, so PROCESSING.
 */
export function unlistedOrderDeliveryStatus(order: Order): DeliveryStatus {
	return order.status === 'FAILED' || order.status === 'CANCELED' ? order.status : 'PROCESSING';
}
