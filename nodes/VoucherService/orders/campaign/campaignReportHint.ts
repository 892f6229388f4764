import type { IDataObject, NodeExecutionHint } from 'n8n-workflow';

import { formatNaira } from '../../shared/money';
import { voucherKobo } from '../match';
import { DELIVERY_STATUSES } from './deliveryStatus';
import type { DeliveryStatus } from './deliveryStatus';
import { counted, listed } from '../wording';

/** One output item of the report: a voucher, or an order that lists none (`vouchersListed: false`). */
export interface ReportedVoucher extends IDataObject {
	email: IDataObject[string];
	firstName: IDataObject[string];
	lastName: IDataObject[string];
	value: IDataObject[string];
	serial: IDataObject[string];
	reference: string;
	orderNumber: string;
	orderStatus: string;
	deliveryStatus: DeliveryStatus;
	vouchersListed?: false;
}

/** One campaign as the report found it. */
export interface CampaignReport {
	base: string;
	/** How many orders were found: `<base>-<n>`, or `<base>-k<block>-n<n>` (and 0.3.0's) of the blocks read. */
	orders: number;
	items: ReportedVoucher[];
	/** The orders looked for, as the hint names them when none was found. */
	lookedFor: string[];
	/** Whether blocks of Row IDs were read. */
	byRowId: boolean;
}

/** The vouchers' counts per delivery status and their value, or undefined when no order exists. */
function vouchersText(found: CampaignReport[]): string | undefined {
	if (found.length === 0) return undefined;
	const subject = found.length === 1 ? `Campaign "${found[0].base}"` : `${found.length} campaigns`;
	const items = found.flatMap((report) => report.items);
	const vouchers = items.filter((item) => item.vouchersListed !== false);
	const orders = found.reduce((sum, report) => sum + report.orders, 0);
	const totalKobo = vouchers.reduce((sum, item) => sum + voucherKobo(item), 0);
	const perStatus = DELIVERY_STATUSES.map(
		(status) => `${vouchers.filter((item) => item.deliveryStatus === status).length} ${status}`,
	).join(', ');
	const head = `${subject}: ${counted(vouchers.length, 'voucher')} in ${counted(orders, 'order')}, worth ${formatNaira(totalKobo)}: ${perStatus}.`;
	const unlisted = items.filter((item) => item.vouchersListed === false);
	return unlisted.length === 0 ? head : `${head} ${unlistedText(unlisted)}`;
}

/** The orders that name no recipients, so that nobody reads the counts as the whole campaign. */
function unlistedText(unlisted: ReportedVoucher[]): string {
	const orders = unlisted.map((item) => `${item.reference} (${item.orderStatus})`);
	if (orders.length === 1)
		return `Order ${orders[0]} lists no vouchers, so its recipients are not in this report.`;
	return `${orders.length} orders list no vouchers (${listed(orders)}), so their recipients are not in this report.`;
}

function notFoundText(missing: CampaignReport[]): string | undefined {
	if (missing.length === 0) return undefined;
	const names = listed(missing.map((report) => `"${report.base}"`));
	const [example] = missing;
	const check = example.byRowId ? 'the base reference and the Row IDs' : 'the base reference';
	return `No orders found for ${missing.length === 1 ? 'campaign' : 'campaigns'} ${names} (orders ${example.lookedFor.join('; ')}): check ${check}.`;
}

/**
 * The report's summary above the output: per delivery status how many vouchers, and what they
 * are worth (face value, before coupon discounts and whatever the service refunds), counted
 * once per campaign even when several items asked for it.
 */
export function campaignReportHint(
	reports: CampaignReport[],
	failedItems: number,
): NodeExecutionHint {
	const texts = [
		vouchersText(reports.filter((report) => report.orders > 0)),
		notFoundText(reports.filter((report) => report.orders === 0)),
		failedItems > 0 ? `${counted(failedItems, 'item')} failed.` : undefined,
	].filter((text): text is string => text !== undefined);
	const attention = reports.some(
		(report) =>
			report.orders === 0 ||
			report.items.some((item) => ['FAILED', 'CANCELED'].includes(item.deliveryStatus)),
	);
	return {
		message: texts.join(' '),
		type: attention || failedItems > 0 ? 'warning' : 'info',
		location: 'outputPane',
	};
}
