import type { NodeExecutionHint } from 'n8n-workflow';

import type { ItemOutcome } from '../actions/types';
import { formatNaira } from '../shared/money';
import type { OrderRequest } from '../orderTypes';
import { orderTotalKobo, voucherCount } from './orderTotal';
import { counted } from '../shared/wording';

/** What a real run did, recorded as its orders come back (never re-computed from the input). */
export interface RunTally {
	/** Orders this run bought: what was sent, and the status the service gave. */
	bought: Array<{ request: OrderRequest; status: string }>;
	/** Items or rows whose voucher an earlier run had already bought. */
	held: number;
}

export const newRunTally = (): RunTally => ({ bought: [], held: 0 });

/** The summary above a real run's output, from its tally and the outcomes of all its items. */
export function runSummaryHint(tally: RunTally, outcomes: ItemOutcome[]): NodeExecutionHint {
	const vouchers = tally.bought.reduce((sum, { request }) => sum + voucherCount(request), 0);
	const spentKobo = tally.bought.reduce((sum, { request }) => sum + orderTotalKobo(request), 0);
	const failed = outcomes.filter((outcome) => 'error' in outcome).length;
	const processing = tally.bought.filter(({ status }) => status === 'PROCESSING').length;
	return {
		message: `This run bought ${counted(vouchers, 'voucher')} in ${counted(tally.bought.length, 'new order')} for ${formatNaira(spentKobo)} (before coupon discounts); ${counted(tally.held, 'item')} already held from an earlier run; ${counted(failed, 'item')} refused or failed; ${counted(processing, 'order')} still PROCESSING.`,
		type: 'info',
		location: 'outputPane',
	};
}
