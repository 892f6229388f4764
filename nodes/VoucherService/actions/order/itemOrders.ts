import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { concurrencyLimit, mapWithConcurrency } from '../../shared/concurrency';
import { orderItems } from '../../shared/order';
import type { ItemOutcome, ItemPlan } from '../types';
import { readCreateSettings, readCredentialLimitNgn } from './createOptions';
import type { CreateSettings } from './createOptions';
import { addDryRunHint } from './dryRun';
import { findOrder } from './orderLookup';
import { checkSpending, placeOrder } from './orderPlacement';
import { voucherCount } from './orderRequest';
import type { OrderRequest, PlannedOrder } from './orderRequest';

/** What a real run would do with this order: look its reference up (a read), send nothing. */
async function preview(
	client: VoucherApiClient,
	{ itemIndex, request }: PlannedOrder,
	settings: CreateSettings,
): Promise<ItemOutcome & { wouldBuy?: boolean }> {
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
 * The plan of a create that makes one order per input item (Create, and Create for
 * Recipients with recipients entered in the node). Every item is read, validated and checked
 * against the spending limit before any order is sent.
 */
export async function planItemOrders(
	context: IExecuteFunctions,
	client: VoucherApiClient,
	readRequest: (itemIndex: number) => OrderRequest,
): Promise<ItemPlan> {
	const credentialLimitNgn = await readCredentialLimitNgn(context);
	const plan: ItemPlan = { settled: [], jobs: [] };
	const previews: Array<{ order: PlannedOrder; settings: CreateSettings }> = [];
	context.getInputData().forEach((_, itemIndex) => {
		let order: PlannedOrder;
		let settings: CreateSettings;
		try {
			order = { itemIndex, request: readRequest(itemIndex) };
			settings = readCreateSettings(context, itemIndex, credentialLimitNgn);
			checkSpending(context.getNode(), order, settings.limitKobo);
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
