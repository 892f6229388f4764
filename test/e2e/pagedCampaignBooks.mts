// A campaign fed by Row ID (orders `<base>-b<block>-n<n>`) judged from the sandbox's own books:
// the vouchers each e-mail holds, one debit per order, and what a run asked the service for.
import type { Sandbox } from '../../sandbox/server.mts';

export interface HeldVoucher {
	reference: string;
	value: number;
	status: string | null;
}

export function pagedCampaignBooks(sandbox: Sandbox, base: string) {
	const ofCampaign = new RegExp(`^${base}-b\\d+-n\\d+$`);
	const ofBase = (reference: unknown) => String(reference).startsWith(`${base}-b`);

	/** Requests of this campaign the sandbox served after request `seq`. */
	function requestsSince(seq: number) {
		const served = sandbox.state.requests.filter(
			(r) =>
				r.seq > seq &&
				(r.path.startsWith(`/v2/orders/${base}-b`) ||
					ofBase((r.body as { reference?: string } | null)?.reference)),
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
