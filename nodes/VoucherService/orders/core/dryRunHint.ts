import type { NodeExecutionHint } from 'n8n-workflow';

import { formatNaira } from '../../shared/money';
import { COUPON_JSON_KEY } from '../../shared/validation';
import type { OrderRequest } from '../types';
import { ordersTotalKobo, voucherCount } from './orderTotal';
import type { WalletCheck } from './walletCheck';
import { walletDryRunText } from './walletCheck';

/**
 * A dry run's totals, shown as the node's execution hint above the output (not as an item,
 * so every output item still stands for one input item). With Check Wallet Balance First it
 * also gives the NGN balance, the balance after, and whether a real run would be refused.
 */
export function dryRunHint(wouldSend: OrderRequest[], wallet?: WalletCheck): NodeExecutionHint {
	const vouchers = wouldSend.reduce((sum, request) => sum + voucherCount(request), 0);
	const totalKobo = ordersTotalKobo(wouldSend);
	const coupons = wouldSend.some((request) => request.body[COUPON_JSON_KEY] !== undefined)
		? ', before coupon discounts'
		: '';
	return {
		message: `Dry run, nothing was bought: a real run would buy ${vouchers} voucher${vouchers === 1 ? '' : 's'} in ${wouldSend.length} new order${wouldSend.length === 1 ? '' : 's'} for ${formatNaira(totalKobo)}${coupons}.${walletDryRunText(wallet)}`,
		type: 'info',
		location: 'outputPane',
	};
}
