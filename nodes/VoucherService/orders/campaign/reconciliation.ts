import type { IDataObject } from 'n8n-workflow';

import { isTerminal } from '../../../serviceProtocol/orderStatus';
import type { CampaignOrder, CampaignRow, Order } from '../types';
import { recipientKey, voucherKobo } from '../match';

/** What a run does with one row, given the campaign's existing orders. */
export type RowDecision =
	/** The recipient already holds this voucher: output it, buy nothing. */
	| { kind: 'held'; row: CampaignRow; order: Order; voucher: IDataObject }
	/** Not held yet: buy it in a new order. */
	| { kind: 'new'; row: CampaignRow }
	/** The recipient holds vouchers of another value only: buying would give a second voucher. */
	| { kind: 'refused'; row: CampaignRow; heldKobo: number }
	/**
	 * The row's e-mail holds a voucher under another name that no row of this sheet claims:
	 * most likely the name was corrected, and buying would mail a second voucher.
	 */
	| { kind: 'renamed'; row: CampaignRow; heldName: string }
	/** An existing order's recipients are unknown, and this row could be one of them. */
	| { kind: 'blocked'; row: CampaignRow; unknown: Order };

/**
 * Whether an order's recipients can be read from its answer:
 * - `pending`: not final yet (PROCESSING). Its listed vouchers count, but the list may be
 *   incomplete, so it can be waited for;
 * - `unlisted`: COMPLETED or PARTIALLY_COMPLETED without a voucher list. Final, so waiting
 *   does not help: a person must check the order;
 * - `known`: every voucher is listed. A FAILED or CANCELED order counts the vouchers it
 *   lists; one that lists none holds none, so its recipients are bought again.
 */
export function recipientsOf(order: Order): 'known' | 'pending' | 'unlisted' {
	if (!isTerminal(order.status)) return 'pending';
	if (order.status === 'FAILED' || order.status === 'CANCELED') return 'known';
	return Array.isArray(order.vouchers) && order.vouchers.length > 0 ? 'known' : 'unlisted';
}

interface Held {
	from: CampaignOrder;
	order: Order;
	voucher: IDataObject;
	kobo: number;
	claimed: boolean;
}

const mailbox = (email: unknown) =>
	String(email ?? '')
		.trim()
		.toLowerCase();

/** Every listed recipient voucher of the orders, by recipient, in order-number order. */
function vouchersByRecipient(orders: CampaignOrder[]): Map<string, Held[]> {
	const byRecipient = new Map<string, Held[]>();
	for (const from of orders) {
		const { order } = from;
		for (const voucher of order.vouchers ?? []) {
			if (!voucher.email) continue; // a download voucher: no recipient
			const key = recipientKey(voucher);
			const held = { from, order, voucher, kobo: voucherKobo(voucher), claimed: false };
			const list = byRecipient.get(key);
			if (list) list.push(held);
			else byRecipient.set(key, [held]);
		}
	}
	return byRecipient;
}

/**
 * Matches rows to vouchers by counting: the n-th row of a person at an amount takes the n-th
 * voucher of that person and value, whatever the row order, chunking or settings of earlier
 * runs. So a person listed twice gets two vouchers, and never a third. Every voucher counts
 * whatever its delivery status: a FAILED item is shown on its row, not bought again.
 *
 * Every row claims its voucher first; only then are the others decided, so whether a voucher
 * under another name belongs to a row of this sheet does not depend on the row order.
 *
 * `holds` says which rows an order can hold (all by default): a row is matched, refused or
 * blocked only by the orders that can hold it.
 */
export function reconcile(
	rows: CampaignRow[],
	orders: CampaignOrder[],
	holds: (order: CampaignOrder, row: CampaignRow) => boolean = () => true,
): RowDecision[] {
	const unknown = orders.filter(({ order }) => recipientsOf(order) !== 'known');
	const byRecipient = vouchersByRecipient(orders);
	const claimedBy = rows.map((row) => {
		const held = byRecipient.get(row.recipientKey) ?? [];
		const same = held.find(
			(voucher) => !voucher.claimed && voucher.kobo === row.amountKobo && holds(voucher.from, row),
		);
		if (same) same.claimed = true;
		return same;
	});
	const unclaimedByMailbox = new Map<string, Held[]>();
	for (const list of byRecipient.values()) {
		for (const held of list) {
			if (held.claimed) continue;
			const key = mailbox(held.voucher.email);
			const same = unclaimedByMailbox.get(key);
			if (same) same.push(held);
			else unclaimedByMailbox.set(key, [held]);
		}
	}
	return rows.map((row, index): RowDecision => {
		const same = claimedBy[index];
		if (same) return { kind: 'held', row, order: same.order, voucher: same.voucher };
		const blocking = unknown.find((from) => holds(from, row));
		if (blocking) return { kind: 'blocked', row, unknown: blocking.order };
		const other = byRecipient
			.get(row.recipientKey)
			?.find((voucher) => voucher.kobo !== row.amountKobo && holds(voucher.from, row));
		if (other) return { kind: 'refused', row, heldKobo: other.kobo };
		const renamed = unclaimedByMailbox
			.get(mailbox(row.recipient.email))
			?.find((held) => holds(held.from, row));
		if (renamed && recipientKey(renamed.voucher) !== row.recipientKey) {
			const { firstName, lastName } = renamed.voucher;
			return { kind: 'renamed', row, heldName: `${String(firstName)} ${String(lastName)}` };
		}
		return { kind: 'new', row };
	});
}

/** New rows in orders of at most perOrder: grouped by order fields, in first-row order. */
export function chunkNewRows(rows: CampaignRow[], perOrder: number): CampaignRow[][] {
	const groups = new Map<string, CampaignRow[]>();
	for (const row of rows) {
		const group = groups.get(row.orderKey);
		if (group) group.push(row);
		else groups.set(row.orderKey, [row]);
	}
	const chunks: CampaignRow[][] = [];
	for (const group of groups.values()) {
		for (let start = 0; start < group.length; start += perOrder) {
			chunks.push(group.slice(start, start + perOrder));
		}
	}
	return chunks;
}

/** Each row's own voucher in an order: matched by recipient and value, each voucher once. */
export function vouchersOfRows(order: Order, rows: CampaignRow[]): Array<IDataObject | undefined> {
	const byRecipient = vouchersByRecipient([{ number: 0, reference: order.reference, order }]);
	return rows.map((row) => {
		const held = byRecipient
			.get(row.recipientKey)
			?.find((voucher) => !voucher.claimed && voucher.kobo === row.amountKobo);
		if (!held) return undefined;
		held.claimed = true;
		return held.voucher;
	});
}
