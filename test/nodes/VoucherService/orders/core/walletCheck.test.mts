/**
 * The run-wide checks (issue #19): Check Wallet Balance First reads the sandbox's NGN wallet
 * (its balance follows the sandbox's ledger) before the first create, and Maximum Total per
 * Run bounds the new orders of one run. A refused run sends no create.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	WALLETS,
	atAmount,
	campaignSandboxForThisFile,
	hints,
	sheet,
} from '../../campaignRuns.mts';
import {
	apiRequests,
	cannedServiceForThisFile,
	runVoucher,
	uniqueReference,
} from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, campaignOrders } = await campaignSandboxForThisFile();
const canned = await cannedServiceForThisFile();

/** A fresh sandbox whose NGN wallet holds this much, and which lists these wallets. */
function wallet(balanceNgn: number, walletCurrencies = ['NGN', 'USD']) {
	sandbox.configure({ initialBalanceNgn: balanceNgn, walletCurrencies });
	sandbox.reset();
}

afterEach(() =>
	sandbox.configure({ initialBalanceNgn: 50_000_000, walletCurrencies: ['NGN', 'USD'] }),
);

const balanceKobo = () => sandbox.state.ledger.at(-1)!.balanceAfterKobo;
const messages = (run: Awaited<ReturnType<typeof runVoucher>>) => hints(run).map((h) => h.message);

const SHORT_BY_1000 =
	'Nothing was bought: this run would spend NGN 6,000.00, but the NGN wallet holds NGN 5,000.00, NGN 1,000.00 short';

const create = (options: INodeParameters): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference: '={{ $json.ref }}',
	productCode: 'VCH-INSTANT',
	amount: '={{ $json.amount }}',
	quantity: 1,
	options,
});

const items = (...amounts: number[]) =>
	amounts.map((amount) => ({ ref: uniqueReference('one'), amount }));

describe('Check Wallet Balance First, on a campaign (on by default)', () => {
	it('a wallet too small refuses the campaign: no create, one error naming total, balance and shortfall', async () => {
		wallet(5000);
		const run = await runCampaign(uniqueReference('short'), atAmount(sheet(3), 2000));
		expect(run.walletReads).toBe(1);
		expect(run.posts).toBe(0);
		expect(run.error?.message).toBe(SHORT_BY_1000);
		expect(balanceKobo()).toBe(500_000);
	});

	it('under continueOnFail: one error item per row, each with the same message, and still no create', async () => {
		wallet(5000);
		const run = await runCampaign(
			uniqueReference('short-cof'),
			atAmount(sheet(3), 2000),
			{},
			{
				continueOnFail: true,
			},
		);
		expect(run.posts).toBe(0);
		expect(run.main).toHaveLength(3);
		expect(run.main.map((item) => item.json.error)).toEqual([
			SHORT_BY_1000,
			SHORT_BY_1000,
			SHORT_BY_1000,
		]);
		expect(run.main.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});

	it('counts only the rows still to buy, after reconciliation: a balance of exactly their total is enough', async () => {
		wallet(5000);
		const base = uniqueReference('after-rec');
		const rows = atAmount(sheet(3), 2000);
		const first = await runCampaign(base, rows.slice(0, 2)); // 4,000 of 5,000
		expect(first.posts).toBe(1);
		// 2 rows held, 1 new of 2,000, 1,000 left: refused.
		const refused = await runCampaign(base, rows, {}, { continueOnFail: true });
		expect(refused.posts).toBe(0);
		expect(refused.json.slice(0, 2).every((row) => row.alreadyExisted === true)).toBe(true);
		expect(refused.json[2].error).toBe(
			'Nothing was bought: this run would spend NGN 2,000.00, but the NGN wallet holds NGN 1,000.00, NGN 1,000.00 short',
		);
		// The same row at 1,000: exactly the balance.
		const exact = await runCampaign(base, [...rows.slice(0, 2), { ...rows[2], amount: 1000 }]);
		expect(exact.error).toBeUndefined();
		expect(exact.posts).toBe(1);
		expect(balanceKobo()).toBe(0);
	});

	it('reads nothing when nothing is to be bought, and nothing when turned off', async () => {
		const base = uniqueReference('no-read');
		const rows = sheet(2);
		expect((await runCampaign(base, rows)).walletReads).toBe(1);
		const again = await runCampaign(base, rows);
		expect([again.posts, again.walletReads]).toEqual([0, 0]);
		wallet(10);
		const off = await runCampaign(uniqueReference('off'), atAmount(sheet(1), 5), {
			checkWallet: false,
		});
		expect([off.walletReads, off.posts]).toEqual([0, 1]);
	});

	it('with no NGN wallet, or two, the run is not blocked and a hint says why', async () => {
		wallet(50_000, ['USD']);
		const none = await runCampaign(uniqueReference('no-ngn'), atAmount(sheet(2), 1000));
		expect(none.error).toBeUndefined();
		expect(none.posts).toBe(1);
		expect(messages(none)).toEqual([
			'The wallet balance was not checked before buying: the service lists no NGN wallet (only USD). Check Wallet Balance First compares the NGN wallet only; the run went on without it.',
			expect.stringMatching(/^This run bought 2 vouchers in 1 new order for NGN 2,000\.00/),
		]);
		wallet(50_000, ['NGN', 'USD', 'NGN']);
		const two = await runCampaign(uniqueReference('two-ngn'), atAmount(sheet(2), 1000));
		expect(two.posts).toBe(1);
		expect(messages(two)).toEqual([
			expect.stringMatching(
				/^The wallet balance was not checked before buying: the service lists 2 NGN wallets/,
			),
			expect.stringMatching(/^This run bought 2 vouchers/),
		]);
	});

	it('a dry run gives the balance and the balance after, and says when a real run would be refused', async () => {
		wallet(7000);
		const covered = await runCampaign(uniqueReference('dry-ok'), atAmount(sheet(3), 2000), {
			dryRun: true,
		});
		expect(covered.posts).toBe(0);
		expect(messages(covered)).toEqual([
			'Dry run, nothing was bought: a real run would buy 3 vouchers in 1 new order for NGN 6,000.00. The NGN wallet holds NGN 7,000.00, NGN 1,000.00 after this run.',
		]);
		wallet(5000);
		const short = await runCampaign(uniqueReference('dry-short'), atAmount(sheet(3), 2000), {
			dryRun: true,
		});
		expect(short.error).toBeUndefined();
		expect(short.json.every((row) => row.dryRun === true && row.wouldBuy === true)).toBe(true);
		expect(messages(short)).toEqual([
			'Dry run, nothing was bought: a real run would buy 3 vouchers in 1 new order for NGN 6,000.00. The NGN wallet holds NGN 5,000.00, NGN 1,000.00 short: a real run would be refused and buy nothing.',
		]);
	});
});

describe('Check Wallet Balance First, on single orders (off by default)', () => {
	it('off by default: no wallet read', async () => {
		const run = await runVoucher(sandbox, create({}), { items: items(5) });
		expect(run.error).toBeUndefined();
		expect(apiRequests(sandbox, 'GET', WALLETS)).toHaveLength(0);
	});

	it('on: the total of every order to send is compared, and a short wallet sends nothing', async () => {
		wallet(5000);
		const run = await runVoucher(sandbox, create({ checkWallet: true }), {
			items: items(2000, 2000, 2000),
			continueOnFail: true,
		});
		expect(apiRequests(sandbox, 'GET', WALLETS)).toHaveLength(1);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
		expect(run.json.map((json) => json.error)).toEqual([
			SHORT_BY_1000,
			SHORT_BY_1000,
			SHORT_BY_1000,
		]);
	});
});

describe('Maximum Total per Run', () => {
	it('a campaign whose new orders would exceed it buys nothing, naming the total and the limit', async () => {
		const run = await runCampaign(uniqueReference('budget'), atAmount(sheet(3), 2000), {
			recipientsPerOrder: 2,
			maxRunTotal: 5000,
		});
		expect([run.posts, run.walletReads]).toEqual([0, 0]);
		expect(run.error?.message).toBe(
			"Item 0: not bought: the run's new orders would total NGN 6,000.00, above the maximum total per run of NGN 5,000.00",
		);
	});

	it('counts only new rows: held rows of an earlier run do not use the budget', async () => {
		const base = uniqueReference('budget-rerun');
		const rows = atAmount(sheet(4), 2000);
		expect((await runCampaign(base, rows.slice(0, 3), { maxRunTotal: 6000 })).posts).toBe(1);
		const next = await runCampaign(base, rows, { maxRunTotal: 2000 });
		expect(next.error).toBeUndefined();
		expect(next.posts).toBe(1);
		expect(campaignOrders(base)).toHaveLength(2);
	});

	it('single orders in input order: an item that would take the run past the limit gets an error and sends nothing; the others go on', async () => {
		const input = items(3000, 3000, 1000);
		const run = await runVoucher(sandbox, create({ maxRunTotal: 5000 }), {
			items: input,
			continueOnFail: true,
		});
		const posted = apiRequests(sandbox, 'POST').map((post) => (post.body as IDataObject).reference);
		expect(posted.sort()).toEqual([input[0].ref, input[2].ref].sort());
		expect(run.json[1].error).toBe(
			"Item 1: not sent: the run's new orders would total NGN 6,000.00, above the maximum total per run of NGN 5,000.00",
		);
		expect(run.json[0].reference).toBe(input[0].ref);
		expect(run.json[2].reference).toBe(input[2].ref);
	});

	it('without continueOnFail the node stops before anything is sent', async () => {
		const run = await runVoucher(sandbox, create({ maxRunTotal: 5000 }), {
			items: items(3000, 3000),
		});
		expect(run.error?.message).toMatch(
			/^Item 1: not sent: .*maximum total per run of NGN 5,000\.00/,
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});

	it('a value that is not a number refuses, naming the option, and sends nothing', async () => {
		const run = await runCampaign(uniqueReference('budget-nan'), sheet(2), {
			maxRunTotal: '={{ "5,000" }}',
		});
		expect(run.error?.message).toBe(
			`Item 0: the node's "Maximum Total per Run (NGN)" is not a number of 0 or more`,
		);
		expect(run.posts + run.gets + run.walletReads).toBe(0);
		const single = await runVoucher(sandbox, create({ maxRunTotal: 'NGN 5000' }), {
			items: items(5),
		});
		expect(single.error?.message).toMatch(/Maximum Total per Run \(NGN\)/);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});

	it('binds the node when an AI Agent runs it as a tool (each tool call is a run of its own)', async () => {
		const run = await runVoucher(sandbox, create({ maxRunTotal: 5000 }), {
			items: items(6000),
			asTool: true,
		});
		expect(run.error?.message).toMatch(
			/^Item 0: not sent: .*NGN 6,000\.00, above the maximum total per run of NGN 5,000\.00/,
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});
});

describe('Check Wallet Balance First, when the wallets are not a list', () => {
	it('buys nothing and says what came back, in shape only, rather than "no NGN wallet"', async () => {
		canned.answerWith({ wallets: [{ currency: 'NGN', balance: 1 }] });
		const run = await runVoucher(sandbox, create({ checkWallet: true }), {
			items: items(1000, 2000),
			credential: { baseUrl: canned.url },
			continueOnFail: true,
		});
		expect(canned.requests.map((request) => request.method)).toEqual(['GET']);
		expect(run.json.map((item) => item.error)).toEqual([
			"Item 0: the voucher service's wallet list is not a list: its data is an object (fields: wallets)",
			"Item 0: the voucher service's wallet list is not a list: its data is an object (fields: wallets)",
		]);
	});
});
