// A campaign fed by Row ID (orders `<base>-k<block>-n<n>`) judged from the sandbox's own books:
// the vouchers each e-mail holds, one debit per order, and what a run asked the service for;
// and the paged campaign examples run from their manual trigger, their totals read once the
// execution succeeded.
import { expect } from 'vitest';

import { resultAgrees, type RecipientRow } from '../../real-n8n/campaignFromDataTable.mts';
import type { Execution, N8nRest } from '../../real-n8n/rest.mts';
import type { Sandbox } from '../../sandbox/server.mts';

export interface HeldVoucher {
	reference: string;
	value: number;
	status: string | null;
}

export function pagedCampaignBooks(sandbox: Sandbox, base: string) {
	const ofCampaign = new RegExp(`^${base}-k\\d+-n\\d+$`);
	// Every name a paged run asks about: its blocks' orders, 0.3.0's (`-b12-3`) and a whole
	// sheet's (`-1` to `-32`), which it refuses to run beside.
	const named = new RegExp(`^${base}-(k\\d+-n\\d+|b\\d+-\\d+|\\d+)$`);
	const ofOrder = (path: string) =>
		path.startsWith('/v2/orders/') && named.test(path.slice('/v2/orders/'.length));

	/** Requests of this campaign the sandbox served after request `seq`. */
	function requestsSince(seq: number) {
		const served = sandbox.state.requests.filter(
			(r) =>
				r.seq > seq &&
				(ofOrder(r.path) ||
					named.test(String((r.body as { reference?: string } | null)?.reference))),
		);
		const creates = served.filter((r) => r.method === 'POST');
		return {
			lookUps: served.filter((r) => r.method === 'GET').length,
			creates: creates.filter((r) => r.statusCode === '00').length,
			refusedCreates: creates.filter((r) => r.statusCode !== '00').length,
		};
	}

	/** The campaign's orders, its vouchers by e-mail and its debits. */
	function books() {
		const orders = [...sandbox.state.orders.values()].filter((o) => ofCampaign.test(o.reference));
		const vouchers = new Map<string, HeldVoucher[]>();
		for (const order of orders)
			for (const { email, value, status } of order.vouchers) {
				const held = { reference: order.reference, value, status };
				vouchers.set(email!, [...(vouchers.get(email!) ?? []), held]);
			}
		const debits = sandbox.state.ledger.filter(
			(e) => e.kind === 'debit' && ofCampaign.test(e.reference ?? ''),
		);
		return { orders, vouchers, debits };
	}

	return { requestsSince, books };
}

/** The service's status codes for the creates of order `reference` after request `seq`, in order. */
export const createAnswers = (sandbox: Sandbox, seq: number, reference: string): string[] =>
	sandbox.state.requests
		.filter(
			(r) => r.seq > seq && (r.body as { reference?: string } | null)?.reference === reference,
		)
		.map((r) => String(r.statusCode));

/** The sandbox's last request, to count what comes after it. */
export const lastSeq = (sandbox: Sandbox): number => sandbox.state.requests.at(-1)?.seq ?? 0;

/** What every campaign's tally must show: each row one voucher of its amount, each order paid once. */
export const EVERY_ROW_ONCE = {
	missing: 0,
	doubled: 0,
	wrongValue: 0,
	strangers: 0,
	ordersPaidTwice: 0,
	ordersUnpaid: 0,
};

/**
 * Runs of a paged campaign example (campaignExample.mts) in the n8n of `rest` (read at each run,
 * as suites log in after they declare this), and its totals (read by `totals`).
 */
export function campaignRuns<T>(
	rest: () => N8nRest,
	example: { campaignId: string; start: string },
	totals: (ex: Execution) => T,
	timeoutMs: number,
) {
	return {
		/** Runs the campaign from its manual trigger to the end; the execution. */
		run: () => rest().runWorkflow(example.campaignId, example.start, timeoutMs),
		/** The totals of an execution that must have succeeded. */
		totalsOf(ex: Execution): T {
			expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
			return totals(ex);
		},
	};
}

/**
 * The rows of a Data Table (examples/campaign-from-data-table) against campaign `base`'s books;
 * `deleted`: e-mails of rows deleted from the table, whose vouchers stay theirs.
 */
export function tableTally(
	sandbox: Sandbox,
	base: string,
	rows: RecipientRow[],
	deleted: ReadonlySet<string> = new Set(),
) {
	const { orders, vouchers, debits } = pagedCampaignBooks(sandbox, base).books();
	const emails = new Set(rows.map((r) => r.email));
	const paid = new Set(debits.map((d) => d.reference));
	return {
		missing: rows.filter((r) => !vouchers.has(r.email)).length,
		doubled: [...vouchers.values()].filter((held) => held.length > 1).length,
		wrongValue: rows.filter((r) => vouchers.get(r.email)?.some((v) => v.value !== r.amount)).length,
		strangers: [...vouchers.keys()].filter((e) => !emails.has(e) && !deleted.has(e)).length,
		ordersPaidTwice: debits.length - paid.size,
		ordersUnpaid: orders.length - paid.size,
		resultsWrong: rows.filter((r) => !resultAgrees(r, vouchers.get(r.email))).length,
		held: rows.filter((r) => vouchers.has(r.email)).length,
		rows,
	};
}

/** A Data Table's tally when every row holds its voucher and says so. */
export const EVERY_TABLE_ROW_ONCE = { ...EVERY_ROW_ONCE, resultsWrong: 0 };
