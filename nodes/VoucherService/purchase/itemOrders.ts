import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemOutcome, ItemPlan, RunSettings } from '../actions/types';
import type { VoucherApiClient } from '../transport/client';
import { mapWithConcurrency } from '../shared/concurrency';
import { orderItems } from '../shared/orderOutput';
import type { CreateSettings, ItemOrder, PlannedOrder } from '../orderTypes';
import { dryRunHint } from './dryRunHint';
import { findOrder } from './orderLookup';
import { matchOrder, referenceTakenError } from './orderMatch';
import { voucherCount } from './orderRequest';
import { checkSpending, placeOrder } from './placeOrder';

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

/** An item as its operation read it: the order it asks for, or why it cannot be read. */
export type ReadItemOrder = ItemOrder | { itemIndex: number; error: unknown };

/**
 * The plan of a create that makes one order per input item (Create, and Create for
 * Recipients with recipients entered in the node). Every item was read and validated by its
 * operation; here each is checked against the Reference rule and the spending limit before
 * any order is sent.
 */
export async function planItemOrders(
	client: VoucherApiClient,
	items: ReadItemOrder[],
	run: RunSettings,
): Promise<ItemPlan> {
	const { node } = client;
	const plan: ItemPlan = { settled: [], jobs: [] };
	const previews: ItemOrder[] = [];
	const firstItemOf = new Map<string, number>();
	for (const item of items) {
		const { itemIndex } = item;
		try {
			if ('error' in item) throw item.error;
			const { reference } = item.request.body;
			const firstItem = firstItemOf.get(referenceKey(reference));
			if (firstItem !== undefined)
				throw sharedReferenceError(node, itemIndex, reference, firstItem);
			firstItemOf.set(referenceKey(reference), itemIndex);
			checkSpending(node, item, item.settings.limitKobo);
		} catch (error) {
			plan.settled.push({ itemIndex, error });
			continue;
		}
		if (item.settings.dryRun) {
			previews.push(item);
			continue;
		}
		plan.jobs.push({
			itemIndexes: [itemIndex],
			run: async () => [
				{ itemIndex, json: orderItems(await placeOrder(client, item, item.settings), item.output) },
			],
		});
	}
	if (previews.length > 0) {
		const outcomes = await mapWithConcurrency(
			previews.length,
			run.concurrency,
			async (index) => await preview(client, previews[index], previews[index].settings),
		);
		plan.settled.push(...outcomes);
		const wouldBuy = previews.filter((_, index) => outcomes[index].wouldBuy);
		plan.hints = [dryRunHint(wouldBuy.map(({ request }) => request))];
	}
	return plan;
}
