import { describe, expect, it } from 'vitest';

import { readEvent } from '../../../nodes/serviceProtocol/events';

const read = (body: Record<string, unknown>) => {
	const reading = readEvent(body);
	if (!('event' in reading)) throw new Error(reading.unreadable);
	return reading.event;
};

describe('readEvent', () => {
	it('reads a known type and its statuses in the spec case, decimals as numbers, order numbers as text', () => {
		expect(
			read({
				type: ' order_updated',
				data: {
					orderNumber: 12,
					status: 'completed ',
					vouchers: [{ value: '1000.50', serial: '77', status: 'delivered' }, 'not a voucher'],
				},
			}),
		).toEqual({
			type: 'ORDER_UPDATED',
			data: {
				orderNumber: '12',
				status: 'COMPLETED',
				vouchers: [{ value: 1000.5, serial: 77, status: 'DELIVERED' }, 'not a voucher'],
			},
		});
		expect(
			read({ type: 'Voucher_Updated', data: { serialNumber: '12', balance: '1500.00' } }),
		).toEqual({ type: 'VOUCHER_UPDATED', data: { serialNumber: 12, balance: 1500 } });
	});

	it('keeps what it cannot read as a number as sent', () => {
		expect(
			read({ type: 'VOUCHER_UPDATED', data: { serialNumber: '12 ', balance: 'NGN 1,500' } }).data,
		).toEqual({ serialNumber: '12 ', balance: 'NGN 1,500' });
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
