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
		vouchersPerRecipient,
		expectEveryRowHeldOnce,
		expectOneDebitPerOrder,
		recipientsPosted,
	};
}
