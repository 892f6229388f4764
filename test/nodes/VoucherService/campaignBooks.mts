/**
 * A campaign judged from the sandbox's own books: the vouchers each recipient holds across all
 * orders of the campaign, and one debit per order. Shared by the unit tests' campaign runs
 * (campaignRuns.mts) and the queue suite, whose campaigns run in a real n8n.
 */
import { expect } from 'vitest';
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../../sandbox/server.mts';

/** A sheet's row as the books see it: its person and the value of the voucher it should hold. */
export interface BookRow {
	firstName: string;
	lastName: string;
	email: string;
	amount: number;
}

export const personKey = (p: { email?: unknown; firstName?: unknown; lastName?: unknown }) =>
	[p.email, p.firstName, p.lastName].map((v) => String(v).trim().toLowerCase()).join('|');

export function campaignBooks(sandbox: Sandbox) {
	/** Whole-sheet orders `<base>-n` and paged ones `<base>-k<block>-n<n>` (0.3.0: `-b<block of 100>-<n>`) alike. */
	const ofCampaign = (base: string, reference: string | null | undefined) =>
		new RegExp(`^${base}-(k\\d+-n|b\\d+-)?\\d+$`).test(reference ?? '');
	const campaignOrders = (base: string) =>
		[...sandbox.state.orders.values()].filter((order) => ofCampaign(base, order.reference));

	/**
	 * The report Get Campaign should give, from the books: every voucher, in block (paged
	 * orders `<base>-k<block>-n<n>`, after the block's 0.3.0 orders by their block of 100), then
	 * order-number, then list order.
	 */
	function reportFromBooks(base: string): IDataObject[] {
		const place = (reference: string): bigint[] => {
			const [, block, old, number = '0'] = /-(?:k(\d+)-n|b(\d+)-)?(\d+)$/.exec(reference) ?? [];
			if (block !== undefined) return [BigInt(block), BigInt(1), BigInt(0), BigInt(number)];
			if (old !== undefined)
				return [BigInt(old) / BigInt(10), BigInt(0), BigInt(old), BigInt(number)];
			return [BigInt(-1), BigInt(0), BigInt(0), BigInt(number)];
		};
		const compare = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
		const orders = campaignOrders(base).sort((a, b) => {
			const [placeA, placeB] = [place(a.reference), place(b.reference)];
			return placeA.reduce((order, key, i) => order || compare(key, placeB[i]), 0);
		});
		return orders.flatMap((order): IDataObject[] => {
			const orderFields = {
				reference: order.reference,
				orderNumber: order.orderNumber,
				orderStatus: order.status,
			};
			if (order.status === 'PROCESSING' || order.vouchers.length === 0) {
				const deliveryStatus = ['FAILED', 'CANCELED'].includes(order.status)
					? order.status
					: 'PROCESSING';
				const none = { email: null, firstName: null, lastName: null, value: null, serial: null };
				return [{ ...none, ...orderFields, deliveryStatus, vouchersListed: false }];
			}
			return order.vouchers.map((voucher) => ({
				email: voucher.email,
				firstName: voucher.firstName,
				lastName: voucher.lastName,
				value: voucher.value,
				// The node reports a serial past 2^53 as its digits.
				serial: typeof voucher.serial === 'bigint' ? String(voucher.serial) : voucher.serial,
				...orderFields,
				deliveryStatus: voucher.status,
			}));
		});
	}

	/** The ledger view: voucher values (NGN) each recipient holds across the campaign's orders. */
	function vouchersPerRecipient(base: string): Map<string, number[]> {
		const held = new Map<string, number[]>();
		for (const order of campaignOrders(base)) {
			for (const voucher of order.vouchers) {
				const key = personKey(voucher);
				held.set(key, [...(held.get(key) ?? []), voucher.value]);
			}
		}
		return held;
	}

	/** Each row's person holds exactly as many vouchers of each value as the sheet lists. */
	function expectEveryRowHeldOnce(base: string, rows: BookRow[]) {
		const wanted = new Map<string, number[]>();
		for (const row of rows)
			wanted.set(personKey(row), [...(wanted.get(personKey(row)) ?? []), row.amount]);
		const held = vouchersPerRecipient(base);
		for (const [key, values] of wanted) {
			expect([...(held.get(key) ?? [])].sort(), key).toEqual([...values].sort());
		}
		expect(held.size).toBe(wanted.size);
	}

	/** One debit per order of the campaign: no order was ever paid twice. */
	function expectOneDebitPerOrder(base: string) {
		const debits = sandbox.state.ledger.filter(
			(e) => e.kind === 'debit' && ofCampaign(base, e.reference),
		);
		expect(debits.length).toBe(campaignOrders(base).length);
		expect(new Set(debits.map((e) => e.reference)).size).toBe(debits.length);
	}

	return {
		campaignOrders,
		reportFromBooks,
		vouchersPerRecipient,
		expectEveryRowHeldOnce,
		expectOneDebitPerOrder,
	};
}
