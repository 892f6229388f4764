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
import { matchOrder, referenceTakenError } from './orderMatch';
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
		const match = matchOrder(existing, request);
		if (match.kind === 'mismatch') {
			throw referenceTakenError(client.node, itemIndex, reference, existing, match.differences);
		}
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
			json: [
				{
					...json,
					wouldBuy: false,
					alreadyExisted: true,
					orderNumber,
					status,
					...(match.kind === 'unverified' ? { comparedWithRequest: false } : {}),
				},
			],
		};
	} catch (error) {
		return { itemIndex, error };
	}
}

/** References compared as the service may compare them: any case, no surrounding spaces. */
const referenceKey = (reference: string) => reference.trim().toLowerCase();

/**
 * One reference buys one order, so a second item with it would be handed the first item's
 * order as its own: someone told they got a voucher they did not get.
 */
function sharedReferenceError(
	node: INode,
	itemIndex: number,
	reference: string,
	firstItem: number,
): NodeOperationError {
	return new NodeOperationError(
		node,
		`Item ${itemIndex}: reference "${reference}" is already used by item ${firstItem} of this run`,
		{
			itemIndex,
			description: `One Reference is one order, so this item would get item ${firstItem}'s order instead of its own. Nothing was sent for this item. Either use Create for Recipients with Recipients set to "From Input Items" (a campaign: one voucher per row under one base reference), or build the Reference from the row, for example {{ 'welcome-' + $json.email }}.`,
		},
	);
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
	const firstItemOf = new Map<string, number>();
	context.getInputData().forEach((_, itemIndex) => {
		let order: PlannedOrder;
		let settings: CreateSettings;
		try {
			order = { itemIndex, request: readRequest(itemIndex) };
			const { reference } = order.request.body;
			const firstItem = firstItemOf.get(referenceKey(reference));
			if (firstItem !== undefined)
				throw sharedReferenceError(node, itemIndex, reference, firstItem);
			firstItemOf.set(referenceKey(reference), itemIndex);
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
		plan.settled.push(...outcomes);
		addDryRunHint(
			context,
			previews.filter((_, index) => outcomes[index].wouldBuy).map(({ order }) => order.request),
		);
	}
	return plan;
}
