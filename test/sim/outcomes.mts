/**
 * The rules each execution is held to on its own (model.mts): every row one outcome, each
 * outcome true (C8), `row_number` refused (C5), nothing sent that the spec refuses (C10), no
 * read past its cap (C11); and the campaign report against the books.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Books, ExecutionRecord } from './books.mts';
import {
	claims,
	kobo,
	outcomeOf,
	READ_CAPS,
	recipientKey,
	fitsOldBlock,
	scopeOf,
	scopeOfName,
	specRefusal,
	validInput,
} from './model.mts';
import type { ModelRow, Outcome } from './model.mts';

const FINAL = ['COMPLETED', 'PARTIALLY_COMPLETED', 'FAILED', 'CANCELED'];
const ORDER_LOOKUP = /^\/v2\/orders\/(?!templates$)([^/]+)$/;

/** The scope a look-up of the execution's own campaign reads: a block, the whole sheet, or none. */
function readScope(base: string, reference: string): string | undefined {
	const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const block = new RegExp(`^${escaped}(-k\\d+-n\\d+|-b\\d+-\\d+)$`).exec(reference);
	if (block) return scopeOfName(block[1]);
	return new RegExp(`^${escaped}-\\d+$`).test(reference) ? 'sheet' : undefined;
}

/** C11: the distinct orders read per scope, each within the node's cap. */
function overCap(execution: ExecutionRecord): string | undefined {
	const perScope = new Map<string, Set<string>>();
	for (const request of execution.result.requests) {
		const lookup = request.method === 'GET' && !request.unsent && ORDER_LOOKUP.exec(request.path);
		if (!lookup) continue;
		const reference = decodeURIComponent(lookup[1]);
		const scope = readScope(execution.base, reference);
		if (scope) perScope.set(scope, (perScope.get(scope) ?? new Set()).add(reference));
	}
	const total = [...perScope.values()].reduce((sum, read) => sum + read.size, 0);
	if (execution.kind === 'report' && total > READ_CAPS.report)
		return `the report read ${total} orders`;
	for (const [scope, read] of perScope) {
		const cap = scope === 'sheet' ? READ_CAPS.sheet : READ_CAPS.block;
		if (read.size > cap) return `${read.size} orders of ${scope}, cap ${cap}`;
	}
	return undefined;
}

/** C10 and C11: what was sent, killed or not. */
function checkRequests(books: Books, execution: ExecutionRecord): void {
	const { step, result, options, limits } = execution;
	const creates = result.requests.filter((r) => r.method === 'POST' && !r.unsent);
	for (const create of creates) {
		const refusal = specRefusal(create.body ?? {}, limits);
		if (refusal)
			books.fail(
				'C10',
				'spec-refused-request-sent',
				step,
				`${execution.id}: create of ${String(create.body?.reference)}: ${refusal}`,
			);
	}
	if (options.dryRun && creates.length > 0)
		books.fail('C10', 'dry-run-created', step, `${execution.id} sent ${creates.length} creates`);
	// A create sent again under the next number after losing a race buys its rows once.
	const spent = books.spentBy(execution.id);
	if (limits.runNgn > 0 && spent > kobo(limits.runNgn))
		books.fail(
			'C10',
			'over-run-limit',
			step,
			`${execution.id} bought ${spent / 100} NGN, limit ${limits.runNgn}`,
		);
	const over = overCap(execution);
	if (result.runaway || over)
		books.fail(
			'C11',
			'read-past-cap',
			step,
			`${execution.id} read ${over ?? 'without end'}${result.runaway ? ' and was cut off' : ''}`,
		);
}

interface Claim {
	row: ModelRow;
	json: IDataObject;
	outcome: Outcome;
}

/** A violation about one row of an execution, naming the row. */
const rowFailure =
	(books: Books, execution: ExecutionRecord, row: ModelRow, rule: string) =>
	(invariant: string, detail: string) =>
		books.fail(
			rule,
			invariant,
			execution.step,
			`${execution.id} row ${row.line} (${row.email.trim()}, ${row.amount}): ${detail}`,
		);

/**
 * C1's known limit: 0.3.0 named a block's orders `<base>-b<k>-<m>`, which a whole-sheet
 * campaign named `<base>-b<k>` also makes, so a whole sheet of that name takes them for its own.
 */
function isOldNameOverlap(reference: string, execution: ExecutionRecord): boolean {
	return execution.rowIdColumn === 'none' && /-b\d+-\d+$/.test(reference);
}

/** The same limit from the other side: a paged base `<base>-b<k>` refused for 0.3.0's orders of `<base>`. */
export function refusedForOldNames(books: Books, error: string): boolean {
	const [, reference] = /has orders made without Row ID \((\S+), …\)/.exec(error) ?? [];
	const owner = reference === undefined ? undefined : books.ownerOf(reference);
	return owner !== undefined && owner.scope !== 'sheet' && /-b\d+-\d+$/.test(reference);
}

function checkVoucher(books: Books, execution: ExecutionRecord, { row, json, outcome }: Claim) {
	const fail = rowFailure(books, execution, row, 'C8');
	const voucher = json.voucher as IDataObject;
	const found = books.voucherBySerial(String(voucher.serial));
	if (!found) return fail('voucher-not-in-books', `serial ${String(voucher.serial)} is no voucher`);
	const { order } = found;
	const owner = books.ownerOf(order.reference);
	if (order.reference !== json.reference)
		fail(
			'voucher-not-in-named-order',
			`its voucher is in ${order.reference}, the output names ${String(json.reference)}`,
		);
	const overlap = owner?.base !== execution.base && isOldNameOverlap(order.reference, execution);
	if (!owner || (owner.base !== execution.base && !overlap))
		fail('voucher-of-another-campaign', `${order.reference} was made by "${owner?.base}"`);
	else if (owner.scope !== scopeOf(row.rowId) && !overlap)
		fail(
			'voucher-of-another-scope',
			`${order.reference} holds ${owner.scope}, the row is in ${scopeOf(row.rowId)}`,
		);
	else if (owner.scope !== 'sheet' && !overlap && !fitsOldBlock(order.reference, row))
		fail(
			'voucher-of-another-scope',
			`${order.reference} is 0.3.0's, of another block of 100 than row ID ${row.rowId}`,
		);
	if (
		recipientKey(found.voucher) !== recipientKey(row) ||
		kobo(found.voucher.value) !== kobo(row.amount)
	)
		fail('voucher-not-rows-own', `the voucher is ${found.voucher.email} at ${found.voucher.value}`);
	if (kobo(voucher.value) !== kobo(found.voucher.value))
		fail('voucher-misreported', `value ${String(voucher.value)} for ${found.voucher.value}`);
	if (
		outcome.kind === 'voucher' &&
		!outcome.alreadyExisted &&
		owner &&
		owner.step !== execution.step
	)
		fail('bought-but-older', `${order.reference} was made in step ${owner.step}`);
}

function checkNotConfirmed(books: Books, execution: ExecutionRecord, { row, json }: Claim) {
	const fail = rowFailure(books, execution, row, 'C8');
	const order = books.order(String(json.reference));
	if (!order || order.orderNumber !== json.orderNumber)
		return fail(
			'not-confirmed-order-missing',
			`names ${String(json.reference)} ${String(json.orderNumber)}`,
		);
	// The row may or may not be in it: a create answered with another run's order still
	// PROCESSING cannot be told from this run's own until it lists its vouchers.
	if (books.ownerOf(order.reference)?.base !== execution.base)
		fail('voucher-of-another-campaign', `${order.reference} is another campaign's`);
	// The sandbox lists a final order's vouchers: whether the row is in it was known.
	if (FINAL.includes(String(json.status).toUpperCase()))
		fail('not-confirmed-but-final', `${order.reference} was ${String(json.status)}`);
}

/** Output items by the input item they are paired to. */
function itemsByRow(output: INodeExecutionData[], rows: number): INodeExecutionData[][] {
	const byRow = Array.from({ length: rows }, (): INodeExecutionData[] => []);
	for (const item of output) {
		const index = (item.pairedItem as { item?: number } | undefined)?.item;
		if (index !== undefined && index in byRow) byRow[index].push(item);
	}
	return byRow;
}

/** C12: with no fault and nothing to refuse, each row of the execution ends with a voucher. */
export function checkEveryRowBought(books: Books, execution: ExecutionRecord): void {
	const { step, result, rows } = execution;
	itemsByRow(result.output ?? [], rows.length).forEach(([item], index) => {
		const voucher = item?.json.voucher;
		if (voucher !== null && typeof voucher === 'object') return;
		const outcome = item ? JSON.stringify(item.json).slice(0, 300) : 'no outcome';
		books.fail(
			'C12',
			'crowd-row-lost',
			step,
			`${execution.id} row ${rows[index].line}: ${outcome}`,
		);
	});
}

/** Every rule of one campaign execution; a killed one is held only to what it sent. */
export function checkExecution(books: Books, execution: ExecutionRecord): void {
	const { step, result, rows, options } = execution;
	const valid = (row: ModelRow) => execution.base !== '' && validInput(row);
	checkRequests(books, execution);
	if (result.killed || result.runaway) return;
	if (result.error || !result.output) {
		if (options.continueOnFail)
			books.fail('C8', 'execution-threw', step, `${execution.id}: ${result.error?.message}`);
		else if (!rows.every(valid) && result.requests.length > 0)
			books.fail(
				'C10',
				'bad-input-sent-requests',
				step,
				`${execution.id} sent ${result.requests.length} requests`,
			);
		return;
	}
	const serials = new Map<string, number>();
	const posted = result.requests
		.filter((r) => r.method === 'POST')
		.map((r) => String(r.body?.reference));
	itemsByRow(result.output, rows.length).forEach((items, index) => {
		const row = rows[index];
		if (items.length !== 1) {
			books.fail(
				'C8',
				'row-without-one-outcome',
				step,
				`${execution.id} row ${row.line} has ${items.length} outcomes`,
			);
			return;
		}
		const [{ json, error }] = items;
		const outcome = outcomeOf(json, error !== undefined || typeof json.error === 'string');
		const claim = { row, json, outcome };
		const fail = (rule: string, invariant: string, detail: string) =>
			rowFailure(books, execution, row, rule)(invariant, detail);
		if (!valid(row) && outcome.kind !== 'notBought')
			fail('C8', 'bad-input-not-refused', JSON.stringify(json));
		if (execution.rowIdColumn === 'row_number' && claims(outcome))
			fail('C5', 'unstable-row-id-accepted', `Row ID Column row_number gave ${outcome.kind}`);
		if (outcome.kind === 'dryRun' && !options.dryRun) fail('C8', 'dry-run-output', 'not a dry run');
		if (outcome.kind === 'voucherNullUnmarked')
			fail(
				'C8',
				'voucher-null-not-marked',
				`OK with voucher null and no confirmed: false (${String(json.reference)} ${String(json.status)})`,
			);
		if (outcome.kind === 'notConfirmed') checkNotConfirmed(books, execution, claim);
		if (
			outcome.kind === 'unknown' &&
			!posted.some((reference) => String(json.error).includes(reference))
		)
			fail('C8', 'unknown-names-no-order', String(json.error));
		if (outcome.kind !== 'voucher') return;
		checkVoucher(books, execution, claim);
		const serial = String((json.voucher as IDataObject).serial);
		const other = serials.get(serial);
		if (other !== undefined)
			fail('C8', 'serial-claimed-twice', `serial ${serial} is also row ${other}'s`);
		serials.set(serial, row.line);
	});
}

/** Get Campaign: one item per voucher of the campaign and none of another's (C1, C8). */
export function checkReport(books: Books, execution: ExecutionRecord): void {
	const { step, result, base } = execution;
	checkRequests(books, execution);
	if (result.runaway) return;
	if (base === '') {
		if (result.requests.length > 0)
			books.fail('C10', 'bad-input-sent-requests', step, `report of a blank base sent requests`);
		return;
	}
	if (result.error || !result.output) {
		books.fail('C8', 'report-failed', step, `${execution.id}: ${result.error?.message}`);
		return;
	}
	const reported = new Set<string>();
	const unlisted = new Set<string>();
	for (const { json } of result.output) {
		if (json.vouchersListed === false) unlisted.add(String(json.reference));
		if (json.serial === null || json.serial === undefined) continue;
		reported.add(String(json.serial));
		const found = books.voucherBySerial(String(json.serial));
		const owner = found && books.ownerOf(found.order.reference);
		// C1's known limit, read by the report as by a run: a whole sheet `<b>-b<k>` takes 0.3.0's
		// `<b>-b<k>-<m>` for its own.
		const oldNameMet =
			owner?.scope !== 'sheet' &&
			found?.order.reference.startsWith(base) === true &&
			/^-\d+$/.test(found.order.reference.slice(base.length));
		if (owner?.base !== base && !oldNameMet)
			books.fail(
				'C1',
				'report-foreign-voucher',
				step,
				`report of "${base}" lists serial ${String(json.serial)} of ${found?.order.reference ?? 'no order'}`,
			);
	}
	const mode = books.modeOf(base);
	for (const { order, scope } of books.ordersOf(base)) {
		if ((scope === 'sheet') !== (mode === 'sheet') || unlisted.has(order.reference)) continue;
		for (const voucher of order.vouchers)
			if (!reported.has(String(voucher.serial)))
				books.fail(
					'C8',
					'report-missing-voucher',
					step,
					`report of "${base}" lacks serial ${voucher.serial} of ${order.reference}`,
				);
	}
}
