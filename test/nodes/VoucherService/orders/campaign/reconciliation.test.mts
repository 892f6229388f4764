/**
 * The matching rules for answers the sandbox never gives (it lists no vouchers while an
 * order is PROCESSING, as the spec says), checked on the pure function.
 */
import { describe, expect, it } from 'vitest';

import { recipientKey } from '../../../../../nodes/VoucherService/orders/match';
import type { CampaignRow, Order } from '../../../../../nodes/VoucherService/orders/types';
import {
	reconcile,
	recipientsOf,
} from '../../../../../nodes/VoucherService/orders/campaign/reconciliation';

function row(itemIndex: number, email: string): CampaignRow {
	const recipient = { firstName: 'A', lastName: 'B', email };
	return {
		itemIndex,
		base: 'base',
		recipient,
		recipientKey: recipientKey(recipient),
		amountKobo: 100_000,
		orderFields: {
			productCode: 'P',
			templateId: 1,
			narration: undefined,
			couponCode: undefined,
		},
		orderKey: 'k',
	};
}

const voucher = (email: string) => ({ firstName: 'A', lastName: 'B', email, value: 1000 });

describe('an order still PROCESSING that lists some vouchers', () => {
	const order: Order = {
		orderNumber: 'ORD-1',
		reference: 'base-1',
		status: 'PROCESSING',
		vouchers: [voucher('listed@example.com')],
	};

	it('is unknown: its list may be incomplete', () => {
		expect(recipientsOf(order)).toBe('pending');
	});

	it('matches its listed vouchers, and blocks every other row', () => {
		const decisions = reconcile(
			[row(0, 'listed@example.com'), row(1, 'other@example.com')],
			[{ number: 1, reference: order.reference, order }],
		);
		expect(decisions.map((decision) => decision.kind)).toEqual(['held', 'blocked']);
	});
});

describe('final orders', () => {
	it.each([
		['COMPLETED', null, 'unlisted'],
		['COMPLETED', [], 'unlisted'],
		['PARTIALLY_COMPLETED', [], 'unlisted'],
		['COMPLETED', [voucher('x@example.com')], 'known'],
		['FAILED', null, 'known'],
		['CANCELED', [voucher('x@example.com')], 'known'],
	] as const)('%s with vouchers %j: %s', (status, vouchers, expected) => {
		const order: Order = {
			orderNumber: 'ORD-1',
			reference: 'base-1',
			status,
			vouchers: vouchers as Order['vouchers'],
		};
		expect(recipientsOf(order)).toBe(expected);
	});
});
