import { describe, expect, it } from 'vitest';

import { deduplicationKey, isWanted } from '../../../nodes/VoucherServiceTrigger/events';

const order = (status: string, orderNumber = 'ORD-1') => ({
	type: 'ORDER_UPDATED',
	data: { orderNumber, reference: 'r', status },
});
const voucher = (serialNumber: unknown, balance: unknown) => ({
	type: 'VOUCHER_UPDATED',
	data: { serialNumber, balance, orderNumber: 'ORD-1' },
});

describe('deduplicationKey', () => {
	it('uses order number and status, or serial number and balance', () => {
		expect(deduplicationKey(order('COMPLETED'))).toBe(deduplicationKey(order('COMPLETED')));
		expect(deduplicationKey(order('COMPLETED'))).not.toBe(deduplicationKey(order('FAILED')));
		expect(deduplicationKey(voucher(7, 10))).not.toBe(deduplicationKey(voucher(7, 9.5)));
	});

	it('keeps field boundaries apart', () => {
		const a = { type: 'ORDER_UPDATED', data: { orderNumber: 'A","B', status: 'C' } };
		const b = { type: 'ORDER_UPDATED', data: { orderNumber: 'A', status: 'B","C' } };
		expect(deduplicationKey(a)).not.toBe(deduplicationKey(b));
	});

	it('gives no key when it cannot identify the event', () => {
		expect(deduplicationKey(voucher(undefined, 10))).toBeUndefined();
		expect(deduplicationKey({ type: 'ORDER_UPDATED', data: { status: 'FAILED' } })).toBeUndefined();
		expect(deduplicationKey({ type: 'SOMETHING_NEW', data: { id: 1 } })).toBeUndefined();
	});
});

describe('isWanted', () => {
	const filter = {
		events: ['ORDER_UPDATED'],
		orderStatuses: ['FAILED'],
		includeUnknownEvents: false,
	};

	it('applies the event and order status filters', () => {
		expect(isWanted(order('FAILED'), filter)).toBe(true);
		expect(isWanted(order('COMPLETED'), filter)).toBe(false);
		expect(isWanted(voucher(1, 1), filter)).toBe(false);
	});

	it('lets unknown types through only when asked to', () => {
		const unknown = { type: 'WALLET_UPDATED', data: {} };
		expect(isWanted(unknown, filter)).toBe(false);
		expect(isWanted(unknown, { ...filter, includeUnknownEvents: true })).toBe(true);
	});
});

