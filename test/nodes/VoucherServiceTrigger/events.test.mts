import { describe, expect, it } from 'vitest';

import { readEvent } from '../../../nodes/serviceProtocol/events';
import { deduplicationKey, filterEvent } from '../../../nodes/VoucherServiceTrigger/events';

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

describe('filterEvent', () => {
	const filter = {
		events: ['ORDER_UPDATED'],
		orderStatuses: ['FAILED'],
		includeUnknownEvents: false,
	};

	it('applies the event and order status filters', () => {
		expect(filterEvent(order('FAILED'), filter)).toBe('run');
		expect(filterEvent(order('COMPLETED'), filter)).toBe('filtered');
		expect(filterEvent(voucher(1, 1), filter)).toBe('filtered');
	});

	it('runs an unknown status only when every status is selected; PROCESSING is known and filtered', () => {
		const all = {
			...filter,
			orderStatuses: ['COMPLETED', 'PARTIALLY_COMPLETED', 'CANCELED', 'FAILED'],
		};
		expect(filterEvent(order('SUCCESS'), all)).toBe('run');
		expect(filterEvent(order('SUCCESS'), filter)).toEqual({
			unreadable: expect.stringContaining('"SUCCESS"'),
		});
		expect(filterEvent(order('PROCESSING'), all)).toBe('filtered');
	});

	it('runs unknown types only when asked to, and never acknowledges them unrun', () => {
		const unknown = { type: 'WALLET_UPDATED', data: {} };
		expect(filterEvent(unknown, filter)).toEqual({
			unreadable: expect.stringContaining('"WALLET_UPDATED"'),
		});
		expect(filterEvent(unknown, { ...filter, includeUnknownEvents: true })).toBe('run');
	});

	it('takes no inherited property of an object for a known type', () => {
		for (const type of ['constructor', 'toString', '__proto__'])
			expect(filterEvent({ type, data: {} }, filter)).toHaveProperty('unreadable');
	});
});

describe('deduplicationKey of an event as readEvent reads it', () => {
	const keyOf = (body: Record<string, unknown>) => {
		const reading = readEvent(body);
		if (!('event' in reading)) throw new Error(reading.unreadable);
		return deduplicationKey(reading.event);
	};

	it('gives one key to an event in any case, with numbers as numbers or text', () => {
		const orderKey = keyOf(order('COMPLETED'));
		expect(
			keyOf({ type: ' order_updated', data: { orderNumber: 'ORD-1', status: 'completed ' } }),
		).toBe(orderKey);
		expect(keyOf({ type: 'ORDER_UPDATED', data: { orderNumber: 12, status: 'FAILED' } })).toBe(
			keyOf({ type: 'ORDER_UPDATED', data: { orderNumber: '12', status: 'Failed' } }),
		);
		const voucherKey = keyOf(voucher(12, 1500));
		expect(voucherKey).toBe(JSON.stringify(['VOUCHER_UPDATED', 12, 1500]));
		for (const [serial, balance] of [
			['12', '1500'],
			['12', '1500.00'],
			[12, '1500.0'],
		])
			expect(keyOf({ type: 'Voucher_Updated', data: { serialNumber: serial, balance } })).toBe(
				voucherKey,
			);
		expect(keyOf(voucher('12', '1500.01'))).not.toBe(voucherKey);
	});
});
