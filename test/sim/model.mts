/**
 * The once-only rules of a campaign (Create for Recipients → From Input Items), as the
 * simulator holds the node to them. This file is their one statement; docs/campaigns.md says
 * the same in users' words.
 *
 * C1 A campaign is its base reference. Its orders are whole-sheet (no Row ID) or paged (Row
 *    ID Column set), never both: a paged run of a base with whole-sheet orders buys nothing.
 *    No campaign creates an order under a name another campaign makes, nor takes another
 *    campaign's order for its own. A paged campaign begun on 0.3.0 (orders `<base>-b<k>-<m>`)
 *    finishes when the user says whose such orders are; until then its blocks buy nothing.
 *    Known limit: those 0.3.0 names are also a whole-sheet campaign `<base>-b<k>`'s, so a whole
 *    sheet of that name holds them, and a paged base of that name is refused for them.
 * C2 Scope. A whole-sheet campaign is one scope. A paged one has a scope per block of 1,000 Row
 *    IDs (IDs 12000–12999 are block 12), 0.3.0's orders of its blocks of 100 (IDs 12300–12399
 *    were its block 123) included. A run matches rows only against vouchers of their own scope,
 *    and those of 0.3.0's orders only to rows of their block of 100, as 0.3.0 did.
 * C3 A recipient is e-mail, first and last name, each trimmed and in any case; a value is
 *    compared in kobo. A voucher is held whatever its status.
 * C4 Never more: in a scope, a recipient at a value holds at most as many vouchers as the most
 *    rows with that recipient and value that any one execution brought into the scope. A row
 *    no longer in the sheet keeps its voucher. A person at a value on one row only, never on
 *    another and never edited, holds at most one voucher of the campaign, whatever the runs,
 *    pages, faults and edits of other rows.
 * C5 Row IDs are the row's own, stable and never reused: a row keeps its ID when rows above
 *    it are deleted, moved or sorted. A Row ID Column named `row_number` (Google Sheets' row
 *    position) is refused, and nothing is bought.
 * C6 A row not held is refused, and nothing bought for it, when its recipient holds a voucher
 *    of another value in the scope, or when its e-mail holds an unclaimed voucher of the scope
 *    under another name (a corrected name).
 * C7 Whole sheet: the whole sheet in one execution, never two at once. Paged: any pages, in
 *    any executions, at once or not.
 * C8 Every row gets one outcome, and it is true:
 *    - bought or held: a voucher object (serial, value, status) of this campaign and scope,
 *      the row's own recipient and value, claimed by no other row of the execution; "bought"
 *      (alreadyExisted false) only for an order made in this run or one at the same time;
 *    - not confirmed (`voucher: null`, `confirmed: false`): names the reference and order
 *      number of an order of this campaign that the row may be in;
 *    - "outcome unknown" or "unsettled": names the order it may be in;
 *    - any other error ("not bought", refused, still PROCESSING, bad input, limits): nothing
 *      was bought for the row in that execution.
 * C9 After a clean run over the whole sheet (no faults, Wait for Completion on), every row
 *    that can be bought and is not refused by C6 is held, each with its own voucher.
 * C10 Nothing the spec refuses is sent: every create has a reference, recipients with names
 *    and valid e-mails, and keeps within Maximum Order Total and Maximum Total per Run; bad
 *    input without On Error → Continue sends nothing at all; a dry run creates nothing.
 * C11 No read passes its cap: one block, one discovery and one report read a bounded number
 *    of orders (the node's MAX_BLOCK_ORDERS, MAX_CAMPAIGN_ORDERS, MAX_REPORT_ORDERS), and fail
 *    clearly at the bound.
 * C12 Pages at once over one block, with no fault and no row the rules refuse, buy every row:
 *    a create lost to another page's order costs its rows nothing, however many pages meet.
 */
import {
	DISCOVERY_MISSES,
	MAX_CAMPAIGN_ORDERS,
} from '../../nodes/VoucherService/orders/campaign/discovery';
import { MAX_REPORT_ORDERS } from '../../nodes/VoucherService/orders/campaign/campaignReport';
import {
	MAX_BLOCK_ORDERS,
	MAX_OLD_BLOCK_ORDERS,
} from '../../nodes/VoucherService/orders/campaign/rowBlocks';

/** A sheet row as the simulator feeds it (before the node reads it). */
export interface ModelRow {
	firstName: string;
	lastName: string;
	email: string;
	amount: number;
	product: string;
	template: number;
	/** The simulator's own identity of the sheet line: survives edits, never shown to the node. */
	line: number;
	/** The Row ID as fed (a stable `id`, or a `row_number` that moves); absent for a whole sheet. */
	rowId?: number;
}

/** A voucher as the books hold it. */
export interface ModelVoucher {
	firstName: string | null;
	lastName: string | null;
	email: string | null;
	value: number;
	/** In an order under 0.3.0's name: its block of 100, whose rows alone it can hold (C2). */
	oldBlock?: number;
}

const ROW_BLOCK_SIZE = 1000;
const OLD_BLOCK_SIZE = 100;

/** C11's bounds, the node's own: distinct orders one whole-sheet campaign or one block reads. */
export const READ_CAPS = {
	sheet: MAX_CAMPAIGN_ORDERS + DISCOVERY_MISSES,
	// A block read under today's names and its ten blocks of 100 under 0.3.0's, each up to its cap.
	block: MAX_BLOCK_ORDERS + 1 + (ROW_BLOCK_SIZE / OLD_BLOCK_SIZE) * (MAX_OLD_BLOCK_ORDERS + 1),
	report: MAX_REPORT_ORDERS,
};

/** The Row ID Column that C5 refuses. */
export const UNSTABLE_ROW_ID_COLUMN = 'row_number';

const norm = (value: unknown) =>
	String(value ?? '')
		.trim()
		.toLowerCase();

export const recipientKey = (p: { email?: unknown; firstName?: unknown; lastName?: unknown }) =>
	[p.email, p.firstName, p.lastName].map(norm).join('\u0000');

const mailbox = (email: unknown) => norm(email);

export const kobo = (amount: unknown) => Math.round(Number(amount) * 100);

export type Scope = 'sheet' | `k${number}`;

export const scopeOf = (rowId: number | undefined): Scope =>
	rowId === undefined ? 'sheet' : `k${Math.floor(rowId / ROW_BLOCK_SIZE)}`;

/** 0.3.0's block of 100 of a Row ID, which named its orders `<base>-b<block>-<m>`. */
export const oldBlockOf = (rowId: number | undefined) => Math.floor((rowId ?? 0) / OLD_BLOCK_SIZE);

/** 0.3.0's block of 100 named by a paged order's reference `<base>-b<block>-<m>`, if so named. */
export function oldBlockOfName(reference: string): number | undefined {
	const old = /-b(\d+)-\d+$/.exec(reference);
	return old ? Number(old[1]) : undefined;
}

/** Whether a paged order can hold a row under C2: one of 0.3.0's only in the row's block of 100. */
export const fitsOldBlock = (reference: string, row: ModelRow) =>
	(oldBlockOfName(reference) ?? oldBlockOf(row.rowId)) === oldBlockOf(row.rowId);

/** The same for a voucher as the books hold it. */
export const mayHold = (voucher: ModelVoucher, row: ModelRow) =>
	voucher.oldBlock === undefined || voucher.oldBlock === oldBlockOf(row.rowId);

/** The scope of a paged order by its name, today's `-k<block>-n<m>` or 0.3.0's `-b<block>-<m>`. */
export function scopeOfName(reference: string): Scope | undefined {
	const today = /-k(\d+)-n\d+$/.exec(reference);
	if (today) return `k${Number(today[1])}`;
	const old = /-b(\d+)-\d+$/.exec(reference);
	if (old) return `k${Math.floor((Number(old[1]) * OLD_BLOCK_SIZE) / ROW_BLOCK_SIZE)}`;
	return undefined;
}

/** A recipient at a value within one scope of one campaign (C2, C3). */
export const slotOf = (
	base: string,
	scope: Scope,
	person: ModelVoucher | ModelRow,
	value: number,
) => JSON.stringify([base, scope, recipientKey(person), kobo(value)]);

/** The spec's rule for an e-mail (C10), independent of the node's own check. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Whether the node must accept the row's input (C8's "bad input" otherwise). */
export const validInput = (row: ModelRow) =>
	EMAIL.test(row.email.trim()) && row.firstName.trim() !== '' && row.lastName.trim() !== '';

/** Products the sandbox sells that end with a voucher for every recipient (FAILED and CANCELED end with none). */
export const PRODUCTS_WITH_VOUCHERS = [
	'VCH-INSTANT',
	'VCH-AMAZON',
	'VCH-SLOW-COMPLETED',
	'VCH-SLOW-PARTIAL',
];

/** Whether the service can ever buy the row (a product it sells, a template it takes). */
export const buyable = (row: ModelRow, opaqueTemplates: boolean) =>
	validInput(row) &&
	PRODUCTS_WITH_VOUCHERS.includes(row.product) &&
	[1, 2, 7].includes(row.template) &&
	!opaqueTemplates;

/** How many rows of each slot one execution brings (C4's demand), valid rows only. */
export function demandOf(base: string, rows: ModelRow[]): Map<string, number> {
	const demand = new Map<string, number>();
	for (const row of rows.filter(validInput)) {
		const slot = slotOf(base, scopeOf(row.rowId), row, row.amount);
		demand.set(slot, (demand.get(slot) ?? 0) + 1);
	}
	return demand;
}

export type Decision = 'held' | 'refusedValue' | 'refusedRenamed';

/**
 * What a clean run does with each row of one scope, given the scope's vouchers (C4, C6, C9):
 * the n-th row of a recipient at a value takes the n-th voucher; a row left over is refused
 * (another value held, or a corrected name), else bought, and so held after the run.
 */
export function cleanRunDecisions(rows: ModelRow[], vouchers: ModelVoucher[]): Decision[] {
	const unclaimed = vouchers.map((voucher) => ({ voucher, claimed: false }));
	const claims = rows.map((row) => {
		const same = unclaimed.find(
			(held) =>
				!held.claimed &&
				mayHold(held.voucher, row) &&
				recipientKey(held.voucher) === recipientKey(row) &&
				kobo(held.voucher.value) === kobo(row.amount),
		);
		if (same) same.claimed = true;
		return same !== undefined;
	});
	return rows.map((row, index): Decision => {
		if (claims[index]) return 'held';
		const otherValue = vouchers.some(
			(v) =>
				mayHold(v, row) &&
				recipientKey(v) === recipientKey(row) &&
				kobo(v.value) !== kobo(row.amount),
		);
		if (otherValue) return 'refusedValue';
		const renamed = unclaimed.find(
			(held) =>
				!held.claimed &&
				mayHold(held.voucher, row) &&
				mailbox(held.voucher.email) === mailbox(row.email) &&
				recipientKey(held.voucher) !== recipientKey(row),
		);
		return renamed ? 'refusedRenamed' : 'held';
	});
}

/** An output item's outcome under C8. */
export type Outcome =
	| { kind: 'voucher'; alreadyExisted: boolean }
	| { kind: 'notConfirmed' }
	| { kind: 'voucherNullUnmarked' }
	| { kind: 'dryRun' }
	| { kind: 'unknown' }
	| { kind: 'notBought' };

export function outcomeOf(json: Record<string, unknown>, isError: boolean): Outcome {
	if (isError) {
		const message = String(json.error ?? '');
		return /outcome unknown|may or may not have been bought|was bought is unknown|^Item \d+: unsettled:/.test(
			message,
		)
			? { kind: 'unknown' }
			: { kind: 'notBought' };
	}
	if (json.dryRun === true) return { kind: 'dryRun' };
	if (json.voucher !== null && typeof json.voucher === 'object')
		return { kind: 'voucher', alreadyExisted: json.alreadyExisted === true };
	return json.confirmed === false ? { kind: 'notConfirmed' } : { kind: 'voucherNullUnmarked' };
}

/** Whether the row may hold a voucher from this execution (C8): not for any error but "unknown". */
export const claims = (outcome: Outcome) =>
	outcome.kind === 'voucher' ||
	outcome.kind === 'notConfirmed' ||
	outcome.kind === 'voucherNullUnmarked' ||
	outcome.kind === 'unknown';

export interface Limits {
	/** Maximum Order Total in NGN (credential and node, the tighter), 0 for none. */
	orderNgn: number;
	/** Maximum Total per Run in NGN, 0 for none. */
	runNgn: number;
}

/** What C10 finds wrong with a create as sent, or undefined. */
export function specRefusal(body: Record<string, unknown>, limits: Limits): string | undefined {
	const recipients = body.recipients as Array<Record<string, unknown>> | undefined;
	if (typeof body.reference !== 'string' || body.reference === '') return 'no reference';
	if (typeof body.productCode !== 'string' || body.productCode === '') return 'no product code';
	if (typeof body.amount !== 'number' || !(body.amount > 0)) return 'no positive amount';
	if (!Number.isInteger(body.templateId)) return 'templateId is not an int32';
	if (!Array.isArray(recipients) || recipients.length === 0) return 'no recipients';
	for (const r of recipients) {
		if (norm(r.firstName) === '' || norm(r.lastName) === '') return 'a recipient without a name';
		if (typeof r.email !== 'string' || !EMAIL.test(r.email)) return `bad e-mail ${String(r.email)}`;
	}
	const total = kobo(body.amount) * recipients.length;
	if (limits.orderNgn > 0 && total > kobo(limits.orderNgn)) return 'over Maximum Order Total';
	return undefined;
}
