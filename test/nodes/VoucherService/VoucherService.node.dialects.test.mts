/**
 * The core flows against every dialect the sandbox speaks (sandbox/dialect.mts): each keeps
 * every promise, judged from the sandbox's own books, or fails with an error naming the item
 * and the Reference. What the package does under each reading is in docs/api.md.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { INodeParameters } from 'n8n-workflow';

import { readOrder } from '../../../nodes/VoucherService/orders/lookup';
import { checkWallet } from '../../../nodes/VoucherService/orders/core/walletCheck';
import type { VoucherApiClient } from '../../../nodes/VoucherService/transport/client';
import { DIALECTS, isBare404, opaqueTemplateId } from '../../../sandbox/dialect.mts';
import { campaignSandboxForThisFile, sheet } from './campaignRuns.mts';
import { runVoucher, uniqueReference } from './voucherNodeRunner.mts';

const {
	sandbox,
	runCampaign,
	racing,
	createsOf,
	campaignOrders,
	expectEveryRowHeldOnce,
	expectOneDebitPerOrder,
} = await campaignSandboxForThisFile();

const ordersUnder = (reference: string) =>
	[...sandbox.state.orders.values()].filter((order) => order.reference === reference);
const debitsOf = (reference: string) =>
	sandbox.state.ledger.filter((entry) => entry.kind === 'debit' && entry.reference === reference);

const download = (reference: string, options: INodeParameters = {}): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference,
	productCode: 'VCH-INSTANT',
	amount: 1000,
	quantity: 2,
	options,
});

const forRecipients = (reference: string, templateId: number | string): INodeParameters => ({
	resource: 'order',
	operation: 'createForRecipients',
	recipientsSource: 'manual',
	reference,
	productCode: 'VCH-INSTANT',
	amount: 500,
	templateId,
	recipients: {
		recipient: [
			{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' },
			{ firstName: 'Femi', lastName: 'Bello', email: 'femi@example.com' },
		],
	},
});

const getOrder = (reference: string): INodeParameters => ({
	resource: 'order',
	operation: 'get',
	reference,
});

describe.each(Object.entries(DIALECTS))('dialect %s', (_, dialect) => {
	const opaque = dialect.templateIds === 'opaque';
	/** The template the sandbox lists first, as this dialect lists it. */
	const template = opaque ? opaqueTemplateId('1') : 1;
	/** A create answered with the existing order cannot be told from a new one (docs/api.md). */
	const rerunSaysAlreadyExisted = dialect.duplicateReference !== 'existingOrder200';

	beforeEach(() => sandbox.configure({ dialect }));
	/** The 429s this dialect's flows met: under a rate limit, the flows above held through them. */
	const refused = new Set<object>();
	afterEach(() => {
		for (const entry of sandbox.state.requests) if (entry.status === 429) refused.add(entry);
	});

	it('a download order, then its re-run: one order, re-run buys nothing', async () => {
		const reference = uniqueReference('dl');
		const first = await runVoucher(sandbox, download(reference));
		expect(first.error).toBeUndefined();
		expect(first.json[0]).toMatchObject({ reference, status: 'COMPLETED', alreadyExisted: false });
		const vouchers = first.json[0].vouchers as Array<{ value: unknown }>;
		expect(vouchers.map((voucher) => voucher.value)).toEqual([1000, 1000]);

		const again = await runVoucher(sandbox, download(reference));
		expect(again.error).toBeUndefined();
		expect(again.json[0]).toMatchObject({
			reference,
			orderNumber: first.json[0].orderNumber,
			status: 'COMPLETED',
			alreadyExisted: rerunSaysAlreadyExisted,
		});
		expect(ordersUnder(reference)).toHaveLength(1);
		expect(debitsOf(reference)).toHaveLength(1);
	});

	it('a re-run with "If Reference Exists: Fail" is refused naming the Reference', async () => {
		const reference = uniqueReference('fail');
		await runVoucher(sandbox, download(reference));
		const again = await runVoucher(sandbox, download(reference, { ifReferenceExists: 'fail' }));
		expect(again.error?.message).toBe(
			`Item 0: an order with reference "${reference}" already exists`,
		);
		expect(debitsOf(reference)).toHaveLength(1);
	});

	it('download orders whose answers are lost, before or after buying: each bought once', async () => {
		const references = Array.from({ length: 8 }, () => uniqueReference('rst'));
		sandbox.configure({ faults: { resetRate: 0.2, commitThenDropRate: 0.2, seed: 7 } });
		try {
			const run = await runVoucher(
				sandbox,
				{ ...download('={{ $json.reference }}'), quantity: 1 },
				{ items: references.map((reference) => ({ reference })) },
			);
			expect(run.error).toBeUndefined();
			expect(run.json.map((json) => json.reference)).toEqual(references);
			// Creates met both losses, so look-ups answered both "not found" and the order.
			const faults = sandbox.state.requests
				.filter((request) => request.method === 'POST')
				.map((request) => request.fault);
			expect(faults).toContain('reset');
			expect(faults).toContain('commitThenDrop');
		} finally {
			sandbox.configure({ faults: {} });
		}
		for (const reference of references) expect(debitsOf(reference), reference).toHaveLength(1);
	});

	it.runIf(opaque)(
		'a template id that is not a number: refused before anything is sent',
		async () => {
			const reference = uniqueReference('opq');
			const run = await runVoucher(sandbox, forRecipients(reference, template));
			const refusal = `Template ID "${template}" is not a whole number, and an order takes a numeric template ID`;
			expect(run.error?.message).toBe(`Item 0: invalid "templateId": ${refusal}`);
			const campaign = await runCampaign(
				uniqueReference('opq'),
				sheet(2),
				{},
				{
					extra: { templateId: template },
					continueOnFail: true,
				},
			);
			expect(campaign.json.map((row) => row.error)).toEqual(
				[0, 1].map((item) => `Item ${item}: invalid "templateId": ${refusal}`),
			);
			expect(campaign.posts + campaign.gets).toBe(0);
			expect(ordersUnder(reference)).toHaveLength(0);
		},
	);

	it.runIf(!opaque)(
		"a recipient order: one voucher per recipient, statuses in the spec's case",
		async () => {
			const reference = uniqueReference('rc');
			const run = await runVoucher(sandbox, forRecipients(reference, template));
			expect(run.error).toBeUndefined();
			expect(run.json[0]).toMatchObject({ reference, status: 'COMPLETED', alreadyExisted: false });
			const vouchers = run.json[0].vouchers as Array<{ status: unknown; email: unknown }>;
			expect(vouchers.map((voucher) => [voucher.email, voucher.status])).toEqual([
				['ada@example.com', 'DELIVERED'],
				['femi@example.com', 'DELIVERED'],
			]);
			expect(ordersUnder(reference)[0].templateId).toBe(template);
			const again = await runVoucher(sandbox, forRecipients(reference, template));
			expect(again.json[0]).toMatchObject({ alreadyExisted: rerunSaysAlreadyExisted });
			expect(debitsOf(reference)).toHaveLength(1);
		},
	);

	it("a template that is not the client's: refused naming the item and Reference", async () => {
		const reference = uniqueReference('tpl');
		const run = await runVoucher(sandbox, forRecipients(reference, 3));
		expect(run.error?.message).toBe(
			`Item 0: the voucher service refused order "${reference}": Invalid template: 3 (code 05)`,
		);
		expect(ordersUnder(reference)).toHaveLength(0);
	});

	it('Get Order: a known order as the spec shapes it, an unknown one "not found"', async () => {
		const reference = uniqueReference('get');
		await runVoucher(sandbox, download(reference));
		const known = await runVoucher(sandbox, getOrder(reference));
		expect(known.error).toBeUndefined();
		expect(known.json[0]).toMatchObject({ reference, status: 'COMPLETED' });
		const missing = uniqueReference('none');
		const unknown = await runVoucher(sandbox, getOrder(missing));
		expect(unknown.error?.message).toBe(`Order ${missing} not found`);
	});

	it.runIf(!opaque)(
		'a 10-row campaign, then its re-run: one voucher per row, re-run buys nothing',
		async () => {
			const base = uniqueReference('cmp');
			const rows = sheet(10);
			const extra = { templateId: template };
			const first = await runCampaign(base, rows, {}, { extra });
			expect(first.error).toBeUndefined();
			expect(first.json).toHaveLength(10);
			expect(first.json.every((row) => row.alreadyExisted === false)).toBe(true);
			expectEveryRowHeldOnce(base, rows);
			expectOneDebitPerOrder(base);
			const orders = campaignOrders(base).length;

			const again = await runCampaign(base, rows, {}, { extra });
			expect(again.error).toBeUndefined();
			expect(again.posts).toBe(0);
			expect(again.json.every((row) => row.alreadyExisted === true)).toBe(true);
			expect(again.json.map((row) => row.status)).toEqual(Array(10).fill('COMPLETED'));
			expect(campaignOrders(base)).toHaveLength(orders);
			expectEveryRowHeldOnce(base, rows);
		},
	);

	it.runIf(!opaque)(
		'a campaign by Row ID, two runs at once over overlapping pages: each row bought once',
		async () => {
			const base = uniqueReference('pg');
			const rows = sheet(250).map((row, id) => ({ ...row, id }));
			const extra = { templateId: template, rowIdField: 'id' };
			// Both runs read every block before either creates (one create at a time per run), so
			// both send the first order of block 0: this dialect's answer to the second is met.
			const options = { concurrency: 1 };
			const [a, b] = await racing(
				() => runCampaign(base, rows.slice(0, 200), options, { extra, continueOnFail: true }),
				() => runCampaign(base, rows.slice(50), options, { extra, continueOnFail: true }),
			);
			// Both runs sent it (the race happened); a rate limit's refusals may add a resend.
			expect(createsOf().get(`${base}-k0-n1`)).toBeGreaterThanOrEqual(2);
			// A create answered with the other run's order of other rows cannot be told from an
			// order made wrongly: those rows fail, and so do the block's later orders (not sent); nothing
			// is doubled, and the re-run below buys them.
			for (const run of [a, b]) {
				for (const row of run.json.filter((r) => r.error))
					expect(String(row.error)).toMatch(
						/which is not what this item asks for|was not sent, because order \S+ failed first/,
					);
			}
			if (rerunSaysAlreadyExisted)
				expect([...a.json, ...b.json].filter((r) => r.error)).toEqual([]);
			const again = await runCampaign(base, rows, {}, { extra });
			expect(again.error).toBeUndefined();
			expectEveryRowHeldOnce(base, rows);
			expectOneDebitPerOrder(base);
		},
		// Under the fixed-window dialect (10 requests a second) each run's reads take seconds.
		180_000,
	);

	it.runIf(!opaque)('a campaign dearer than the NGN wallet: refused, nothing bought', async () => {
		sandbox.configure({ initialBalanceNgn: 5_000 });
		sandbox.reset();
		try {
			const base = uniqueReference('wal');
			const run = await runCampaign(
				base,
				sheet(10),
				{ checkWallet: true },
				{ extra: { templateId: template }, continueOnFail: true },
			);
			// Under a bare 404 the first 404 of discovery also reads the wallets, to trust it.
			expect(run.walletReads).toBe(isBare404(dialect) ? 2 : 1);
			expect(run.posts).toBe(0);
			expect(run.json).toHaveLength(10);
			for (const row of run.json)
				expect(row.error).toMatch(/^Nothing was bought: this run would spend NGN 16,000\.00/);
			expect(campaignOrders(base)).toHaveLength(0);
		} finally {
			sandbox.configure({ initialBalanceNgn: 50_000_000 });
		}
	});

	it('met 429s only under a rate limit', () => {
		expect(refused.size > 0).toBe(dialect.rateLimit !== undefined);
	});
});

describe('readings beside the dialects', () => {
	beforeEach(() => sandbox.configure({ dialect: {} }));

	it('a base URL that misses the service: its 404s are not "not found", nothing is bought', async () => {
		sandbox.configure({ dialect: DIALECTS.unknownOrder404Text });
		const credential = { baseUrl: `${sandbox.url}/api` };
		const reference = uniqueReference('url');
		const get = await runVoucher(sandbox, getOrder(reference), { credential });
		expect(get.error?.message).toBe(
			`Item 0: order "${reference}" could not be looked up: the base URL answers HTTP 404 to the wallets too`,
		);
		const create = await runVoucher(sandbox, download(reference), { credential });
		expect(create.error?.message).toMatch(/not found \(HTTP 404\)/);
		const campaign = await runCampaign(
			uniqueReference('url'),
			sheet(2),
			{},
			{
				credential,
				continueOnFail: true,
			},
		);
		expect(campaign.json.map((row) => String(row.error))).toEqual([
			expect.stringMatching(/could not be looked up: the base URL answers HTTP 404/),
			expect.stringMatching(/could not be looked up: the base URL answers HTTP 404/),
		]);
		expect(sandbox.state.orders.size).toBe(0);
	});

	it('a create answered with an existing order of another request: never handed out as bought', async () => {
		sandbox.configure({ dialect: DIALECTS.duplicateExisting });
		const reference = uniqueReference('reuse');
		await runVoucher(sandbox, download(reference));
		const other = await runVoucher(sandbox, { ...download(reference), quantity: 3 });
		expect(other.error?.message).toMatch(
			new RegExp(
				`^Item 0: the service answered the create of "${reference}" with order \\S+, which is not what this item asks for$`,
			),
		);
		expect(other.error?.description).toMatch(/it has 2 vouchers, this item asks for 3/);
		expect(debitsOf(reference)).toHaveLength(1);
	});

	it.each([['text'], ['envelope']] as const)(
		'error bodies as %s: the HTTP status decides what the error says',
		async (errorBodies) => {
			sandbox.configure({ dialect: { errorBodies } });
			const status = { resource: 'voucher', operation: 'getStatus', voucherCode: 'NOPE-1' };
			expect((await runVoucher(sandbox, status)).error?.message).toBe('Voucher not found');
			const wallets = { resource: 'wallet', operation: 'getAll' };
			const badKeys = await runVoucher(sandbox, wallets, { credential: { secretKey: 'wrong' } });
			expect(badKeys.error?.message).toBe('The voucher service refused the credentials (HTTP 401)');
			const { publicKey, secretKey } = sandbox.forbiddenKeys;
			const forbidden = await runVoucher(sandbox, wallets, {
				credential: { publicKey, secretKey },
			});
			expect(forbidden.error?.message).toBe(
				'The voucher service denied permission for this call (HTTP 403)',
			);
		},
	);

	const order = (vouchers: unknown[]) => ({
		orderNumber: 'O-1',
		reference: 'ref-1',
		status: 'partially_completed',
		vouchers,
	});

	it("orders: decimal text read as numbers, statuses in the spec's case", () => {
		const reading = readOrder(
			order([
				{ value: '1000.50', serial: '7000000000001', status: 'delivered' },
				{ value: 20, serial: '123456789012345678901', status: null },
			]),
			'ref-1',
		);
		expect(reading).toEqual({
			order: {
				...order([
					{ value: 1000.5, serial: 7000000000001, status: 'DELIVERED' },
					// A serial past 2^53 would lose digits as a number: kept exactly as sent.
					{ value: 20, serial: '123456789012345678901', status: null },
				]),
				status: 'PARTIALLY_COMPLETED',
			},
		});
	});

	it.each([['1,000.00'], ['NGN 1000'], [''], [true], ['1e3']])(
		'a voucher value %j is an error naming the order, never a guess',
		(value) => {
			expect(readOrder(order([{ value: 5 }, { value }]), 'ref-1')).toEqual({
				problem: `cannot be read: voucher 2's value ${JSON.stringify(value)} is not a number`,
				why: `Order O-1: voucher 2's value ${JSON.stringify(value)} is not a number.`,
			});
		},
	);

	const walletClient = (balance: unknown) =>
		({
			node: { name: 'Voucher Service' },
			request: async () => [{ currency: 'NGN', balance }],
		}) as unknown as VoucherApiClient;

	it.each([
		['30000.00', 'short'],
		['30000.01', 'covered'],
		[30000, 'short'],
	])('an NGN balance of %j is read strictly', async (balance, kind) => {
		expect(await checkWallet(walletClient(balance), 3_000_001, 0)).toMatchObject({ kind });
	});

	it.each([['30,000.00'], ['about 30000'], [null]])(
		'an NGN balance of %j refuses the run instead of buying unchecked',
		async (balance) => {
			await expect(checkWallet(walletClient(balance), 100, 3)).rejects.toThrow(
				`The NGN wallet's balance ${JSON.stringify(balance)} is not a number, so nothing was bought`,
			);
		},
	);
});
