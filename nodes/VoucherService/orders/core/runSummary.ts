import type { NodeExecutionHint } from 'n8n-workflow';

import type { ItemOutcome } from '../../plan';
import { formatNaira } from '../../shared/money';
import type { OrderRequest } from '../types';
import { ordersTotalKobo, voucherCount } from './orderTotal';
import { counted } from '../wording';

/** What a real run did, recorded as its orders come back (never re-computed from the input). */
export interface RunTally {
	/**
	 * Orders this run bought: what was sent, and the status the service gave. `foundByLookup`:
	 * found by look-up after the create's answer was lost, so possibly bought by an earlier run
	 * under the same reference (the service's order carries no date to tell).
	 */
	bought: Array<{ request: OrderRequest; status: string; foundByLookup?: boolean }>;
	/** Items or rows whose voucher an earlier run had already bought. */
	held: number;
}

export const newRunTally = (): RunTally => ({ bought: [], held: 0 });

/** The summary above a real run's output, from its tally and the outcomes of all its items. */
export function runSummaryHint(tally: RunTally, outcomes: ItemOutcome[]): NodeExecutionHint {
	const vouchers = tally.bought.reduce((sum, { request }) => sum + voucherCount(request), 0);
	const spentKobo = ordersTotalKobo(tally.bought.map(({ request }) => request));
	const failed = outcomes.filter((outcome) => 'error' in outcome).length;
	const processing = tally.bought.filter(({ status }) => status === 'PROCESSING').length;
	const lost = tally.bought.filter(({ foundByLookup }) => foundByLookup);
	const lostKobo = ordersTotalKobo(lost.map(({ request }) => request));
	const lostText =
		lost.length === 0
			? ''
			: ` ${lost.length} of these orders (${formatNaira(lostKobo)}) ${lost.length === 1 ? 'was' : 'were'} found by look-up after the create's answer was lost: this run bought ${lost.length === 1 ? 'it' : 'them'}, unless an earlier run used the same Reference.`;
	return {
		message: `This run bought ${counted(vouchers, 'voucher')} in ${counted(tally.bought.length, 'new order')} for ${formatNaira(spentKobo)} (before coupon discounts); ${counted(tally.held, 'item')} already held from an earlier run; ${counted(failed, 'item')} refused or failed; ${counted(processing, 'order')} still PROCESSING.${lostText}`,
		type: 'info',
		location: 'outputPane',
	};
}
