/**
 * Campaign runs against a sandbox, judged from the sandbox's own books: the vouchers each
 * recipient holds across all orders of the campaign, and one debit per order. Built on
 * voucherNodeRunner.mts, for every test that runs a campaign (orders/campaign/campaign.*,
 * orders/buy/, actions/order/createOptions, and others).
 */
import { expect } from 'vitest';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	apiRequests,
	campaignParameters,
	runVoucher,
	sandboxForThisFile,
} from './voucherNodeRunner.mts';
import type { RunVoucherOptions } from './voucherNodeRunner.mts';

/** Check Wallet Balance First reads this, once per run that would buy. */
export const WALLETS = '/v2/transactions/wallets';

/** The stopping rule's window: MAX_CONCURRENCY_LIMIT consecutive misses. */
export const DISCOVERY_MISSES = 32;

/** How long the sandbox keeps a slow order PROCESSING in these files, unless a test changes it. */
export const PROCESSING_DELAY_MS = 300;

interface Row extends IDataObject {
	firstName: string;
	lastName: string;
	email: string;
	amount: number;
}

/** Thirty rows like the issue's: every third row 1,000 NGN, the others 2,000 NGN. */
export function sheet(count: number, prefix = 'p'): Row[] {
	return Array.from({ length: count }, (_, i) => ({
		firstName: `First${i}`,
		lastName: `Last${i}`,
		email: `${prefix}${i}@example.com`,
		amount: i % 3 === 0 ? 1000 : 2000,
	}));
}

export const atAmount = (rows: Row[], amount: number) => rows.map((row) => ({ ...row, amount }));

export const personKey = (p: { email?: unknown; firstName?: unknown; lastName?: unknown }) =>
	[p.email, p.firstName, p.lastName].map((v) => String(v).trim().toLowerCase()).join('|');

/** The execution hints of the node's run (Dry Run's totals, the narration hint). */
export const hints = (run: Awaited<ReturnType<typeof runVoucher>>) =>
	run.run.data.resultData.runData['Node under test'][0].hints ?? [];

/** `count` rows with IDs from `firstId`, each one 1,000 NGN (so one order per block). */
export const table = (count: number, firstId = 1) =>
	sheet(count, `id${firstId}-`).map((row, i) => ({ ...row, amount: 1000, id: firstId + i }));

/** A campaign fed by Row ID, from the rows' `id` column (runCampaign's `run`). */
export const byId = { extra: { rowIdField: 'id' } };

/** Rows cut into pages of `size`. */
export const pages = <T,>(rows: T[], size: number) =>
	Array.from({ length: Math.ceil(rows.length / size) }, (_, i) =>
		rows.slice(i * size, (i + 1) * size),
	);

/** Get Campaign of each input item's `base`, with Row IDs From and To from its `from` and `to`. */
export const GET_CAMPAIGN_BY_ROW_IDS: INodeParameters = {
	resource: 'order',
	operation: 'getCampaign',
	reference: '={{ $json.base }}',
	rowIdsFrom: '={{ $json.from }}',
	rowIdsTo: '={{ $json.to }}',
};

/** Each row's amount comes from its `amount` column, so one sheet holds two amount groups. */
const campaign = (base: string, options: INodeParameters = {}, extra: INodeParameters = {}) =>
	campaignParameters(base, options, { amount: '={{ $json.amount }}', ...extra });

/**
 * A sandbox for the calling test file (see sandboxForThisFile), and the helpers that run a
 * campaign against it and read its books.
 */
export async function campaignSandboxForThisFile() {
	const sandbox = await sandboxForThisFile({ processingDelayMs: PROCESSING_DELAY_MS });

	const orderReads = () =>
		apiRequests(sandbox, 'GET').filter((entry) => !entry.path.startsWith(WALLETS));

	async function runCampaign(
		base: string,
		rows: IDataObject[],
		options: INodeParameters = {},
		run: RunVoucherOptions & { extra?: INodeParameters } = {},
	) {
		const posts = apiRequests(sandbox, 'POST').length;
		const gets = orderReads().length;
		const walletReads = apiRequests(sandbox, 'GET', WALLETS).length;
		const result = await runVoucher(sandbox, campaign(base, options, run.extra), {
			items: rows,
			...run,
		});
		return {
			...result,
			posts: apiRequests(sandbox, 'POST').length - posts,
			/** Order look-ups (discovery, waits); the wallet read of Check Wallet Balance First is counted apart. */
			gets: orderReads().length - gets,
			walletReads: apiRequests(sandbox, 'GET', WALLETS).length - walletReads,
		};
	}

	/** Whole-sheet orders `<base>-n` and paged ones `<base>-b<block>-n` alike. */
	const ofCampaign = (base: string, reference: string | null | undefined) =>
		new RegExp(`^${base}-(b\\d+-)?\\d+$`).test(reference ?? '');
	const campaignOrders = (base: string) =>
		[...sandbox.state.orders.values()].filter((order) => ofCampaign(base, order.reference));

	/**
	 * The report Get Campaign should give, from the books: every voucher, in block (paged
	 * orders `<base>-b<block>-n`), then order-number, then list order.
	 */
	function reportFromBooks(base: string): IDataObject[] {
		const place = (reference: string) => {
			const [, block = '-1', number = '0'] = /-(?:b(\d+)-)?(\d+)$/.exec(reference) ?? [];
			return [BigInt(block), BigInt(number)];
		};
		const compare = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
		const orders = campaignOrders(base).sort((a, b) => {
			const [[blockA, numberA], [blockB, numberB]] = [place(a.reference), place(b.reference)];
			return compare(blockA, blockB) || compare(numberA, numberB);
		});
		return orders.flatMap((order): IDataObject[] => {
			const orderFields = {
				reference: order.reference,
				orderNumber: order.orderNumber,
				orderStatus: order.status,
			};
			if (order.status === 'PROCESSING' || order.vouchers.length === 0) {
				const deliveryStatus = ['FAILED', 'CANCELED'].includes(order.status)
					? order.status
					: 'PROCESSING';
				const none = { email: null, firstName: null, lastName: null, value: null, serial: null };
				return [{ ...none, ...orderFields, deliveryStatus, vouchersListed: false }];
			}
			return order.vouchers.map((voucher) => ({
				email: voucher.email,
				firstName: voucher.firstName,
				lastName: voucher.lastName,
				value: voucher.value,
				serial: voucher.serial,
				...orderFields,
				deliveryStatus: voucher.status,
			}));
		});
	}

	/** The ledger view: voucher values (NGN) each recipient holds across the campaign's orders. */
	function vouchersPerRecipient(base: string): Map<string, number[]> {
		const held = new Map<string, number[]>();
		for (const order of campaignOrders(base)) {
			for (const voucher of order.vouchers) {
				const key = personKey(voucher);
				held.set(key, [...(held.get(key) ?? []), voucher.value]);
			}
		}
		return held;
	}

	/** Each row's person holds exactly as many vouchers of each value as the sheet lists. */
	function expectEveryRowHeldOnce(base: string, rows: Row[]) {
		const wanted = new Map<string, number[]>();
		for (const row of rows)
			wanted.set(personKey(row), [...(wanted.get(personKey(row)) ?? []), row.amount]);
		const held = vouchersPerRecipient(base);
		for (const [key, values] of wanted) {
			expect([...(held.get(key) ?? [])].sort(), key).toEqual([...values].sort());
		}
		expect(held.size).toBe(wanted.size);
	}

	/** One debit per order of the campaign: no order was ever paid twice. */
	function expectOneDebitPerOrder(base: string) {
		const debits = sandbox.state.ledger.filter(
			(e) => e.kind === 'debit' && ofCampaign(base, e.reference),
		);
		expect(debits.length).toBe(campaignOrders(base).length);
		expect(new Set(debits.map((e) => e.reference)).size).toBe(debits.length);
	}

	const recipientsPosted = (since: number) =>
		apiRequests(sandbox, 'POST')
			.slice(since)
			.flatMap((p) => ((p.body as IDataObject).recipients as IDataObject[]).map((r) => r.email));

	return {
		sandbox,
		runCampaign,
		campaignOrders,
		reportFromBooks,
		vouchersPerRecipient,
		expectEveryRowHeldOnce,
		expectOneDebitPerOrder,
		recipientsPosted,
	};
}
