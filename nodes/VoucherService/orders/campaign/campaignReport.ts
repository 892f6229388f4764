import type { ItemPlan, RunSettings } from '../../plan';
import type { VoucherApiClient } from '../../transport/client';
import type { CampaignOrder, Order } from '../types';
import { campaignReportHint } from './campaignReportHint';
import type { CampaignReport, ReportedVoucher } from './campaignReportHint';
import { unlistedOrderDeliveryStatus, voucherDeliveryStatus } from './deliveryStatus';
import { campaignOrderReference, discoverCampaignOrders } from './discovery';

/** The base reference one input item asks about, checked; or why it cannot be used. */
export type ReadCampaignBase =
	| { itemIndex: number; base: string }
	| { itemIndex: number; error: unknown };

/** The order's columns on each of its items; the reference is the one looked up (the answer may omit it). */
const orderColumns = (reference: string, order: Order) => ({
	reference,
	orderNumber: order.orderNumber,
	orderStatus: order.status,
});

/**
 * One item per listed voucher. An order that lists none (still PROCESSING, FAILED, CANCELED,
 * or final without a list) is one item of its own with `vouchersListed: false`, so the report
 * never hides an order whose recipients the service did not name. Codes and PINs are left out
 * on purpose: the report is about delivery, and may go to an AI agent.
 */
function reportedVouchers(reference: string, order: Order): ReportedVoucher[] {
	const vouchers = order.vouchers ?? [];
	if (vouchers.length === 0) {
		return [
			{
				email: null,
				firstName: null,
				lastName: null,
				value: null,
				serial: null,
				...orderColumns(reference, order),
				deliveryStatus: unlistedOrderDeliveryStatus(order),
				vouchersListed: false,
			},
		];
	}
	return vouchers.map((voucher) => ({
		email: voucher.email ?? null,
		firstName: voucher.firstName ?? null,
		lastName: voucher.lastName ?? null,
		value: voucher.value ?? null,
		serial: voucher.serial ?? null,
		...orderColumns(reference, order),
		deliveryStatus: voucherDeliveryStatus(voucher.status),
	}));
}

const reportOf = (base: string, orders: CampaignOrder[]): CampaignReport => ({
	base,
	orders: orders.length,
	items: orders.flatMap(({ number, order }) =>
		reportedVouchers(campaignOrderReference(base, number), order),
	),
});

/**
 * Order → Get Campaign: each input item's campaign, its orders found as a campaign run finds
 * them (discovery.ts, the same stopping rule), as one item per voucher. Reads only: nothing is
 * ever created. A campaign asked for by several items is read once; each item gets its own copy.
 * With no order found an item gets no output, and the hint says so.
 */
export async function planCampaignReport(
	client: VoucherApiClient,
	reads: ReadCampaignBase[],
	run: RunSettings,
): Promise<ItemPlan> {
	const plan: ItemPlan = { settled: [], jobs: [] };
	const failed = () => plan.settled.filter((outcome) => 'error' in outcome).length;
	for (const read of reads) if ('error' in read) plan.settled.push(read);
	// Without continueOnFail a bad item stops the node before anything is sent.
	if (failed() > 0 && !run.continueOnFail) return plan;

	const reports = new Map<string, CampaignReport>();
	for (const read of reads) {
		if ('error' in read) continue;
		const { itemIndex, base } = read;
		let report = reports.get(base);
		if (!report) {
			try {
				report = reportOf(base, await discoverCampaignOrders(client, base, itemIndex));
			} catch (error) {
				plan.settled.push({ itemIndex, error });
				if (!run.continueOnFail) return plan;
				continue;
			}
			reports.set(base, report);
		}
		plan.settled.push({ itemIndex, json: report.items.map((item) => ({ ...item })) });
	}
	if (reports.size > 0) plan.hints = [campaignReportHint([...reports.values()], failed())];
	return plan;
}
