import type { NodeExecutionHint } from 'n8n-workflow';

import type { ItemOutcome, ItemPlan, ItemsJob, RunSettings } from '../../plan';
import type { VoucherApiClient } from '../../transport/client';
import { mapWithConcurrency } from '../../shared/concurrency';
import { toNaira } from '../../shared/money';
import type {
	CampaignOrder,
	CampaignRow,
	CampaignSettings,
	CreateSettings,
	OrderResult,
} from '../types';
import { dryRunHint } from '../core/dryRunHint';
import { waitForTerminalStatus } from '../lookup';
import { ordersTotalKobo } from '../core/orderTotal';
import { placeOrder } from '../core/placeOrder';
import { newRunTally, runSummaryHint } from '../core/runSummary';
import type { RunTally } from '../core/runSummary';
import { RUN_LIMIT_ADVICE, runLimitProblem } from '../core/spendingGuard';
import { compareWallet, uncheckedWalletHint, walletRefusals } from '../core/walletCheck';
import type { WalletCheck } from '../core/walletCheck';
import { campaignOrderReference, discoverCampaignOrders } from './discovery';
import { narrationHint } from './narrationHint';
import { planNewOrders } from './newOrders';
import type { NewOrder } from './newOrders';
import {
	blockJob,
	planPagedCampaign,
	refuseWholeSheetOrders,
	repeatedRowIds,
} from './pagedCampaign';
import type { PagedPlan } from './pagedCampaign';
import { reconcile, recipientsOf } from './reconciliation';
import type { RowDecision } from './reconciliation';
import { runReads } from './runReads';
import type { RunReads } from './runReads';
import {
	boughtRows,
	rowFailure,
	rowsNotBought,
	rowsNotInOrder,
	rowsNotSent,
	settledOutcome,
	splitDecisions,
} from './rowOutcomes';

/** A row as its operation read it: valid, or why not. */
export type ReadCampaignRow = CampaignRow | { itemIndex: number; error: unknown };

const hintsOf = (...hints: Array<NodeExecutionHint | undefined>) =>
	hints.filter((hint): hint is NodeExecutionHint => hint !== undefined);

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
		const { order } = orders[index];
		if (recipientsOf(order) !== 'pending') return orders[index];
		const waited = await waitForTerminalStatus(
			client,
			{ order },
			Math.max(0, deadline - Date.now()),
			itemIndex,
		);
		return { ...orders[index], order: waited.order };
	});
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
				return rowsNotSent(node, rows, reference, progress.failedReference);
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
			const { outcomes, missing } = boughtRows(node, rows, result);
			if (missing.length === 0) return outcomes;
			progress.failedReference ??= reference;
			return [...outcomes, ...rowsNotInOrder(node, missing, reference)];
		},
	};
}

/** What the run-wide checks said: the wallet's answer, and the rows they refused. */
interface SpendingCheck {
	wallet?: WalletCheck;
	refused?: ItemOutcome[];
}

/**
 * The run-wide checks on a campaign's new orders, all of them together after reconciliation:
 * Maximum Total per Run, then Check Wallet Balance First. A run that fails either buys
 * nothing: every new row is `refused`. A dry run is told the wallet's answer in its hint
 * instead of being refused by it.
 */
async function checkRunSpending(
	client: VoucherApiClient,
	newOrders: NewOrder[],
	settings: CampaignSettings,
	reads: RunReads,
): Promise<SpendingCheck> {
	const { node } = client;
	const rows = newOrders.flatMap((newOrder) => newOrder.rows);
	const totalKobo = ordersTotalKobo(newOrders.map(({ order }) => order.request));
	const overRun = runLimitProblem(totalKobo, settings.runLimitKobo);
	if (overRun) {
		const why: [string, string] = [
			`not bought: ${overRun}`,
			`${RUN_LIMIT_ADVICE} The limit applies to all new orders of the run together, so nothing of it was bought.`,
		];
		return { refused: rows.map((row) => rowFailure(node, row, why)) };
	}
	if (!settings.checkWallet || rows.length === 0) return {};
	let wallet: WalletCheck;
	try {
		wallet = compareWallet(await reads.wallet(rows[0].itemIndex), totalKobo);
	} catch (error) {
		return { refused: rows.map((row) => ({ itemIndex: row.itemIndex, error })) };
	}
	if (wallet.kind === 'short' && !settings.dryRun) {
		const itemIndexes = rows.map((row) => row.itemIndex);
		return { wallet, refused: walletRefusals(node, wallet, itemIndexes) };
	}
	return { wallet };
}

const newOrdersOf = (planned: CampaignPlan[]) =>
	planned.flatMap((campaign) => [
		...campaign.orders,
		...campaign.blocks.flatMap((block) => block.newOrders),
	]);

/**
 * The run-wide checks, with the whole-sheet check of each paged campaign that would buy read
 * at the same time, when not read already (runReads.ts). A campaign it refuses buys nothing,
 * and the run's checks are made again for what is left, with the wallet read once.
 */
async function checkRun(
	client: VoucherApiClient,
	planned: CampaignPlan[],
	settings: CampaignSettings,
	reads: RunReads,
): Promise<{ spending: SpendingCheck; refused: ItemOutcome[] }> {
	const [guards, spending] = await Promise.all([
		Promise.all(planned.map((campaign) => refuseWholeSheetOrders(client, campaign, reads))),
		checkRunSpending(client, newOrdersOf(planned), settings, reads),
	]);
	const refused = guards.flat();
	if (refused.length === 0) return { spending, refused };
	planned.forEach((campaign, index) => {
		if (guards[index].length > 0) campaign.blocks = [];
	});
	return {
		spending: await checkRunSpending(client, newOrdersOf(planned), settings, reads),
		refused,
	};
}

/** One campaign's plan before the run-wide checks; a whole sheet's new orders are each a job. */
type CampaignPlan = PagedPlan & { orders: NewOrder[] };

/** A campaign fed as a whole sheet: its orders `<base>-1`, `<base>-2`, … found and matched. */
async function planWholeSheet(
	client: VoucherApiClient,
	base: string,
	rows: CampaignRow[],
	settings: CampaignSettings,
	concurrency: number,
	settle: (decision: RowDecision) => ItemOutcome | undefined,
): Promise<CampaignPlan> {
	const orders = await existingOrders(
		client,
		base,
		rows[0].itemIndex,
		concurrency,
		settings.waitTimeoutMs,
	);
	const { settled, newRows, held } = splitDecisions(reconcile(rows, orders), settle);
	const plan: CampaignPlan = { settled, held, orders: [], blocks: [], chunked: [] };
	const next = Math.max(0, ...orders.map((existing) => existing.number)) + 1;
	const planned = planNewOrders(client.node, newRows, settings, next, (number) =>
		campaignOrderReference(base, number),
	);
	plan.settled.push(...planned.refused);
	plan.orders = planned.orders;
	plan.chunked.push({ rows: newRows, orders: planned.chunks });
	return plan;
}

/** Rows by base reference, in first-row order; rows read as invalid go to `settled`. */
function campaignsOf(readRows: ReadCampaignRow[], settled: ItemOutcome[]) {
	const campaigns = new Map<string, CampaignRow[]>();
	for (const row of readRows) {
		if ('error' in row) {
			settled.push(row);
			continue;
		}
		const rows = campaigns.get(row.base);
		if (rows) rows.push(row);
		else campaigns.set(row.base, [row]);
	}
	return campaigns;
}

/**
 * Create for Recipients with recipients from input items: every row is one recipient, rows
 * with the same base reference are one campaign. Existing orders of each campaign are found
 * and matched row by row before anything is bought; only rows whose recipient does not hold
 * their voucher yet go into new orders: numbered after every existing one for a whole sheet,
 * after the highest of the row's block with Row ID (pagedCampaign.ts).
 */
export async function planCampaign(
	client: VoucherApiClient,
	readRows: ReadCampaignRow[],
	settings: CampaignSettings,
	run: RunSettings,
): Promise<ItemPlan> {
	const { node } = client;
	const plan: ItemPlan = { settled: [], jobs: [] };
	const campaigns = campaignsOf(readRows, plan.settled);
	const paged = [...campaigns.values()].some((rows) => rows[0].rowId !== undefined);
	if (paged) plan.settled.push(...repeatedRowIds(node, [...campaigns.values()].flat()));

	// Without continueOnFail a bad row stops the node before anything is sent, reads included.
	if (plan.settled.length > 0 && !run.continueOnFail) return plan;
	const bad = new Set(plan.settled.map((outcome) => outcome.itemIndex));

	const settle = (decision: RowDecision) => settledOutcome(node, decision, settings.dryRun);
	const tally = newRunTally();
	const reads = runReads(client);
	const planned: CampaignPlan[] = [];
	for (const [base, all] of campaigns) {
		const rows = all.filter((row) => !bad.has(row.itemIndex));
		if (rows.length === 0) continue;
		try {
			planned.push(
				rows[0].rowId === undefined
					? await planWholeSheet(client, base, rows, settings, run.concurrency, settle)
					: {
							orders: [],
							...(await planPagedCampaign(
								client,
								base,
								rows,
								settings,
								run.concurrency,
								settle,
								reads,
							)),
						},
			);
		} catch (error) {
			for (const row of rows) plan.settled.push({ itemIndex: row.itemIndex, error });
		}
	}
	for (const campaign of planned) {
		plan.settled.push(...campaign.settled);
		tally.held += campaign.held;
	}
	const { spending, refused } = await checkRun(client, planned, settings, reads);
	plan.settled.push(...refused, ...(spending.refused ?? []));
	const newOrders = newOrdersOf(planned);
	const { wallet } = spending;
	const walletHint = wallet?.kind === 'unchecked' ? uncheckedWalletHint(wallet.why) : undefined;
	const narration = narrationHint(
		planned.flatMap((campaign) => campaign.chunked),
		settings.recipientsPerOrder,
	);
	if (spending.refused) {
		plan.hints = hintsOf(walletHint, narration);
		return plan;
	}
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
	plan.jobs = planned.flatMap((campaign) => [
		...campaign.orders.map((order) => newOrderJob(client, order, settings, progress, tally)),
		...campaign.blocks.map((block) => blockJob(client, block, settings, tally, settle)),
	]);
	plan.summarize = (outcomes) => runSummaryHint(tally, outcomes);
	return plan;
}
