import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { API_CREDENTIAL } from '../../../shared/credentials';
import { concurrencyOption, maxOrderTotalOption } from '../../shared/fields';
import { spendingLimitKobo } from '../../shared/spendingGuard';
import type { IfReferenceExists } from './safeCreate';

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
			description: 'Stop with an error; nothing new is created either way',
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
	concurrencyOption,
	dryRunOption,
	ifReferenceExistsOption,
	maxOrderTotalOption,
	waitForCompletionOption,
	waitTimeoutOption,
]);

/**
 * Options of a campaign. "If Reference Exists" has no place here: existing orders of the
 * campaign are reconciled row by row. The wait timeout also bounds the wait for an earlier
 * order that is still PROCESSING, so it is shown even when new orders are not waited for.
 */
export const campaignOptionsField = optionsCollection([
	concurrencyOption,
	dryRunOption,
	maxOrderTotalOption,
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

export interface CreateSettings {
	dryRun: boolean;
	ifReferenceExists: IfReferenceExists;
	/** The tightest spending limit of node and credential; undefined: none. */
	limitKobo: number | undefined;
	waitForCompletion: boolean;
	waitTimeoutMs: number;
}

/** The credential's spending limit in NGN (0: none). Read once per run, not per item. */
export async function readCredentialLimitNgn(context: IExecuteFunctions): Promise<number> {
	const credential = await context.getCredentials(API_CREDENTIAL);
	return Number(credential.maxOrderTotal ?? 0);
}

export function readCreateSettings(
	context: IExecuteFunctions,
	itemIndex: number,
	credentialLimitNgn: number,
): CreateSettings {
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return {
		dryRun: options.dryRun === true,
		ifReferenceExists: (options.ifReferenceExists as IfReferenceExists) ?? 'returnExisting',
		limitKobo: spendingLimitKobo([credentialLimitNgn, Number(options.maxOrderTotal ?? 0)]),
		waitForCompletion: options.waitForCompletion === true,
		waitTimeoutMs: Number(options.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS) * 1000,
	};
}
