import type { IDataObject } from 'n8n-workflow';

import type { OrderOutput, OrderResult } from './types';
import { codesWithheldFlags, withoutCodes } from '../shared/agentTool';

const PENDING_NOTICE =
	'The order is still PROCESSING, so its vouchers are not available yet. Read them later with Order → Get, or start a workflow from the Voucher Service Trigger.';

const UNVERIFIED_NOTICE =
	'An order already had this reference. It lists no vouchers yet, so it could not be compared with this item: check with Order → Get that it is what this item asked for.';

function orderFlags(result: OrderResult): IDataObject {
	const { order } = result;
	const pending = order.status === 'PROCESSING' && !order.vouchers?.length;
	// A found order still PROCESSING is both: each notice says what to do about its own part.
	const notices = [pending && PENDING_NOTICE, result.unverified && UNVERIFIED_NOTICE].filter(
		(notice) => typeof notice === 'string',
	);
	return {
		...(result.alreadyExisted !== undefined ? { alreadyExisted: result.alreadyExisted } : {}),
		// Counted as this run's, but an earlier run under the same reference may have bought it:
		// a workflow that sends codes for new orders can check before sending them twice.
		...(result.foundByLookup && !result.alreadyExisted ? { foundByLookup: true } : {}),
		...(result.waitTimedOut ? { waitTimedOut: true } : {}),
		...(result.waitFailed ? { waitFailed: result.waitFailed } : {}),
		...(pending ? { vouchersPending: true } : {}),
		...(result.unverified ? { comparedWithRequest: false } : {}),
		...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
	};
}

/** The order as an AI agent may see it: its vouchers without their codes and PINs. */
function withCodesWithheld(result: OrderResult): { result: OrderResult; flags: IDataObject } {
	const { order } = result;
	if (!order.vouchers?.length) return { result, flags: {} };
	return {
		result: { ...result, order: { ...order, vouchers: order.vouchers.map(withoutCodes) } },
		flags: codesWithheldFlags(order.reference),
	};
}

/** The items an order becomes: the order itself, or one per voucher with the order's keys copied on. */
function orderOutput(
	result: OrderResult,
	mode: OrderOutput['mode'],
	extraFlags: IDataObject,
): IDataObject[] {
	const { order } = result;
	const flags = { ...orderFlags(result), ...extraFlags };
	const vouchers = order.vouchers ?? [];
	if (mode === 'order' || vouchers.length === 0) return [{ ...order, ...flags }];
	return vouchers.map((voucher) => ({
		...voucher,
		reference: order.reference,
		orderNumber: order.orderNumber,
		orderStatus: order.status,
		...flags,
	}));
}

/**
 * An order as the items of one input item, in the Output mode chosen for that item; run as
 * an AI tool, without the vouchers' codes and PINs unless the user gives them to the agent.
 */
export function orderItems(result: OrderResult, output: OrderOutput): IDataObject[] {
	if (!output.withholdCodes) return orderOutput(result, output.mode, {});
	const withheld = withCodesWithheld(result);
	return orderOutput(withheld.result, output.mode, withheld.flags);
}
