import type { IDataObject, INode, NodeExecutionHint } from 'n8n-workflow';

import type { ItemOutcome, ItemPlan, ItemsJob, RunSettings } from '../../plan';
import type { VoucherApiClient } from '../../transport/client';
import { asNodeError, operationError } from '../../transport/errors';
import { mapWithConcurrency } from '../../shared/concurrency';
import { formatNaira, toNaira } from '../../shared/money';
import type {
	CampaignOrder,
	CampaignRow,
	CampaignSettings,
	CreateSettings,
	OrderResult,
	PlannedOrder,
} from '../types';
import { dryRunHint } from '../buy/dryRunHint';
import { waitForTerminalStatus } from '../lookup';
import { orderTotalKobo, ordersTotalKobo } from '../buy/orderTotal';
import { OutcomeUnknownError, placeOrder } from '../buy/placeOrder';
import { newRunTally, runSummaryHint } from '../buy/runSummary';
import type { RunTally } from '../buy/runSummary';
import {
	RUN_LIMIT_ADVICE,
	SPENDING_LIMIT_ADVICE,
	runLimitProblem,
	spendingLimitProblem,
} from '../buy/spendingGuard';
import { checkWallet, uncheckedWalletHint, walletRefusals } from '../buy/walletCheck';
import type { WalletCheck } from '../buy/walletCheck';
import { campaignOrderReference, discoverCampaignOrders } from './discovery';
import { narrationHint } from './narrationHint';
import { chunkNewRows, reconcile, recipientsOf, vouchersOfRows } from './reconciliation';
import type { RowDecision } from './reconciliation';

/** A row as its operation read it: valid, or why not. */
export type ReadCampaignRow = CampaignRow | { itemIndex: number; error: unknown };

interface NewOrder {
	rows: CampaignRow[];
	order: PlannedOrder;
}

const hintsOf = (...hints: Array<NodeExecutionHint | undefined>) =>
	hints.filter((hint): hint is NodeExecutionHint => hint !== undefined);

/** A row that is not bought, and why. */
function rowFailure(
	node: INode,
	row: CampaignRow,
	[message, description]: [string, string],
): ItemOutcome {
	const { itemIndex } = row;
	const error = operationError(node, `Item ${itemIndex}: ${message}`, {
		itemIndex,
		description,
	});
	return { itemIndex, error };
}

/** The message of an error without its "Item <n>: " prefix, to restate it for another item. */
const withoutItemPrefix = (message: string) => message.replace(/^Item \d+: /, '');

/**
 * Every row of an order that was not bought gets its own error, naming its own item, so a
 * user with continueOnFail can tell which rows to look at.
 */
function rowsNotBought(node: INode, rows: CampaignRow[], reference: string, error: unknown) {
	const { message, description } = asNodeError(node, error);
	// "not bought" would be a guess here, and a user who believes it may buy again elsewhere.
	const what =
		error instanceof OutcomeUnknownError
			? `outcome unknown: order ${reference} may or may not have been bought`
			: `not bought: order ${reference} failed`;
	return rows.map((row) =>
		rowFailure(node, row, [
			`${what}: ${withoutItemPrefix(message)}`,
			description ?? 'No voucher was bought for this row.',
		]),
	);
}

const voucherFields = (voucher: IDataObject | undefined) =>
	voucher
		? {
				status: voucher.status ?? null,
				serial: voucher.serial ?? null,
				value: voucher.value ?? null,
			}
		: null;

/** A row's output: its recipient, its order and its own voucher. */
function rowJson(row: CampaignRow, result: OrderResult, voucher?: IDataObject): IDataObject {
	const { order } = result;
	return {
		...row.recipient,
		reference: order.reference,
		orderNumber: order.orderNumber,
		status: order.status,
		alreadyExisted: Boolean(result.alreadyExisted),
		...(result.waitTimedOut ? { waitTimedOut: true } : {}),
		voucher: voucherFields(voucher),
	};
}

/** The campaign's orders, each PROCESSING one waited for until the common deadline. */
async function existingOrders(
	client: VoucherApiClient,
	base: string,
	itemIndex: number,
	concurrency: number,
	waitTimeoutMs: number,
): Promise<CampaignOrder[]> {
	const orders = await discoverCampaignOrders(client, base, itemIndex);
	const deadline = Date.now() + waitTimeoutMs;
	return await mapWithConcurrency(orders.length, concurrency, async (index) => {
		const { number, order } = orders[index];
		if (recipientsOf(order) !== 'pending') return orders[index];
		const waited = await waitForTerminalStatus(
			client,
			{ order },
			Math.max(0, deadline - Date.now()),
			itemIndex,
		);
		return { number, order: waited.order };
	});
}

/** A decision that needs no new order, as an outcome; undefined for a row to buy. */
function settledOutcome(
	node: INode,
	decision: RowDecision,
	dryRun: boolean,
): ItemOutcome | undefined {
	const { row } = decision;
	const { itemIndex } = row;
	const base = `campaign "${row.base}"`;
	switch (decision.kind) {
		case 'new':
			return undefined;
		case 'held': {
			const json = rowJson(row, { order: decision.order, alreadyExisted: true }, decision.voucher);
			const preview = { dryRun: true, wouldBuy: false, amount: toNaira(row.amountKobo) };
			return { itemIndex, json: [dryRun ? { ...preview, ...json } : json] };
		}
		case 'refused':
			return rowFailure(node, row, [
				`${row.recipient.email} already has a voucher of ${formatNaira(decision.heldKobo)} in ${base}, so no voucher of ${formatNaira(row.amountKobo)} was bought`,
				'Nothing was bought for this row. A campaign gives a person one voucher per row at the amount of that row; this person has no voucher of this amount left to match. To give them a voucher of another value, use a new base reference.',
			]);
		case 'renamed':
			return rowFailure(node, row, [
				`${row.recipient.email} already has a voucher in ${base} under the name "${decision.heldName}", so no voucher was bought for this row`,
				`Nothing was bought for this row. If the name was corrected since the earlier run, change it back to "${decision.heldName}" as that run used it: the voucher is then matched, not bought again. To give this person another voucher, use a new base reference.`,
			]);
		case 'blocked': {
			const { reference, status } = decision.unknown;
			if (recipientsOf(decision.unknown) === 'pending') {
				return rowFailure(node, row, [
					`order ${reference} of ${base} is still ${status}, so nothing new was bought for this campaign`,
					'Its recipients are unknown until it finishes, and this row may be one of them. Nothing is lost: a later run will finish the job. Raise "Wait Timeout (Seconds)" to wait longer.',
				]);
			}
			return rowFailure(node, row, [
				`order ${reference} of ${base} is ${status} but lists no vouchers, so nothing new was bought for this campaign`,
				'Its recipients cannot be read, and this row may be one of them; every run of this campaign stops here. Check the order with the service (Order → Get shows it), or use a new base reference.',
			]);
		}
	}
}

/**
 * One new order as a job. Once any order of the run has failed, the jobs after it send
 * nothing (rule R3 in discovery.ts), so a re-run finds every order.
 */
function newOrderJob(
	client: VoucherApiClient,
	{ rows, order }: NewOrder,
	settings: CreateSettings,
	progress: { failedReference?: string },
	tally: RunTally,
): ItemsJob {
	const node = client.node;
	const { reference } = order.request.body;
	return {
		itemIndexes: rows.map((row) => row.itemIndex),
		run: async () => {
			if (progress.failedReference) {
				const why: [string, string] = [
					`not bought: order ${reference} was not sent, because order ${progress.failedReference} failed first in this run`,
					`Order ${reference} was not sent: after a failed order no further order of the campaign is started, which keeps every order findable by the next run. Nothing is lost: run the workflow again to finish the job.`,
				];
				return rows.map((row) => rowFailure(node, row, why));
			}
			let result: OrderResult;
			try {
				// "fail": a new number taken already was not ours to fill (another run at the same time).
				result = await placeOrder(client, order, { ...settings, ifReferenceExists: 'fail' });
			} catch (error) {
				progress.failedReference ??= reference;
				return rowsNotBought(node, rows, reference, error);
			}
			tally.bought.push({ request: order.request, status: result.order.status });
			const vouchers = vouchersOfRows(result.order, rows);
			const proven = result.foundByLookup && recipientsOf(result.order) === 'known';
			return rows.map((row, index): ItemOutcome => {
				// After an unanswered create the order found should be ours; prove it row by row.
				if (proven && !vouchers[index]) {
					progress.failedReference ??= reference;
					return rowFailure(node, row, [
						`this row is not in order ${reference}, which answered after an unclear create`,
						'No voucher was bought for this row. Was the same campaign running twice at the same time? Run the workflow again to finish the job.',
					]);
				}
				// Sent by this run: with "fail" an order that predates the run is refused, so one
				// found after an unanswered create is this run's (proven above when listed).
				const bought = { ...result, alreadyExisted: false };
				return { itemIndex: row.itemIndex, json: [rowJson(row, bought, vouchers[index])] };
			});
		},
	};
}

/**
 * The run-wide checks on a campaign's new orders, all of them together after reconciliation:
 * Maximum Total per Run, then Check Wallet Balance First. A run that fails either buys
 * nothing: its new rows are settled as errors and `newOrders` is emptied. A dry run is told
 * the wallet's answer in its hint instead of being refused by it.
 */
async function checkRunSpending(
	client: VoucherApiClient,
	plan: ItemPlan,
	newOrders: NewOrder[],
	settings: CampaignSettings,
): Promise<WalletCheck | undefined> {
	const { node } = client;
	const rows = newOrders.flatMap((newOrder) => newOrder.rows);
	const refuseAll = (outcomes: ItemOutcome[]) => {
		plan.settled.push(...outcomes);
		newOrders.length = 0;
	};
	const totalKobo = ordersTotalKobo(newOrders.map(({ order }) => order.request));
	const overRun = runLimitProblem(totalKobo, settings.runLimitKobo);
	if (overRun) {
		const why: [string, string] = [
			`not bought: ${overRun}`,
			`${RUN_LIMIT_ADVICE} The limit applies to all new orders of the run together, so nothing of it was bought.`,
		];
		refuseAll(rows.map((row) => rowFailure(node, row, why)));
		return undefined;
	}
	if (!settings.checkWallet || rows.length === 0) return undefined;
	let wallet: WalletCheck;
	try {
		wallet = await checkWallet(client, totalKobo, rows[0].itemIndex);
	} catch (error) {
		refuseAll(rows.map((row) => ({ itemIndex: row.itemIndex, error })));
		return undefined;
	}
	if (wallet.kind === 'short' && !settings.dryRun) {
		refuseAll(
			walletRefusals(
				node,
				wallet,
				rows.map((row) => row.itemIndex),
			),
		);
	}
	return wallet;
}

/**
 * Create for Recipients with recipients from input items: every row is one recipient, rows
 * with the same base reference are one campaign. Existing orders of each campaign are found
 * and matched row by row before anything is bought; only rows whose recipient does not hold
 * their voucher yet go into new orders, numbered after every existing one.
 */
export async function planCampaign(
	client: VoucherApiClient,
	readRows: ReadCampaignRow[],
	settings: CampaignSettings,
	run: RunSettings,
): Promise<ItemPlan> {
	const { node } = client;
	const { concurrency } = run;
	const perOrder = settings.recipientsPerOrder;
	const plan: ItemPlan = { settled: [], jobs: [] };

	const campaigns = new Map<string, CampaignRow[]>();
	for (const row of readRows) {
		if ('error' in row) {
			plan.settled.push(row);
			continue;
		}
		const rows = campaigns.get(row.base);
		if (rows) rows.push(row);
		else campaigns.set(row.base, [row]);
	}

	// Without continueOnFail a bad row stops the node before anything is sent, reads included.
	if (plan.settled.length > 0 && !run.continueOnFail) return plan;

	const newOrders: NewOrder[] = [];
	const chunked: Array<{ rows: CampaignRow[]; orders: number }> = [];
	const tally = newRunTally();
	for (const [base, rows] of campaigns) {
		let orders: CampaignOrder[];
		try {
			orders = await existingOrders(
				client,
				base,
				rows[0].itemIndex,
				concurrency,
				settings.waitTimeoutMs,
			);
		} catch (error) {
			for (const row of rows) plan.settled.push({ itemIndex: row.itemIndex, error });
			continue;
		}
		const newRows: CampaignRow[] = [];
		for (const decision of reconcile(rows, orders)) {
			if (decision.kind === 'held') tally.held++;
			const outcome = settledOutcome(node, decision, settings.dryRun);
			if (outcome) plan.settled.push(outcome);
			else newRows.push(decision.row);
		}
		let number = Math.max(0, ...orders.map((existing) => existing.number)) + 1;
		const chunks = chunkNewRows(newRows, perOrder);
		chunked.push({ rows: newRows, orders: chunks.length });
		for (const chunk of chunks) {
			// The amount after the product code, where the body of a campaign's order has always had it.
			const { productCode, ...orderFields } = chunk[0].orderFields;
			const order: PlannedOrder = {
				itemIndex: chunk[0].itemIndex,
				request: {
					kind: 'recipients',
					body: {
						productCode,
						amountKobo: chunk[0].amountKobo,
						...orderFields,
						reference: campaignOrderReference(base, number),
						recipients: chunk.map((row) => row.recipient),
					},
				},
			};
			const overLimit = spendingLimitProblem(orderTotalKobo(order.request), settings.limitKobo);
			if (overLimit) {
				// Refused before sending, so it takes no number: numbers stay gap-free here.
				const why: [string, string] = [
					`not bought: order ${order.request.body.reference} of ${chunk.length} recipients would be refused: ${overLimit}`,
					`${SPENDING_LIMIT_ADVICE} The limit applies to each order of the campaign; lower "Recipients per Order" to make smaller orders.`,
				];
				for (const row of chunk) plan.settled.push(rowFailure(node, row, why));
				continue;
			}
			number++;
			newOrders.push({ rows: chunk, order });
		}
	}

	const wallet = await checkRunSpending(client, plan, newOrders, settings);
	const walletHint = wallet?.kind === 'unchecked' ? uncheckedWalletHint(wallet.why) : undefined;
	const narration = narrationHint(chunked, perOrder);
	if (settings.dryRun) {
		for (const { rows, order } of newOrders) {
			const { reference, amountKobo } = order.request.body;
			const amount = toNaira(amountKobo);
			for (const row of rows) {
				plan.settled.push({
					itemIndex: row.itemIndex,
					json: [{ ...row.recipient, dryRun: true, wouldBuy: true, reference, amount }],
				});
			}
		}
		plan.hints = hintsOf(
			dryRunHint(
				newOrders.map(({ order }) => order.request),
				wallet,
			),
			walletHint,
			narration,
		);
		return plan;
	}
	plan.hints = hintsOf(walletHint, narration);
	const progress: { failedReference?: string } = {};
	plan.jobs = newOrders.map((newOrder) => newOrderJob(client, newOrder, settings, progress, tally));
	plan.summarize = (outcomes) => runSummaryHint(tally, outcomes);
	return plan;
}
