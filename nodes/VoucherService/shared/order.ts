import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { TERMINAL_ORDER_STATUSES } from '../../shared/orderStatus';
import {
	GIVE_CODES_PARAMETER,
	codesWithheldFlags,
	runsAsAgentTool,
	withoutCodes,
} from './agentTool';
import { executionParameters } from './parameters';

export interface Order extends IDataObject {
	orderNumber: string;
	reference: string;
	status: string;
	vouchers?: IDataObject[] | null;
}

/** An order plus what the node learned while getting it. */
export interface OrderResult {
	order: Order;
	/** The reference was already known to the service: this run did not (knowingly) create it. */
	alreadyExisted?: boolean;
	/** "Wait for completion" gave up while the order was still PROCESSING. */
	waitTimedOut?: boolean;
	/** Found under the reference, but listed no vouchers to compare with the request. */
	unverified?: boolean;
}

type OutputMode = 'order' | 'voucher';

export function isTerminal(status: string): boolean {
	return TERMINAL_ORDER_STATUSES.includes(status);
}

const PENDING_NOTICE =
	'The order is still PROCESSING, so its vouchers are not available yet. Read them later with Order → Get, or start a workflow from the Voucher Service Trigger.';

const UNVERIFIED_NOTICE =
	'An order already had this reference. It lists no vouchers yet, so it could not be compared with this item: check with Order → Get that it is what this item asked for.';

function orderFlags(result: OrderResult): IDataObject {
	const { order } = result;
	return {
		...(result.alreadyExisted !== undefined ? { alreadyExisted: result.alreadyExisted } : {}),
		...(result.waitTimedOut ? { waitTimedOut: true } : {}),
		...(order.status === 'PROCESSING' && !order.vouchers?.length
			? { vouchersPending: true, notice: PENDING_NOTICE }
			: {}),
		...(result.unverified ? { comparedWithRequest: false, notice: UNVERIFIED_NOTICE } : {}),
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
function orderOutput(result: OrderResult, mode: OutputMode, extraFlags: IDataObject): IDataObject[] {
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
export function orderItems(
	context: IExecuteFunctions,
	itemIndex: number,
	result: OrderResult,
): IDataObject[] {
	const { node, get } = executionParameters(context);
	const mode = get('outputMode', itemIndex, 'order') as OutputMode;
	if (!runsAsAgentTool(node) || get(GIVE_CODES_PARAMETER, itemIndex, false) === true) {
		return orderOutput(result, mode, {});
	}
	const withheld = withCodesWithheld(result);
	return orderOutput(withheld.result, mode, withheld.flags);
}
