import type { NodeExecutionHint } from 'n8n-workflow';

import { formatNaira } from '../shared/money';
import { COUPON_JSON_KEY } from '../orderTypes';
import type { OrderRequest } from '../orderTypes';
import { orderTotalKobo, voucherCount } from './orderRequest';

/**
 * A dry run's totals, shown as the node's execution hint above the output (not as an item,
 * so every output item still stands for one input item).
 */
export function dryRunHint(wouldSend: OrderRequest[]): NodeExecutionHint {
	const vouchers = wouldSend.reduce((sum, request) => sum + voucherCount(request), 0);
	const totalKobo = wouldSend.reduce((sum, request) => sum + orderTotalKobo(request), 0);
	const coupons = wouldSend.some((request) => request.body[COUPON_JSON_KEY] !== undefined)
		? ', before coupon discounts'
		: '';
	return {
		message: `Dry run, nothing was bought: a real run would buy ${vouchers} voucher${vouchers === 1 ? '' : 's'} in ${wouldSend.length} new order${wouldSend.length === 1 ? '' : 's'} for ${formatNaira(totalKobo)}${coupons}.`,
		type: 'info',
		location: 'outputPane',
	};
}
