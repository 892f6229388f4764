import type { IDataObject, INode, NodeExecutionHint, NodeOperationError } from 'n8n-workflow';

import type { ItemOutcome, ItemPlan, RunSettings } from '../../plan';
import type { VoucherApiClient } from '../../transport/client';
import { operationError } from '../../transport/errors';
import { mapWithConcurrency } from '../../shared/concurrency';
import { formatNaira, toNaira } from '../../shared/money';
import { orderItems } from '../output';
import type { CreateSettings, ItemOrder, PlannedOrder, RunSpending } from '../types';
import { dryRunHint } from './dryRunHint';
import { newRunTally, runSummaryHint } from './runSummary';
import { findOrder, referenceKey } from '../lookup';
import { checkFoundOrder } from '../match';
import { orderTotalKobo, ordersTotalKobo, voucherCount } from './orderTotal';
import { placeOrder, refuseExistingReference } from './placeOrder';
import { RUN_LIMIT_ADVICE, assertWithinSpendingLimit, runLimitProblem } from './spendingGuard';
import { checkWallet, uncheckedWalletHint, walletRefusals } from './walletCheck';
import type { WalletCheck } from './walletCheck';

type Preview = ItemOutcome & { wouldBuy?: boolean };

/** What a real run would do with this order: look its reference up (a read), send nothing. */
async function preview(
	client: VoucherApiClient,
	{ itemIndex, request }: PlannedOrder,
	settings: CreateSettings,
): Promise<Preview> {
	const { reference, amountKobo } = request.body;
	const amount = toNaira(amountKobo);
	const json: IDataObject = { dryRun: true, reference, amount, vouchers: voucherCount(request) };
	try {
		const existing = await findOrder(client, reference, itemIndex);
		if (!existing) return { itemIndex, json: [{ ...json, wouldBuy: true }], wouldBuy: true };
		const match = checkFoundOrder(client.node, { itemIndex, request }, existing);
		if (settings.ifReferenceExists === 'fail') {
			throw operationError(
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
					...(match === 'unverified' ? { comparedWithRequest: false } : {}),
				},
			],
		};
	} catch (error) {
		return { itemIndex, error };
	}
}

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
	return operationError(
		node,
		`Item ${itemIndex}: reference "${reference}" is already used by item ${firstItem} of this run`,
		{
			itemIndex,
			description: `One Reference is one order, so this item would get item ${firstItem}'s order instead of its own. Nothing was sent for this item. Either use Create for Recipients with Recipients set to "From Input Items" (a campaign: one voucher per row under one base reference), or build the Reference from the row, for example {{ 'welcome-' + $json.email }}.`,
		},
	);
}

/**
 * Maximum Total per Run on single orders: items are taken in input order, and one that would
 * take the run's total past the limit is refused (nothing is sent for it); later items that
 * still fit go on. Every order that would be sent counts, also one whose reference may exist.
 */
function runLimitError(
	node: INode,
	itemIndex: number,
	orderKobo: number,
	runKobo: number,
	limitKobo: number | undefined,
): NodeOperationError | undefined {
	const problem = runLimitProblem(runKobo + orderKobo, limitKobo);
	if (!problem) return undefined;
	return operationError(node, `Item ${itemIndex}: not sent: ${problem}`, {
		itemIndex,
		description: `This order of ${formatNaira(orderKobo)} comes after ${formatNaira(runKobo)} of earlier items of this run. ${RUN_LIMIT_ADVICE}`,
	});
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
	spending: RunSpending,
): Promise<ItemPlan> {
	const { node } = client;
	const plan: ItemPlan = { settled: [], jobs: [] };
	const previews: ItemOrder[] = [];
	const toBuy: ItemOrder[] = [];
	const firstItemOf = new Map<string, number>();
	let runKobo = 0;
	for (const item of items) {
		const { itemIndex } = item;
		try {
			if ('error' in item) throw item.error;
			const { reference } = item.request.body;
			const firstItem = firstItemOf.get(referenceKey(reference));
			if (firstItem !== undefined)
				throw sharedReferenceError(node, itemIndex, reference, firstItem);
			firstItemOf.set(referenceKey(reference), itemIndex);
			const orderKobo = orderTotalKobo(item.request);
			assertWithinSpendingLimit(node, itemIndex, orderKobo, item.settings.limitKobo);
			const overRun = runLimitError(node, itemIndex, orderKobo, runKobo, spending.runLimitKobo);
			if (overRun) throw overRun;
			runKobo += orderKobo;
		} catch (error) {
			plan.settled.push({ itemIndex, error });
			continue;
		}
		(item.settings.dryRun ? previews : toBuy).push(item);
	}
	const hints: NodeExecutionHint[] = [];
	let outcomes: Preview[] = [];
	if (previews.length > 0) {
		outcomes = await mapWithConcurrency(
			previews.length,
			run.concurrency,
			async (index) => await preview(client, previews[index], previews[index].settings),
		);
		plan.settled.push(...outcomes);
	}
	const wouldBuy = previews.filter((_, index) => outcomes[index].wouldBuy);
	// One wallet read for the run: the orders a real run sends, or those a dry run would buy.
	const checked = toBuy.length > 0 ? toBuy : wouldBuy;
	let wallet: WalletCheck | undefined;
	if (spending.checkWallet && checked.length > 0) {
		try {
			const totalKobo = ordersTotalKobo(checked.map(({ request }) => request));
			wallet = await checkWallet(client, totalKobo, checked[0].itemIndex);
		} catch (error) {
			if (toBuy.length === 0) {
				const message = error instanceof Error ? error.message : String(error);
				hints.push(uncheckedWalletHint(`the wallets could not be read (${message})`));
			}
			plan.settled.push(...toBuy.map(({ itemIndex }) => ({ itemIndex, error })));
			toBuy.length = 0;
		}
	}
	if (previews.length > 0)
		hints.push(
			dryRunHint(
				wouldBuy.map(({ request }) => request),
				wallet,
			),
		);
	if (wallet?.kind === 'unchecked') hints.push(uncheckedWalletHint(wallet.why));
	if (wallet?.kind === 'short' && toBuy.length > 0) {
		plan.settled.push(
			...walletRefusals(
				node,
				wallet,
				toBuy.map(({ itemIndex }) => itemIndex),
			),
		);
		toBuy.length = 0;
	}
	const tally = newRunTally();
	plan.jobs = toBuy.map((item) => ({
		itemIndexes: [item.itemIndex],
		run: async () => {
			if (item.settings.ifReferenceExists === 'fail') await refuseExistingReference(client, item);
			const result = await placeOrder(client, item, item.settings);
			if (result.alreadyExisted) tally.held++;
			else
				tally.bought.push({
					request: item.request,
					status: result.order.status,
					...(result.foundByLookup ? { foundByLookup: true } : {}),
				});
			return [{ itemIndex: item.itemIndex, json: orderItems(result, item.output) }];
		},
	}));
	if (previews.length === 0) plan.summarize = (outcomes) => runSummaryHint(tally, outcomes);
	if (hints.length > 0) plan.hints = hints;
	return plan;
}
