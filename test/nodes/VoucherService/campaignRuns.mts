/**
 * Campaign runs against a sandbox, judged from the sandbox's own books (campaignBooks.mts).
 * Built on voucherNodeRunner.mts, for every test that runs a campaign (orders/campaign/campaign.*,
 * orders/core/, actions/order/createOptions, and others).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { campaignBooks, type BookRow } from './campaignBooks.mts';
import { campaignParameters } from './campaignParameters.mts';
import { apiRequests, runVoucher, sandboxForThisFile } from './voucherNodeRunner.mts';
import type { RunVoucherOptions } from './voucherNodeRunner.mts';

/** Check Wallet Balance First reads this, once per run that would buy. */
export const WALLETS = '/v2/transactions/wallets';

/** The stopping rule's window: MAX_CONCURRENCY_LIMIT consecutive misses. */
export const DISCOVERY_MISSES = 32;

/** How long the sandbox keeps a slow order PROCESSING in these files, unless a test changes it. */
export const PROCESSING_DELAY_MS = 300;

type Row = BookRow & IDataObject;

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

/** The execution hints of the node's run (Dry Run's totals, the narration hint). */
export const hints = (run: Awaited<ReturnType<typeof runVoucher>>) =>
	run.run.data.resultData.runData['Node under test'][0].hints ?? [];

/** `count` rows with IDs from `firstId`, each one 1,000 NGN (so one order per block). */
export const table = (count: number, firstId = 1) =>
	sheet(count, `id${firstId}-`).map((row, i) => ({ ...row, amount: 1000, id: firstId + i }));

/**
 * `count` rows as `table` makes them, `perBlock` in each block of 1,000 IDs from block `first`
 * (IDs 0–99, 1000–1099, … with 100): many blocks without a table of thousands.
 */
export const tableInBlocks = (count: number, perBlock = 100, first = 0) =>
	table(count, first * 1000).map((row, i) => ({
		...row,
		id: (first + Math.floor(i / perBlock)) * 1000 + (i % perBlock),
	}));

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

	/** An order placed straight at the service under `reference`, as another campaign (or 0.3.0) left it. */
	async function placeDirectly(reference: string, rows: BookRow[], productCode = 'VCH-INSTANT') {
		const { publicKey, secretKey } = sandbox.keys;
		const response = await fetch(`${sandbox.url}/v2/orders/recipients`, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`,
			},
			body: JSON.stringify({
				reference,
				productCode,
				amount: rows[0].amount,
				templateId: 1,
				recipients: rows.map(({ firstName, lastName, email }) => ({ firstName, lastName, email })),
			}),
		});
		if (response.status !== 200) throw new Error(`placing ${reference}: HTTP ${response.status}`);
	}

	/**
	 * Runs at once that race for certain, whatever the machine's speed: the sandbox holds their
	 * creates until one from each run waits (sandbox/README.md, createBarrier), and a run creates
	 * only after it has read, so every run has read before any create is answered. Sound when a
	 * run has one create in flight at a time: a page of one block, or Maximum Concurrency 1.
	 */
	async function racing<T>(...runs: Array<() => Promise<T>>): Promise<T[]> {
		// A deadline only for a race that never comes: under a rate limit a run's reads (a page's
		// whole-sheet check is 32) can take the pacing a minute before its first create.
		sandbox.configure({ createBarrier: { creates: runs.length, timeoutMs: 120_000 } });
		try {
			return await Promise.all(runs.map(async (run) => await run()));
		} finally {
			sandbox.configure({ createBarrier: null });
		}
	}

	/** How many creates of each reference the service took up (a rate limit's 429 is not one). */
	const createsOf = () => {
		const counts = new Map<string, number>();
		for (const post of apiRequests(sandbox, 'POST').filter((entry) => entry.status !== 429)) {
			const { reference } = post.body as { reference: string };
			counts.set(reference, (counts.get(reference) ?? 0) + 1);
		}
		return counts;
	};

	const recipientsPosted = (since: number) =>
		apiRequests(sandbox, 'POST')
			.slice(since)
			.flatMap((p) => ((p.body as IDataObject).recipients as IDataObject[]).map((r) => r.email));

	return {
		sandbox,
		runCampaign,
		racing,
		createsOf,
		...campaignBooks(sandbox),
		placeDirectly,
		recipientsPosted,
	};
}
