import { describe, expect, it } from 'vitest';

import { readEvent } from '../../../nodes/serviceProtocol/events';
import { deduplicationKey } from '../../../nodes/VoucherServiceTrigger/events';

const order = (status: string, orderNumber = 'ORD-1') => ({
	type: 'ORDER_UPDATED',
	data: { orderNumber, reference: 'r', status },
});
const voucher = (serialNumber: unknown, balance: unknown) => ({
	type: 'VOUCHER_UPDATED',
	data: { serialNumber, balance, orderNumber: 'ORD-1' },
});

describe('readEvent', () => {
	const read = (body: Record<string, unknown>) => {
		const reading = readEvent(body);
		if (!('event' in reading)) throw new Error(reading.unreadable);
		return reading.event;
	};
	const keyOf = (body: Record<string, unknown>) => deduplicationKey(read(body));

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

	it('keeps what it cannot read as a number as sent', () => {
		expect(read(voucher('12 ', 'NGN 1,500')).data).toMatchObject({
			serialNumber: '12 ',
			balance: 'NGN 1,500',
		});
	});

	it('keeps an unknown type and its data as sent', () => {
		const body = { type: 'wallet_updated', data: { status: 'ok', balance: '1.00' } };
		expect(read(body)).toEqual(body);
	});

	it('finds no event without a string type and an object data', () => {
		for (const body of [{ data: {} }, { type: 'ORDER_UPDATED', data: [] }, { type: 1, data: {} }])
			expect(readEvent(body)).toHaveProperty('unreadable');
	});
});
