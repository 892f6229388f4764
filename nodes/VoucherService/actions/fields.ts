import type { INodeProperties } from 'n8n-workflow';

import type { OrderOutput } from '../orders/types';
import { runsAsAgentTool } from '../shared/agentTool';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY_LIMIT } from '../shared/concurrency';
import { readBoolean } from '../shared/options';
import { COUPON_CODE_PARAMETER } from '../shared/parameters';
import type { ExecutionParameters } from '../shared/parameters';

/*
 * Field definitions shared by several operations. Each operation file places them
 * under its own resource/operation with updateDisplayOptions.
 */

export const referenceField = (
	description: string,
	placeholder = 'e.g. campaign-2026-11-0001',
): INodeProperties => ({
	displayName: 'Reference',
	name: 'reference',
	type: 'string',
	required: true,
	default: '',
	placeholder,
	description,
});

export const productCodeField: INodeProperties = {
	displayName: 'Product Code',
	name: 'productCode',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. VCH-INSTANT',
	description: 'Code of the voucher product, as your business dashboard lists it',
};

export const amountField: INodeProperties = {
	displayName: 'Amount (NGN)',
	name: 'amount',
	type: 'number',
	required: true,
	// Empty, not 0: a default that validation refuses makes every new node fail on its first run.
	default: null,
	placeholder: 'e.g. 5000',
	typeOptions: { minValue: 0.01, numberPrecision: 2 },
	description: 'Price of one voucher in Naira, with at most 2 decimals',
};

export const couponCodeOption: INodeProperties = {
	displayName: 'Coupon Code',
	name: COUPON_CODE_PARAMETER,
	type: 'string',
	default: '',
	description:
		'Optional discount code. Sent as the JSON key "couponCode": the service\'s documentation does not name this key, so check with your account manager that coupons apply.',
};

export const maxOrderTotalOption: INodeProperties = {
	displayName: 'Maximum Order Total (NGN)',
	name: 'maxOrderTotal',
	type: 'number',
	default: 0,
	typeOptions: { minValue: 0, numberPrecision: 2 },
	description:
		'Refuse the order before sending it if amount × vouchers is above this. 0 means no limit here; a limit on the credential still applies.',
};

export const outputModeField: INodeProperties = {
	displayName: 'Output',
	name: 'outputMode',
	type: 'options',
	default: 'order',
	options: [
		{
			name: 'One Item per Order',
			value: 'order',
			description: 'The order with its vouchers in a list',
		},
		{
			name: 'One Item per Voucher',
			value: 'voucher',
			description: "Each voucher as its own item, with the order's reference, number and status",
		},
	],
};

/** The name of the parameter that lets the AI agent have the codes. */
const GIVE_CODES_PARAMETER = 'giveCodesToAgent';

export const giveCodesToAgentField: INodeProperties = {
	displayName: 'Give Codes to the AI Agent',
	name: GIVE_CODES_PARAMETER,
	type: 'boolean',
	default: false,
	// '@tool' shows it only on the node added as a tool; an n8n older than that rule hides it.
	displayOptions: {
		show: {
			'@tool': [true],
			resource: ['order'],
			operation: ['create', 'createForRecipients', 'get'],
		},
	},
	description:
		"Whether the AI agent receives the vouchers' codes and PINs. Off, they are withheld and only serials, values and statuses are returned. On, the agent sends the codes to its model provider and may repeat them in its answers, chat history and logs: anyone who reads a code can spend the voucher.",
};

/** How an item's order is output: its Output mode, and whether codes stay away from an AI agent. */
export function readOrderOutput(parameters: ExecutionParameters, itemIndex: number): OrderOutput {
	return {
		mode: parameters.get('outputMode', itemIndex, 'order') as OrderOutput['mode'],
		withholdCodes:
			runsAsAgentTool(parameters.node) &&
			!readBoolean(
				parameters.node,
				itemIndex,
				giveCodesToAgentField.displayName,
				parameters.get(GIVE_CODES_PARAMETER, itemIndex, false),
			),
	};
}

export const concurrencyOption: INodeProperties = {
	displayName: 'Maximum Concurrency',
	// Saved workflows carry this name.
	name: 'concurrency',
	type: 'number',
	default: DEFAULT_CONCURRENCY,
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY_LIMIT, numberPrecision: 0 },
	description:
		'The most requests in flight at once. The node starts lower and finds the pace the service accepts by itself: it speeds up while answers come back fast, slows down at once on server errors or slow answers, and keeps to the rate a rate-limited service admits (HTTP 429). Output order always follows input order.',
};

export const readOptionsField: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [concurrencyOption],
};
