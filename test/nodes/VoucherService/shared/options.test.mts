/**
 * Boolean options as users send them: a sheet's TRUE, an expression's "true", a toggle's
 * true. true and false in any case, as text or boolean, mean what they say; anything else is
 * an error naming the item and the option, and nothing is sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { WALLETS, campaignSandboxForThisFile, sheet } from '../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../voucherNodeRunner.mts';

const { sandbox, runCampaign } = await campaignSandboxForThisFile();

afterEach(() => sandbox.configure({ initialBalanceNgn: 50_000_000 }));

const create = (options: INodeParameters, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference: '={{ $json.ref }}',
	productCode: 'VCH-INSTANT',
	amount: 1000,
	quantity: 1,
	options,
	...extra,
});

/** One item per value, each under its own Reference, the value in the column `flag`. */
const rows = (...values: unknown[]): IDataObject[] =>
	values.map((flag) => ({ ref: uniqueReference('flag'), flag: flag as IDataObject[string] }));

const posted = () =>
	apiRequests(sandbox, 'POST').map((entry) => (entry.body as { reference: string }).reference);

describe('Dry Run from a sheet or an expression', () => {
	it('TRUE, "true", " True " and true preview; FALSE, "false" and false buy', async () => {
		const items = rows('TRUE', 'true', ' True ', true, 'FALSE', 'false', false);
		const run = await runVoucher(sandbox, create({ dryRun: '={{ $json.flag }}' }), { items });
		expect(run.error).toBeUndefined();
		expect(run.json.map((item) => item.dryRun === true)).toEqual([
			true,
			true,
			true,
			true,
			false,
			false,
			false,
		]);
		expect(posted()).toEqual(items.slice(4).map((item) => item.ref));
	});

	it.each([
		['"yes"', 'yes', '"yes"'],
		['1', 1, '"1"'],
		['0', 0, '"0"'],
		['an empty cell', '', '""'],
		['"on"', 'on', '"on"'],
		['null', null, '"null"'],
	])(
		'%s: an error naming the item and the option, and nothing sent',
		async (_what, flag, shown) => {
			// Item 0 would buy: the bad item 1 stops the node before anything is sent.
			const items = rows(false, flag);
			const run = await runVoucher(sandbox, create({ dryRun: '={{ $json.flag }}' }), { items });
			expect(run.error?.message).toBe('Item 1: the option "Dry Run" must be true or false');
			expect(run.error?.description).toBe(`It is ${shown}. Nothing was sent.`);
			expect(apiRequests(sandbox)).toHaveLength(0);
		},
	);

	it('a column the item lacks: an error, not a purchase', async () => {
		const run = await runVoucher(sandbox, create({ dryRun: '={{ $json["Dry Run"] }}' }), {
			items: rows(true),
		});
		expect(run.error?.message).toBe('Item 0: the option "Dry Run" must be true or false');
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('under continueOnFail: the bad item fails, paired; the others go on as they say', async () => {
		const items = rows('TRUE', 'maybe', 'false');
		const run = await runVoucher(sandbox, create({ dryRun: '={{ $json.flag }}' }), {
			items,
			continueOnFail: true,
		});
		expect(run.main.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(run.json[0].dryRun).toBe(true);
		expect(run.json[1].error).toBe('Item 1: the option "Dry Run" must be true or false');
		expect(posted()).toEqual([items[2].ref]);
	});

	it('a campaign whose Dry Run comes as "TRUE" buys nothing', async () => {
		const run = await runCampaign(uniqueReference('dry'), sheet(3), { dryRun: '={{ "TRUE" }}' });
		expect(run.error).toBeUndefined();
		expect(run.posts).toBe(0);
		expect(run.json.every((item) => item.dryRun === true)).toBe(true);
	});
});

describe('Wait for Completion and Check Wallet Balance First from expressions', () => {
	it('Wait for Completion "TRUE" waits for the final status', async () => {
		const run = await runVoucher(
			sandbox,
			create({ waitForCompletion: '={{ $json.flag }}' }, { productCode: 'VCH-SLOW-COMPLETED' }),
			{ items: rows('TRUE') },
		);
		expect(run.error).toBeUndefined();
		expect(run.json[0].status).toBe('COMPLETED');
	});

	it('Check Wallet Balance First "True" reads the wallet and buys nothing it does not cover', async () => {
		sandbox.configure({ initialBalanceNgn: 500 });
		sandbox.reset();
		const run = await runVoucher(sandbox, create({ checkWallet: '={{ "True" }}' }), {
			items: rows(true),
		});
		expect(run.error?.message).toMatch(/^Nothing was bought: this run would spend NGN 1,000\.00/);
		expect(apiRequests(sandbox, 'GET', WALLETS)).toHaveLength(1);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});

	it('Check Wallet Balance First "FALSE" on a campaign (on by default) turns it off', async () => {
		const run = await runCampaign(uniqueReference('nocheck'), sheet(2), {
			checkWallet: '={{ "FALSE" }}',
		});
		expect(run.error).toBeUndefined();
		expect(run.walletReads).toBe(0);
		// Two amounts, two orders.
		expect(run.posts).toBe(2);
	});

	it.each([
		['Wait for Completion', { waitForCompletion: '={{ "yes" }}' }],
		['Check Wallet Balance First', { checkWallet: '={{ 1 }}' }],
	])('%s that is not true or false: an error naming it, nothing sent', async (label, options) => {
		const run = await runVoucher(sandbox, create(options), { items: rows(true) });
		expect(run.error?.message).toBe(`Item 0: the option "${label}" must be true or false`);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('a campaign\'s Check Wallet Balance First "no": an error, nothing sent', async () => {
		const run = await runCampaign(uniqueReference('badcheck'), sheet(2), {
			checkWallet: '={{ "no" }}',
		});
		expect(run.error?.message).toBe(
			'Item 0: the option "Check Wallet Balance First" must be true or false',
		);
		expect(run.posts + run.gets + run.walletReads).toBe(0);
	});
});

describe('Give Codes to the AI Agent from an expression', () => {
	const buy = (give: string) =>
		create({}, { reference: uniqueReference('tool'), giveCodesToAgent: give });

	it('"TRUE" gives the agent the codes', async () => {
		const run = await runVoucher(sandbox, buy('={{ "TRUE" }}'), { asTool: true });
		expect(run.error).toBeUndefined();
		expect(run.json[0].codesWithheld).toBeUndefined();
		expect((run.json[0].vouchers as IDataObject[])[0].code).toEqual(expect.any(String));
	});

	it('"sure": an error naming the option, nothing bought', async () => {
		const run = await runVoucher(sandbox, buy('={{ "sure" }}'), { asTool: true });
		expect(run.error?.message).toBe(
			'Item 0: the option "Give Codes to the AI Agent" must be true or false',
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});
});
