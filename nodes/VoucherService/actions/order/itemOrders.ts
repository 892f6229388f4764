import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { concurrencyLimit, mapWithConcurrency } from '../../shared/concurrency';
import { orderItems } from '../../shared/order';
import { executionParameters } from '../../shared/parameters';
import type { ItemOutcome, ItemPlan } from '../types';
import { readCreateSettings, readCredentialLimit } from './createOptions';
import type { CreateSettings } from './createOptions';
import { addDryRunHint } from './dryRun';
import { findOrder } from './orderLookup';
import { checkSpending, placeOrder } from './orderPlacement';
import { voucherCount } from './orderRequest';
import type { OrderRequest, PlannedOrder } from './orderRequest';

type Preview = ItemOutcome & { wouldBuy?: boolean };

/** What a real run would do with this order: look its reference up (a read), send nothing. */
async function preview(
	client: VoucherApiClient,
	{ itemIndex, request }: PlannedOrder,
	settings: CreateSettings,
): Promise<Preview> {
	const { reference, amount } = request.body;
	const json: IDataObject = { dryRun: true, reference, amount, vouchers: voucherCount(request) };
	try {
		const existing = await findOrder(client, reference, itemIndex);
		if (!existing) return { itemIndex, json: [{ ...json, wouldBuy: true }], wouldBuy: true };
		if (settings.ifReferenceExists === 'fail') {
			throw new NodeOperationError(
				client.node,
				`Item ${itemIndex}: an order with reference "${reference}" already exists`,
				{ itemIndex, description: 'A real run would stop here. Nothing was sent.' },
			);
		}
		const { orderNumber, status } = existing;
		return {
			itemIndex,
			json: [{ ...json, wouldBuy: false, alreadyExisted: true, orderNumber, status }],
		};
	} catch (error) {
		return { itemIndex, error };
	}
}

/**
 * A later item of the same run with a reference an earlier item would create: a real run
 * buys that reference once, so this item would find it (or fail, with "Fail").
 */
function sameReferenceInRun(
	node: INode,
	outcome: Preview,
	firstItem: number,
	settings: CreateSettings,
): Preview {
	const { itemIndex } = outcome;
	const json = 'json' in outcome ? outcome.json[0] : {};
	if (settings.ifReferenceExists === 'fail') {
		const error = new NodeOperationError(
			node,
			`Item ${itemIndex}: an order with reference "${String(json.reference)}" would already exist`,
			{
				itemIndex,
				description: `Item ${firstItem} of this run would create it first, and a real run would stop here. Nothing was sent.`,
			},
		);
		return { itemIndex, error };
	}
	return {
		itemIndex,
		json: [{ ...json, wouldBuy: false, sameReferenceAsItem: firstItem }],
	};
}

/**
 * The plan of a create that makes one order per input item (Create, and Create for
 * Recipients with recipients entered in the node). Every item is read, validated and checked
 * against the spending limit before any order is sent.
 */
export async function planItemOrders(
	context: IExecuteFunctions,
	client: VoucherApiClient,
	readRequest: (itemIndex: number) => OrderRequest,
): Promise<ItemPlan> {
	const credentialLimit = await readCredentialLimit(context);
	const { node } = executionParameters(context);
	const plan: ItemPlan = { settled: [], jobs: [] };
	const previews: Array<{ order: PlannedOrder; settings: CreateSettings }> = [];
	context.getInputData().forEach((_, itemIndex) => {
		let order: PlannedOrder;
		let settings: CreateSettings;
		try {
			order = { itemIndex, request: readRequest(itemIndex) };
			settings = readCreateSettings(context, itemIndex, credentialLimit);
			checkSpending(node, order, settings.limitKobo);
		} catch (error) {
			plan.settled.push({ itemIndex, error });
			return;
		}
		if (settings.dryRun) {
			previews.push({ order, settings });
			return;
		}
		plan.jobs.push({
			itemIndexes: [itemIndex],
			run: async () => [
				{
					itemIndex,
					json: orderItems(context, itemIndex, await placeOrder(client, order, settings)),
				},
			],
		});
	});
	if (previews.length > 0) {
		const options = context.getNodeParameter('options', 0, {}) as IDataObject;
		const outcomes = await mapWithConcurrency(
			previews.length,
			concurrencyLimit(options.concurrency),
			async (index) => await preview(client, previews[index].order, previews[index].settings),
		);
		const firstOfReference = new Map<string, number>();
		const counted = outcomes.map((outcome, index) => {
			if (!outcome.wouldBuy) return outcome;
			const { order, settings } = previews[index];
			const { reference } = order.request.body;
			const first = firstOfReference.get(reference);
			if (first === undefined) {
				firstOfReference.set(reference, order.itemIndex);
				return outcome;
			}
			return sameReferenceInRun(client.node, outcome, first, settings);
		});
		plan.settled.push(...counted);
		addDryRunHint(
			context,
			previews.filter((_, index) => counted[index].wouldBuy).map(({ order }) => order.request),
		);
	}
	return plan;
}
