import type { IDataObject, INode } from 'n8n-workflow';

import type { ItemOutcome } from '../../plan';
import { asNodeError, operationError } from '../../transport/errors';
import { formatNaira, toNaira } from '../../shared/money';
import type { CampaignOrder, CampaignRow, OrderResult } from '../types';
import { OutcomeUnknownError } from '../core/placeOrder';
import { recipientsOf, vouchersOfRows } from './reconciliation';
import type { RowDecision } from './reconciliation';

/* What a campaign's rows become: the output or the error of each row, whole-sheet or paged. */

/** A row that is not bought, and why. */
export function rowFailure(
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
export function rowsNotBought(node: INode, rows: CampaignRow[], reference: string, error: unknown) {
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

/**
 * A row's output: its recipient, its order and its own voucher. `confirmed` says the voucher
 * is known to be the row's; without it the row names the order a re-run or Get Campaign will
 * settle, and claims nothing more.
 */
function rowJson(row: CampaignRow, result: OrderResult, voucher?: IDataObject): IDataObject {
	const { order } = result;
	return {
		...row.recipient,
		reference: order.reference,
		orderNumber: order.orderNumber,
		status: order.status,
		alreadyExisted: Boolean(result.alreadyExisted),
		...(result.waitTimedOut ? { waitTimedOut: true } : {}),
		...(result.waitFailed ? { waitFailed: result.waitFailed } : {}),
		confirmed: voucher !== undefined,
		voucher: voucherFields(voucher),
	};
}

/** A decision that needs no new order, as an outcome; undefined for a row to buy. */
export function settledOutcome(
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

/** The rows of an order that was not sent because an earlier one failed. */
export function rowsNotSent(
	node: INode,
	rows: CampaignRow[],
	reference: string,
	failedReference: string,
): ItemOutcome[] {
	const why: [string, string] = [
		`not bought: order ${reference} was not sent, because order ${failedReference} failed first in this run`,
		`Order ${reference} was not sent: after a failed order no further order is started, which keeps every order findable by the next run. Nothing is lost: run the workflow again to finish the job.`,
	];
	return rows.map((row) => rowFailure(node, row, why));
}

/**
 * The rows of an order this run placed, each with its own voucher. Once the order lists its
 * recipients, a row it does not hold was not bought by it: `missing` holds those rows. The
 * number may have been taken by another run at once (its order answered to our create), so
 * the caller decides what they become. A FAILED or CANCELED order holds no voucher for its
 * rows, and a re-run buys them again. Until the list is known, rows are not confirmed.
 */
export function boughtRows(
	node: INode,
	rows: CampaignRow[],
	result: OrderResult,
): { outcomes: ItemOutcome[]; missing: CampaignRow[] } {
	const { reference, status } = result.order;
	const vouchers = vouchersOfRows(result.order, rows);
	const known = recipientsOf(result.order) === 'known';
	const ended = status === 'FAILED' || status === 'CANCELED';
	const missing: CampaignRow[] = [];
	const outcomes: ItemOutcome[] = [];
	rows.forEach((row, index) => {
		const voucher = vouchers[index];
		if (known && !voucher && ended) {
			outcomes.push(
				rowFailure(node, row, [
					`not bought: order ${reference} ended ${status}`,
					'The service made no voucher for this row, and refunds what it does not deliver. Run the workflow again to buy it in a new order.',
				]),
			);
		} else if (known && !voucher) {
			missing.push(row);
		} else {
			// Sent by this run: with "fail" an order that predates the run is refused.
			const bought = { ...result, alreadyExisted: false };
			outcomes.push({ itemIndex: row.itemIndex, json: [rowJson(row, bought, voucher)] });
		}
	});
	return { outcomes, missing };
}

/** Rows the order answered for them does not hold: nothing was bought for them under it. */
export function rowsNotInOrder(node: INode, rows: CampaignRow[], reference: string) {
	const why: [string, string] = [
		`not bought: this row is not in order ${reference}, the order the service answered for it`,
		'No voucher was bought for this row under that order. Was the same campaign running twice at the same time? Run the workflow again to finish the job.',
	];
	return rows.map((row) => rowFailure(node, row, why));
}

/** Rows of a block's later orders, unsent because the order before them could not be read to its end (why: a text or the error). */
export function rowsAfterUnconfirmed(
	node: INode,
	rows: CampaignRow[],
	reference: string,
	unread: unknown,
) {
	const cause =
		typeof unread === 'string' ? unread : withoutItemPrefix(asNodeError(node, unread).message);
	const why: [string, string] = [
		`unsettled: order ${reference} could not be read to its end, so no later order of its block was sent: ${cause}`,
		'A service may answer a create with the order another run made under the same Reference, and this row may be in it. Nothing more was bought for it in this run. Run the workflow again (or Order → Get Campaign) to settle it.',
	];
	return rows.map((row) => rowFailure(node, row, why));
}

/**
 * Rows whose order number another run took at once, when that order could not be read: they
 * may be in it. Said apart from "not bought", which would be a guess.
 */
export function rowsUnsettled(node: INode, rows: CampaignRow[], reference: string, error: unknown) {
	const { message } = asNodeError(node, error);
	const why: [string, string] = [
		`unsettled: order ${reference}, made by another run at the same time, could not be read: ${withoutItemPrefix(message)}`,
		'This row may be in that order; nothing more was bought for it in this run. Run the workflow again (or Order → Get Campaign) to settle it.',
	];
	return rows.map((row) => rowFailure(node, row, why));
}

/** Decisions split into the outcomes of rows settled now, the rows to buy, and how many are held. */
export function splitDecisions(
	decisions: RowDecision[],
	settle: (decision: RowDecision) => ItemOutcome | undefined,
): { settled: ItemOutcome[]; newRows: CampaignRow[]; held: number } {
	const split = { settled: [] as ItemOutcome[], newRows: [] as CampaignRow[], held: 0 };
	for (const decision of decisions) {
		if (decision.kind === 'held') split.held++;
		const outcome = settle(decision);
		if (outcome) split.settled.push(outcome);
		else split.newRows.push(decision.row);
	}
	return split;
}

/**
 * Rows of a block's orders from the first whose number is past what the next run reads
 * (MAX_BLOCK_ORDERS): such an order would never be found, and its rows would be bought again.
 */
export function rowsPastBlockCap(node: INode, rows: CampaignRow[], reference: string, cap: number) {
	const why: [string, string] = [
		`not bought: order ${reference} was not sent, because a block is read only up to its order number ${cap}`,
		`The next run would never read an order past that number, and would buy its rows again. A block of Row IDs needs so many only when other runs keep taking its numbers, or when the service answers every Reference with an order. Check the block with Order → Get Campaign.`,
	];
	return rows.map((row) => rowFailure(node, row, why));
}

/**
 * Rows whose create was answered with an order the block already holds under another Reference:
 * two References never name one order, so the answer is not this Reference's order, and whether
 * the create bought anything cannot be read from it.
 */
export function rowsAnsweredAlike(
	node: INode,
	rows: CampaignRow[],
	reference: string,
	twin: CampaignOrder,
) {
	const why: [string, string] = [
		`unsettled: order ${reference} was answered with order ${twin.order.orderNumber}, which is ${twin.reference}`,
		'Two References never name one order, so this answer is not the order under this Reference: the service, or something in front of it (a cache), may answer several References alike. Nothing more was bought for this row in this run. Check both with Order → Get, then run the workflow again.',
	];
	return rows.map((row) => rowFailure(node, row, why));
}
