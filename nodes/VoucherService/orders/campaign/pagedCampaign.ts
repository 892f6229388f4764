import type { INode } from 'n8n-workflow';

import type { ItemOutcome, ItemsJob } from '../../plan';
import type { VoucherApiClient } from '../../transport/client';
import { mapWithConcurrency } from '../../shared/concurrency';
import type { CampaignOrder, CampaignRow, CampaignSettings, Order, OrderResult } from '../types';
import { waitForTerminalStatus } from '../lookup';
import { OtherOrderAnsweredError, placeOrder, ReferenceExistsError } from '../core/placeOrder';
import type { RunTally } from '../core/runSummary';
import type { RunReads } from './runReads';
import {
	blockOrderReference,
	blockOrders,
	holdsRowOf,
	MAX_BLOCK_ORDERS,
	oldBlockOrders,
	oldNameProblem,
	rowBlock,
} from './rowBlocks';
import type { BlockReading } from './rowBlocks';
import { planNewOrders } from './newOrders';
import type { NewOrder } from './newOrders';
import { reconcile, recipientsOf } from './reconciliation';
import type { RowDecision } from './reconciliation';
import {
	boughtRows,
	rowFailure,
	rowsAnsweredAlike,
	rowsNotBought,
	rowsNotSent,
	rowsAfterUnconfirmed,
	rowsPastBlockCap,
	rowsUnsettled,
	splitDecisions,
} from './rowOutcomes';

/*
 * A campaign fed in pages (Row ID set): by Loop Over Items, one page per sub-workflow or
 * execution, two executions at once. Rows are grouped by ID into blocks of 1,000, and each block
 * numbers its own orders (rowBlocks.ts says why 1,000, and what a page costs). A page reads only
 * its own blocks' orders: on a first run one look-up per block (and 0.3.0's names), then its
 * creates; on a re-run one look-up per order of its blocks, up to the last that holds its rows.
 *
 * Why a block's orders have no gap, so that reading them stops at the first `04`: every run
 * creates a block's orders one at a time, `n + 1` only once `n` exists (created, or found),
 * and stops the block at its first failure. Two runs at once keep that too: the create of `n`
 * that comes second is refused, and its run reads order `n`, matches its rows against it, and
 * goes on with `n + 1` for the rows still unbought (see blockJob).
 *
 * Reading also stops once every row of the page in the block holds its voucher: nothing would
 * be bought, so a later order could change nothing.
 *
 * The same row is the same Row ID. Within a block, rows are matched to vouchers by recipient
 * and amount as in a whole-sheet campaign (reconciliation.ts): a person listed twice in one
 * block gets two vouchers when both rows come in the same execution, one when they come on
 * different pages.
 */

/** One block of a page: its rows, its existing orders and the new orders to buy. */
export interface BlockPlan {
	base: string;
	block: string;
	rows: CampaignRow[];
	orders: CampaignOrder[];
	newOrders: NewOrder[];
}

/** The order as final as the deadline lets it be: its recipients may be unknown until then. */
async function settledOrder(
	client: VoucherApiClient,
	order: Order,
	deadline: number,
	itemIndex: number,
): Promise<Order> {
	if (recipientsOf(order) !== 'pending') return order;
	const waited = await waitForTerminalStatus(
		client,
		{ order },
		Math.max(0, deadline - Date.now()),
		itemIndex,
	);
	return waited.order;
}

const allHeld = (rows: CampaignRow[], orders: CampaignOrder[]) =>
	reconcile(rows, orders).every((decision) => decision.kind === 'held');

/**
 * A block's orders, in number order, up to the first missing one or until every row is held;
 * when a row is left unheld, 0.3.0's orders of the block too (`oldNames`), before them. A page's
 * blocks are read at once, beside the pacing's ramp (a burst, as a whole sheet's discovery): a
 * page is one execution, and ramping its look-ups up from the pacing's start cost every page of
 * a campaign three round trips.
 */
async function pageBlockOrders(
	client: VoucherApiClient,
	base: string,
	rows: CampaignRow[],
	deadline: number,
	reading: BlockReading & { oldNames: boolean },
): Promise<CampaignOrder[]> {
	const orders: CampaignOrder[] = [];
	const { itemIndex } = rows[0];
	const block = rowBlock(rows[0].rowId ?? '0');
	const settled = async (found: CampaignOrder) => ({
		...found,
		order: await settledOrder(client, found.order, deadline, itemIndex),
	});
	for await (const found of blockOrders(client, base, block, itemIndex, reading)) {
		orders.push(await settled(found));
		if (allHeld(rows, orders)) return orders;
	}
	if (!reading.oldNames) return orders;
	const old = await oldBlockOrders(client, base, block, itemIndex, reading.burst);
	return [...(await Promise.all(old.map(settled))), ...orders];
}

/** A block with orders under 0.3.0's names, when the user has not said whose they are. */
function refuseOldNames(node: INode, rows: CampaignRow[], order: CampaignOrder): ItemOutcome[] {
	const why = oldNameProblem(order.reference, "nothing was bought for this row's block");
	return rows.map((row) => rowFailure(node, row, why));
}

/** Rows of a page grouped by block, in first-row order. */
function blocksOf(rows: CampaignRow[]): Map<string, CampaignRow[]> {
	const blocks = new Map<string, CampaignRow[]>();
	for (const row of rows) {
		const block = rowBlock(row.rowId ?? '0');
		const list = blocks.get(block);
		if (list) list.push(row);
		else blocks.set(block, [row]);
	}
	return blocks;
}

/** A later row with a Row ID taken by an earlier row of the same campaign: bad input. */
export function repeatedRowIds(node: INode, rows: CampaignRow[]): ItemOutcome[] {
	const first = new Map<string, number>();
	const repeated: ItemOutcome[] = [];
	for (const row of rows) {
		const key = JSON.stringify([row.base, row.rowId]);
		const earlier = first.get(key);
		if (earlier === undefined) {
			first.set(key, row.itemIndex);
			continue;
		}
		repeated.push(
			rowFailure(node, row, [
				`invalid "rowId": Row ID ${row.rowId} is also item ${earlier}'s`,
				'Each row of a campaign needs its own Row ID: the same ID is the same row, bought once. Nothing was sent to the service.',
			]),
		);
	}
	return repeated;
}

/**
 * Whole-sheet orders `<base>-1`, … and paged ones under one base cannot see each other, so a
 * row of one could be bought again by the other. Read once a page has something to buy, beside
 * the run's wallet check (campaign.ts): the refusal of the rows to buy, or none.
 *
 * It costs DISCOVERY_MISSES (32) look-ups a buying page, 0.032 a row at pages of 1,000: over
 * the 0.025 of issue 41 on its own. It stays whole, because each cheaper form lets a row be
 * bought twice: `<base>-1` alone misses a whole sheet whose order 1 failed (refused by the
 * service, say for its template) while 2 to 32 were made, which a re-run never fills; trusting
 * an earlier page's check misses a whole sheet run under the base since.
 */
export async function refuseWholeSheetOrders(
	client: VoucherApiClient,
	plan: PagedPlan,
	reads: RunReads,
): Promise<ItemOutcome[]> {
	const rows = plan.blocks.flatMap(({ newOrders }) => newOrders.flatMap((order) => order.rows));
	if (rows.length === 0) return [];
	const base = rows[0].base;
	let found: CampaignOrder | undefined;
	try {
		found = await reads.wholeSheetOrder(base, rows[0].itemIndex);
	} catch (error) {
		return rows.map((row) => ({ itemIndex: row.itemIndex, error }));
	}
	if (!found) return [];
	const why: [string, string] = [
		`campaign "${base}" has orders made without Row ID (${found.reference}, …), so nothing was bought for it`,
		'A campaign fed by Row ID does not read those orders, and could buy their recipients again. Use a new base reference for a campaign with Row ID, or clear Row ID Column to run this one as a whole sheet.',
	];
	return rows.map((row) => rowFailure(client.node, row, why));
}

/** A paged campaign's plan: rows settled now (held, refused …) and the blocks with new orders. */
export interface PagedPlan {
	settled: ItemOutcome[];
	held: number;
	blocks: BlockPlan[];
	chunked: Array<{ rows: CampaignRow[]; orders: number }>;
}

/**
 * Reads the orders of each block of the page (up to Maximum Concurrency blocks at once),
 * matches the rows and plans the new orders of each block after its highest one. When the
 * first block has no order under its name, the page will most likely buy: the run's checks
 * are read beside the other blocks (runReads.ts).
 */
export async function planPagedCampaign(
	client: VoucherApiClient,
	base: string,
	rows: CampaignRow[],
	settings: CampaignSettings,
	concurrency: number,
	settle: (decision: RowDecision) => ItemOutcome | undefined,
	reads: RunReads,
): Promise<PagedPlan> {
	const { node } = client;
	const deadline = Date.now() + settings.waitTimeoutMs;
	const grouped = [...blocksOf(rows)];
	const found = await mapWithConcurrency(grouped.length, concurrency, async (index) => {
		const [, blockRows] = grouped[index];
		// The first block has no order under its name: the page will most likely buy.
		const readChecks = () => {
			const { itemIndex } = blockRows[0];
			void reads.wholeSheetOrder(base, itemIndex, true);
			if (settings.checkWallet) void reads.wallet(itemIndex, true);
		};
		return await pageBlockOrders(client, base, blockRows, deadline, {
			burst: true,
			oldNames: settings.oldBlockNames !== 'ignore',
			onFirstMiss: index === 0 ? readChecks : undefined,
		});
	});
	const plan: PagedPlan = { settled: [], held: 0, blocks: [], chunked: [] };
	grouped.forEach(([block, blockRows], index) => {
		const orders = found[index];
		const old = orders.find((order) => order.oldBlock !== undefined);
		if (old && settings.oldBlockNames === 'refuse') {
			plan.settled.push(...refuseOldNames(node, blockRows, old));
			return;
		}
		const decisions = reconcile(blockRows, orders, holdsRowOf);
		const { settled, newRows, held } = splitDecisions(decisions, settle);
		plan.settled.push(...settled);
		plan.held += held;
		if (newRows.length === 0) return;
		// 0.3.0's orders are numbered in their own blocks of 100: today's go on from today's highest.
		const current = orders.filter((order) => order.oldBlock === undefined);
		const next = Math.max(0, ...current.map(({ number }) => number)) + 1;
		const planned = planNewOrders(node, newRows, settings, next, (number) =>
			blockOrderReference(base, block, number),
		);
		plan.settled.push(...planned.refused);
		plan.chunked.push({ rows: newRows, orders: planned.chunks });
		if (planned.orders.length > 0) {
			plan.blocks.push({ base, block, rows: blockRows, orders, newOrders: planned.orders });
		}
	});
	return plan;
}

/**
 * A block's new orders, one at a time. When another run took a number first (its create is
 * refused, or answered with that run's order or one that lacks our rows), that order is read
 * and matched, and the rows it does not hold go on under the next number. The first other
 * failure stops the block, so the next run finds every order. The job never rejects: rows
 * settled before a failure keep their outcomes.
 */
export function blockJob(
	client: VoucherApiClient,
	plan: BlockPlan,
	settings: CampaignSettings,
	tally: RunTally,
	settle: (decision: RowDecision) => ItemOutcome | undefined,
): ItemsJob {
	const { node } = client;
	const { base, block } = plan;
	const queue = [...plan.newOrders];
	const orders = [...plan.orders];
	const outcomes: ItemOutcome[] = [];
	const unsent = (next: NewOrder) => [next, ...queue.splice(0)].flatMap((o) => o.rows);

	/**
	 * Number `next.number` is `order`, another run's: match the rows still to buy, replan the
	 * rest. Many runs at once over one block may each lose many numbers to orders holding none
	 * of their rows: every loss moves the block's numbering on, and the loop's cap bounds it.
	 * False, with the rows failed, when the block already holds that order under another
	 * Reference: then the answer is no other run's order.
	 */
	const taken = (next: NewOrder, order: Order): boolean => {
		const reference = next.order.request.body.reference;
		const twin = orders.find((o) => o.order.orderNumber === order.orderNumber);
		if (twin) {
			outcomes.push(...rowsAnsweredAlike(node, unsent(next), reference, twin));
			return false;
		}
		orders.push({ number: next.number, reference, order });
		const pending = new Set([next, ...queue].flatMap((o) => o.rows));
		const decisions = reconcile(plan.rows, orders, holdsRowOf).filter((d) => pending.has(d.row));
		const { settled, newRows, held } = splitDecisions(decisions, settle);
		outcomes.push(...settled);
		tally.held += held;
		const replanned = planNewOrders(node, newRows, settings, next.number + 1, (number) =>
			blockOrderReference(base, block, number),
		);
		outcomes.push(...replanned.refused);
		queue.splice(0, queue.length, ...replanned.orders);
		return true;
	};

	return {
		itemIndexes: queue.flatMap((order) => order.rows.map((row) => row.itemIndex)),
		run: async () => {
			for (let next = queue.shift(); next; next = queue.shift()) {
				const { reference } = next.order.request.body;
				if (next.number > MAX_BLOCK_ORDERS) {
					outcomes.push(...rowsPastBlockCap(node, unsent(next), reference, MAX_BLOCK_ORDERS));
					break;
				}
				let result: OrderResult;
				try {
					result = await placeOrder(client, next.order, { ...settings, ifReferenceExists: 'fail' });
				} catch (error) {
					// Refused as taken, or answered with the order under it (a service that answers a
					// used Reference with its order): either way another run's, to read.
					const other =
						error instanceof ReferenceExistsError
							? error.existing
							: error instanceof OtherOrderAnsweredError
								? error.answered
								: undefined;
					if (!other) {
						outcomes.push(...rowsNotBought(node, next.rows, reference, error));
						for (const rest of queue.splice(0)) {
							const { reference: unsentReference } = rest.order.request.body;
							outcomes.push(...rowsNotSent(node, rest.rows, unsentReference, reference));
						}
						break;
					}
					const deadline = Date.now() + settings.waitTimeoutMs;
					let existing: Order;
					try {
						existing = await settledOrder(client, other, deadline, next.order.itemIndex);
					} catch (lookupError) {
						outcomes.push(...rowsUnsettled(node, unsent(next), reference, lookupError));
						break;
					}
					if (taken(next, existing)) continue;
					break;
				}
				// An answer still PROCESSING names no recipients: under a service that answers a taken
				// Reference with its order, it may be another run's, holding rows this block's later
				// orders hold too. They are sent once it shows whose it is.
				let unread: unknown;
				if (queue.length > 0 && recipientsOf(result.order) === 'pending') {
					const deadline = Date.now() + settings.waitTimeoutMs;
					try {
						const order = await settledOrder(client, result.order, deadline, next.order.itemIndex);
						result = { ...result, order };
						if (recipientsOf(order) === 'pending')
							unread = `it was still ${order.status} at Wait Timeout`;
					} catch (waitError) {
						unread = waitError;
					}
				}
				const bought = boughtRows(node, next.rows, result);
				if (bought.missing.length > 0) {
					// Our create was answered with an order that lacks our rows: another run's.
					if (taken(next, result.order)) continue;
					break;
				}
				tally.bought.push({ request: next.order.request, status: result.order.status });
				orders.push({ number: next.number, reference, order: result.order });
				outcomes.push(...bought.outcomes);
				if (unread !== undefined) {
					const later = queue.splice(0).flatMap((o) => o.rows);
					outcomes.push(...rowsAfterUnconfirmed(node, later, reference, unread));
					break;
				}
			}
			return outcomes;
		},
	};
}
