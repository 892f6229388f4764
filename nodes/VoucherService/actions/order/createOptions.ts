import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { concurrencyOption, maxOrderTotalOption } from '../fields';
import { booleanOption, invalidOption, optionNumber } from '../../shared/options';
import { readLimitKobo, tightestLimitKobo } from '../../orders/core/spendingGuard';
import type {
	CampaignSettings,
	CreateSettings,
	IfReferenceExists,
	OldBlockNames,
	RunSpending,
} from '../../orders/types';

export const DEFAULT_WAIT_TIMEOUT_SECONDS = 120;

const dryRunOption: INodeProperties = {
	displayName: 'Dry Run',
	name: 'dryRun',
	type: 'boolean',
	default: false,
	description:
		'Whether to check everything and show what a real run would buy and spend, without creating any order. Each item is output with dryRun: true and wouldBuy; the totals appear above the output.',
};

const ifReferenceExistsOption: INodeProperties = {
	displayName: 'If Reference Exists',
	name: 'ifReferenceExists',
	type: 'options',
	default: 'returnExisting',
	options: [
		{
			name: 'Return Existing Order',
			value: 'returnExisting',
			description: 'Output the order that already has this reference, marked alreadyExisted',
		},
		{
			name: 'Fail',
			value: 'fail',
			description:
				'Stop with an error; nothing new is created either way. The reference is read before each create, one request more.',
		},
	],
	description:
		'What to do when the service already has an order with this reference, e.g. when a workflow is run again',
};

const waitForCompletionOption: INodeProperties = {
	displayName: 'Wait for Completion',
	name: 'waitForCompletion',
	type: 'boolean',
	default: false,
	description:
		'Whether to poll the order while it is PROCESSING until it reaches a final status or the timeout',
};

const waitTimeoutOption: INodeProperties = {
	displayName: 'Wait Timeout (Seconds)',
	name: 'waitTimeoutSeconds',
	type: 'number',
	default: DEFAULT_WAIT_TIMEOUT_SECONDS,
	typeOptions: { minValue: 1 },
	displayOptions: { show: { waitForCompletion: [true] } },
	description:
		'How long to wait for a final status. On timeout the PROCESSING order is output with waitTimedOut: true.',
};

const checkWalletOption: INodeProperties = {
	displayName: 'Check Wallet Balance First',
	name: 'checkWallet',
	type: 'boolean',
	default: false,
	description:
		"Whether to read the NGN wallet before the first order of the run and buy nothing if its balance does not cover the run's total. A check, not a reservation: another spender can still use the balance in between.",
};

const maxRunTotalOption: INodeProperties = {
	displayName: 'Maximum Total per Run (NGN)',
	name: 'maxRunTotal',
	type: 'number',
	default: 0,
	typeOptions: { minValue: 0, numberPrecision: 2 },
	description:
		'Refuse what would take the new orders of this run above this total, before sending it. 0 means no limit. Each execution (and each AI Agent tool call) is a run of its own.',
};

const OLD_BLOCK_NAMES: OldBlockNames[] = ['refuse', 'thisCampaign', 'ignore'];

const oldBlockNamesOption: INodeProperties = {
	displayName: 'Orders Named by 0.3.0',
	name: 'oldBlockNames',
	type: 'options',
	default: 'refuse',
	options: [
		{
			name: 'Stop the Block',
			value: 'refuse',
			description: "Buy nothing for the block's rows and say which order was found",
		},
		{
			name: "Count as This Campaign's",
			value: 'thisCampaign',
			description: 'This campaign was started on 0.3.0: its rows there are held, the rest bought',
		},
		{
			name: "Ignore (Another Campaign's)",
			value: 'ignore',
			description:
				'They belong to a whole-sheet campaign named <base>-b<block>: buy as if they were not there',
		},
	],
	description:
		"With Row ID only. Version 0.3.0 named a block's orders <base>-b<block>-1, …, which a whole-sheet campaign named <base>-b<block> also makes, so whose an order found under such a name is cannot be told.",
};

/** Recipients per order when a campaign is split; the spec publishes no maximum. */
export const DEFAULT_RECIPIENTS_PER_ORDER = 100;

const optionsCollection = (options: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options,
});

/** Options of Create, and of Create for Recipients with recipients entered in the node. */
export const createOptionsField = optionsCollection([
	checkWalletOption,
	concurrencyOption,
	dryRunOption,
	ifReferenceExistsOption,
	maxOrderTotalOption,
	maxRunTotalOption,
	waitForCompletionOption,
	waitTimeoutOption,
]);

/**
 * Options of a campaign. "If Reference Exists" has no place here: existing orders of the
 * campaign are reconciled row by row. The wait timeout also bounds the wait for an earlier
 * order that is still PROCESSING, so it is shown even when new orders are not waited for.
 */
export const campaignOptionsField = optionsCollection([
	{ ...checkWalletOption, default: true },
	concurrencyOption,
	dryRunOption,
	maxOrderTotalOption,
	maxRunTotalOption,
	oldBlockNamesOption,
	{
		displayName: 'Recipients per Order',
		name: 'recipientsPerOrder',
		type: 'number',
		default: DEFAULT_RECIPIENTS_PER_ORDER,
		typeOptions: { minValue: 1, numberPrecision: 0 },
		description:
			'New rows with the same product, amount, template, narration and coupon are sent as orders of at most this many recipients',
	},
	waitForCompletionOption,
	{
		...waitTimeoutOption,
		displayOptions: undefined,
		description:
			'How long to wait for an order that is still PROCESSING: an earlier order of this campaign (always), and new orders when Wait for Completion is on',
	},
]);

function readWaitTimeoutMs(node: INode, itemIndex: number, value: unknown): number {
	const seconds = optionNumber(value) ?? DEFAULT_WAIT_TIMEOUT_SECONDS;
	if (!Number.isFinite(seconds) || seconds < 1) {
		throw invalidOption(node, itemIndex, 'Wait Timeout (Seconds)', value, 'a number of 1 or more');
	}
	return seconds * 1000;
}

/** An expression that gives neither choice (e.g. "Fail" in another case) is refused, not guessed. */
function readIfReferenceExists(node: INode, itemIndex: number, value: unknown): IfReferenceExists {
	if (value === undefined || value === null || value === '') return 'returnExisting';
	if (value === 'returnExisting' || value === 'fail') return value;
	throw invalidOption(node, itemIndex, 'If Reference Exists', value, '"returnExisting" or "fail"');
}

/** Every create option of one item, checked: a bad one throws an error naming the item and the option. */
export function createSettingsOf(
	node: INode,
	itemIndex: number,
	options: IDataObject,
	credentialLimit: unknown,
): CreateSettings {
	return {
		dryRun: booleanOption(node, itemIndex, options, dryRunOption),
		ifReferenceExists: readIfReferenceExists(node, itemIndex, options.ifReferenceExists),
		limitKobo: tightestLimitKobo([
			readLimitKobo(node, itemIndex, 'credential', credentialLimit),
			readLimitKobo(node, itemIndex, 'node', options.maxOrderTotal),
		]),
		waitForCompletion: booleanOption(node, itemIndex, options, waitForCompletionOption),
		waitTimeoutMs: readWaitTimeoutMs(node, itemIndex, options.waitTimeoutSeconds),
	};
}

/**
 * The run-wide checks, from item 0's options (one setting per run). Check Wallet Balance
 * First is on by default for a campaign and off for single orders.
 */
export function runSpendingOf(
	node: INode,
	options: IDataObject,
	checkWalletByDefault: boolean,
): RunSpending {
	return {
		checkWallet: booleanOption(node, 0, options, checkWalletOption, checkWalletByDefault),
		runLimitKobo: readLimitKobo(node, 0, 'run', options.maxRunTotal),
	};
}

/** A campaign's options (item 0's: one setting per run), with Recipients per Order a whole number ≥ 1. */
export function campaignSettingsOf(
	node: INode,
	options: IDataObject,
	credentialLimit: unknown,
): CampaignSettings {
	const settings = createSettingsOf(node, 0, options, credentialLimit);
	const value = options.recipientsPerOrder;
	const perOrder = optionNumber(value) ?? DEFAULT_RECIPIENTS_PER_ORDER;
	if (!Number.isSafeInteger(perOrder) || perOrder < 1) {
		throw invalidOption(node, 0, 'Recipients per Order', value, 'a whole number of 1 or more');
	}
	const oldNames = options.oldBlockNames ?? 'refuse';
	if (!OLD_BLOCK_NAMES.includes(oldNames as OldBlockNames)) {
		const accepted = OLD_BLOCK_NAMES.map((name) => `"${name}"`).join(', ');
		throw invalidOption(node, 0, 'Orders Named by 0.3.0', oldNames, `one of ${accepted}`);
	}
	return {
		...settings,
		...runSpendingOf(node, options, true),
		recipientsPerOrder: perOrder,
		oldBlockNames: oldNames as OldBlockNames,
	};
}
