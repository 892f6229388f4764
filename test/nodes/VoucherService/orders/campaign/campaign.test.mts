import { describe, expect, it } from 'vitest';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { CampaignRow } from '../../../../../nodes/VoucherService/orders/types';
import { narrationHint } from '../../../../../nodes/VoucherService/orders/campaign/narrationHint';

import { campaignParameters } from '../../campaignParameters.mts';
import {
	apiRequests,
	runVoucher,
	uniqueReference,
	sandboxForThisFile,
} from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile({ processingDelayMs: 300 });

function sheet(rows: number, prefix = 'row'): IDataObject[] {
	return Array.from({ length: rows }, (_, i) => ({
		firstName: `First${i}`,
		lastName: `Last${i}`,
		email: `${prefix}${i}@example.com`,
	}));
}

const campaign = campaignParameters;

const hintsOf = (run: Awaited<ReturnType<typeof runVoucher>>) =>
	(run.run.data.resultData.runData['Node under test'][0].hints ?? []).map((hint) => hint.message);

/** Debits per reference: a second debit for one reference would be a double order. */
function debitsByReference(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const entry of sandbox.state.ledger.filter((e) => e.kind === 'debit')) {
		counts.set(entry.reference!, (counts.get(entry.reference!) ?? 0) + 1);
	}
	return counts;
}

describe('recipients from input items', () => {
	it('turns rows into orders of at most N recipients with <base>-<n> references, one output per row', async () => {
		const base = uniqueReference('camp');
		const rows = sheet(25);
		const { main, error } = await runVoucher(sandbox, campaign(base, { recipientsPerOrder: 10 }), {
			items: rows,
		});
		expect(error).toBeUndefined();
		const posts = apiRequests(sandbox, 'POST');
		expect(posts.map((p) => (p.body as IDataObject).reference)).toEqual([
			`${base}-1`,
			`${base}-2`,
			`${base}-3`,
		]);
		expect(posts.map((p) => ((p.body as IDataObject).recipients as unknown[]).length)).toEqual([
			10, 10, 5,
		]);
		expect(main).toHaveLength(25);
		main.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			expect(item.json).toMatchObject({
				email: rows[index].email,
				reference: `${base}-${Math.floor(index / 10) + 1}`,
				status: 'COMPLETED',
				alreadyExisted: false,
			});
			expect((item.json.voucher as IDataObject).status).toBe('DELIVERED');
		});
		const serials = main.map((item) => (item.json.voucher as IDataObject).serial);
		expect(new Set(serials).size).toBe(25);
	});

	it('groups rows by product, amount and template', async () => {
		const base = uniqueReference('grp');
		const rows = sheet(6).map((row, i) => ({
			...row,
			product: i % 2 ? 'VCH-AMAZON' : 'VCH-JUMIA',
		}));
		await runVoucher(sandbox, campaign(base, {}, { productCode: '={{ $json.product }}' }), {
			items: rows,
		});
		const bodies = apiRequests(sandbox, 'POST').map((p) => p.body as IDataObject);
		expect(
			bodies.map((b) => [b.reference, b.productCode, (b.recipients as unknown[]).length]),
		).toEqual([
			[`${base}-1`, 'VCH-JUMIA', 3],
			[`${base}-2`, 'VCH-AMAZON', 3],
		]);
	});

	it('makes one order per distinct narration, and says so when that makes more orders than needed', async () => {
		const base = uniqueReference('narr');
		const rows = sheet(4);
		const personal = campaign(
			base,
			{ recipientsPerOrder: 10 },
			{ additionalFields: { narration: '={{ "Hi " + $json.firstName }}' } },
		);
		const run = await runVoucher(sandbox, personal, { items: rows });
		expect(run.error).toBeUndefined();
		const bodies = apiRequests(sandbox, 'POST').map((p) => p.body as IDataObject);
		expect(
			bodies.map((b) => [b.reference, b.narration, (b.recipients as unknown[]).length]),
		).toEqual(rows.map((row, i) => [`${base}-${i + 1}`, `Hi ${row.firstName as string}`, 1]));
		expect(hintsOf(run)).toEqual([
			expect.stringMatching(
				/^Narration differs between rows, so this run makes 4 orders where 1 would do/,
			),
			expect.stringMatching(/^This run bought 4 vouchers in 4 new orders/),
		]);
	});

	it('gives no narration hint when the narration is the same on every row, or with Dry Run', async () => {
		const same = await runVoucher(
			sandbox,
			campaign(uniqueReference('narr1'), {}, { additionalFields: { narration: 'Welcome!' } }),
			{ items: sheet(3) },
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
		// No narration hint: only the run's summary.
		expect(hintsOf(same)).toEqual([
			expect.stringMatching(/^This run bought 3 vouchers in 1 new order for/),
		]);
		sandbox.reset();
		const dry = await runVoucher(
			sandbox,
			campaign(
				uniqueReference('narr2'),
				{ dryRun: true },
				{ additionalFields: { narration: '={{ $json.email }}' } },
			),
			{ items: sheet(2) },
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
		// The dry run's totals come first; the narration hint follows.
		expect(hintsOf(dry)).toEqual([
			expect.stringMatching(
				/^Dry run, nothing was bought: a real run would buy 2 vouchers in 2 new orders/,
			),
			expect.stringMatching(/makes 2 orders where 1 would do/),
		]);
	});

	it('the narration hint is data: the router shows it where n8n can', () => {
		const row = (itemIndex: number, narration: string): CampaignRow => ({
			itemIndex,
			base: 'b',
			recipient: { firstName: 'A', lastName: 'B', email: `${itemIndex}@example.com` },
			recipientKey: String(itemIndex),
			amountKobo: 100,
			orderFields: { productCode: 'P', templateId: 1, narration, couponCode: undefined },
			orderKey: narration,
		});
		expect(narrationHint([{ rows: [row(0, 'x'), row(1, 'y')], orders: 2 }], 10)?.message).toMatch(
			/makes 2 orders where 1 would do/,
		);
		expect(narrationHint([{ rows: [row(0, 'x'), row(1, 'x')], orders: 1 }], 10)).toBeUndefined();
	});

	it('reads recipient fields from other columns or expressions', async () => {
		const base = uniqueReference('map');
		const rows = [{ 'Given Name': 'Ada', Surname: 'Obi', mail: 'ADA@example.com' }];
		const { json } = await runVoucher(
			sandbox,
			campaign(
				base,
				{},
				{
					firstNameField: 'Given Name',
					lastNameField: '={{ $json.Surname }}',
					emailField: '={{ $json.mail.toLowerCase() }}',
				},
			),
			{ items: rows },
		);
		expect((apiRequests(sandbox, 'POST')[0].body as IDataObject).recipients).toEqual([
			{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' },
		]);
		expect(json[0]).toMatchObject({ email: 'ada@example.com', status: 'COMPLETED' });
	});

	it('reports a bad row on its own item and still orders the valid rows (continueOnFail)', async () => {
		const base = uniqueReference('bad');
		const rows = sheet(4);
		rows[2].email = 'not-an-email';
		const { main, items } = await runVoucher(sandbox, campaign(base), {
			items: rows,
			onError: 'continueErrorOutput',
		});
		expect(main.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 3 }]);
		expect(items[1]).toHaveLength(1);
		expect(items[1][0].pairedItem).toEqual({ item: 2 });
		expect(String(items[1][0].json.error)).toMatch(/^Item 2: invalid "email"/);
		const [post] = apiRequests(sandbox, 'POST');
		expect(((post.body as IDataObject).recipients as IDataObject[]).map((r) => r.email)).toEqual([
			'row0@example.com',
			'row1@example.com',
			'row3@example.com',
		]);
	});

	it('refuses the whole sheet before sending anything when a row is bad and continueOnFail is off', async () => {
		const rows = sheet(4);
		rows[3].lastName = '';
		const { error } = await runVoucher(sandbox, campaign(uniqueReference('strict')), {
			items: rows,
		});
		expect(error?.message).toMatch(/^Item 3: invalid "lastName"/);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('pairs every one of 1,000 rows to its own output item', async () => {
		const base = uniqueReference('k');
		const rows = sheet(1000);
		const { main } = await runVoucher(sandbox, campaign(base), { items: rows });
		expect(main).toHaveLength(1000);
		main.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			expect(item.json.email).toBe(rows[index].email);
		});
		expect(apiRequests(sandbox, 'POST')).toHaveLength(10);
	});
});

describe('safe create: no double orders', () => {
	it('fault run: 300 orders under 30% 5xx, resets and commit-then-drop: exactly one order each', async () => {
		const base = uniqueReference('fault');
		const rows = sheet(300);
		sandbox.configure({
			faults: {
				errorRate: 0.1,
				resetRate: 0.1,
				commitThenDropRate: 0.1,
				seed: 4231,
				paths: ['/v2/orders'],
			},
		});
		try {
			const { main, error } = await runVoucher(
				sandbox,
				campaign(base, { recipientsPerOrder: 1, concurrency: 8 }),
				{
					items: rows,
				},
			);
			expect(error).toBeUndefined();
			const faults = sandbox.state.requests.filter((r) => r.fault);
			expect(
				faults.filter((r) => r.fault === 'commitThenDrop' && r.method === 'POST').length,
			).toBeGreaterThan(10);
			expect(faults.filter((r) => r.fault === 'reset').length).toBeGreaterThan(10);
			expect(faults.filter((r) => r.fault === 'error').length).toBeGreaterThan(10);

			const debits = debitsByReference();
			const expected = rows.map((_, i) => `${base}-${i + 1}`);
			expect([...debits.keys()].sort()).toEqual([...expected].sort());
			expect([...debits.values()].every((count) => count === 1)).toBe(true);
			main.forEach((item, index) => {
				const order = sandbox.state.orders.get(`${base}-${index + 1}`)!;
				expect(item.json).toMatchObject({
					reference: order.reference,
					orderNumber: order.orderNumber,
					status: order.status,
				});
				expect(item.pairedItem).toEqual({ item: index });
			});
			// Each order was sent by this run, also the ones whose answer was dropped and found by look-up.
			expect(main.every((item) => item.json.alreadyExisted === false)).toBe(true);
		} finally {
			sandbox.configure({ faults: {} });
		}
	}, 180_000);

	it('never sends a create again while the look-up after a dropped create cannot be answered', async () => {
		// Every /v2/orders request is committed (if it is a create) and then dropped, look-ups included.
		sandbox.configure({ faults: { commitThenDropRate: 1, seed: 7, paths: ['/v2/orders'] } });
		const reference = uniqueReference('drop');
		try {
			const { json, error, main } = await runVoucher(
				sandbox,
				{
					resource: 'order',
					operation: 'create',
					reference,
					productCode: 'VCH-INSTANT',
					amount: 5,
					quantity: 2,
				},
				{ continueOnFail: true },
			);
			expect(error).toBeUndefined();
			// Not "not bought": the create may have gone through, so the same Reference is the way on.
			expect(json[0].error).toBe(`Item 0: whether order "${reference}" was bought is unknown`);
			expect(String(main[0].error?.description)).toMatch(
				/look-up that would tell got "Could not reach the voucher service/,
			);
			expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
			expect(apiRequests(sandbox, 'GET').length).toBeGreaterThan(1);
			expect(debitsByReference().get(reference)).toBe(1);
		} finally {
			sandbox.configure({ faults: {} });
		}
		const rerun = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 5,
			quantity: 2,
		});
		expect(rerun.json[0]).toMatchObject({ reference, alreadyExisted: true, status: 'COMPLETED' });
		expect(debitsByReference().get(reference)).toBe(1);
	});

	it('an order found after its own dropped answer is not reported as bought by an earlier run', async () => {
		const reference = uniqueReference('dropped');
		const params = {
			resource: 'order',
			operation: 'createForRecipients',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 5,
			templateId: 1,
			recipientsSource: 'manual',
			recipients: { recipient: [{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' }] },
		};
		// Only the create is committed and then dropped; the look-ups are answered.
		sandbox.configure({ faults: { commitThenDropRate: 1, paths: ['/v2/orders/recipients'] } });
		try {
			const { json, error } = await runVoucher(sandbox, params);
			expect(error).toBeUndefined();
			expect(json[0]).toMatchObject({ reference, alreadyExisted: false });
			expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
		} finally {
			sandbox.configure({ faults: {} });
		}
		const rerun = await runVoucher(sandbox, params);
		expect(rerun.json[0]).toMatchObject({ reference, alreadyExisted: true });
		expect(debitsByReference().get(reference)).toBe(1);
	});

	it('"If Reference Exists: Fail" refuses a reference used before, and buys nothing', async () => {
		const reference = uniqueReference('exists');
		const params = {
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 5,
			quantity: 1,
		};
		await runVoucher(sandbox, params);
		const { error } = await runVoucher(sandbox, {
			...params,
			options: { ifReferenceExists: 'fail' },
		});
		expect(error?.message).toContain(`an order with reference "${reference}" already exists`);
		expect(debitsByReference().get(reference)).toBe(1);
		const again = await runVoucher(sandbox, params);
		expect(again.json[0]).toMatchObject({ reference, alreadyExisted: true });
	});
});

describe('create and wait', () => {
	it.each([
		['VCH-SLOW-COMPLETED', 'COMPLETED'],
		['VCH-SLOW-PARTIAL', 'PARTIALLY_COMPLETED'],
		['VCH-SLOW-FAILED', 'FAILED'],
		['VCH-SLOW-CANCELED', 'CANCELED'],
	])('%s: waits for %s', async (productCode, finalStatus) => {
		const { json, error } = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'createForRecipients',
			reference: uniqueReference('wait'),
			productCode,
			amount: 100,
			templateId: 2,
			recipients: {
				recipient: [
					{ firstName: 'A', lastName: 'One', email: 'a1@example.com' },
					{ firstName: 'B', lastName: 'Two', email: 'b2@example.com' },
				],
			},
			options: { waitForCompletion: true, waitTimeoutSeconds: 20 },
		});
		expect(error).toBeUndefined();
		expect(json[0].status).toBe(finalStatus);
		expect(json[0].waitTimedOut).toBeUndefined();
		if (finalStatus === 'PARTIALLY_COMPLETED') {
			const statuses = (json[0].vouchers as IDataObject[]).map((v) => v.status);
			expect(statuses).toContain('DELIVERED');
			expect(statuses).toContain('FAILED');
		}
		expect(apiRequests(sandbox, 'GET').length).toBeGreaterThanOrEqual(1);
	});

	it('on timeout returns the PROCESSING order, flagged, without failing', async () => {
		sandbox.configure({ processingDelayMs: 60_000 });
		try {
			const { json, error } = await runVoucher(sandbox, {
				resource: 'order',
				operation: 'create',
				reference: uniqueReference('timeout'),
				productCode: 'VCH-SLOW-COMPLETED',
				amount: 100,
				quantity: 1,
				options: { waitForCompletion: true, waitTimeoutSeconds: 1 },
			});
			expect(error).toBeUndefined();
			expect(json[0]).toMatchObject({
				status: 'PROCESSING',
				waitTimedOut: true,
				vouchersPending: true,
			});
		} finally {
			sandbox.configure({ processingDelayMs: 300 });
		}
	});
});

describe('spending guard', () => {
	const order = (amount: number, quantity: number, options: INodeParameters = {}) => ({
		resource: 'order',
		operation: 'create',
		reference: uniqueReference('guard'),
		productCode: 'VCH-INSTANT',
		amount,
		quantity,
		options,
	});

	it('refuses totals above the credential limit, computed in kobo, with 0 requests', async () => {
		const credential = { maxOrderTotal: 0.3 };
		const over = await runVoucher(sandbox, order(0.1, 4), { credential });
		expect(over.error?.message).toMatch(
			/order total NGN 0\.40 is above the maximum order total of NGN 0\.30/,
		);
		expect(apiRequests(sandbox)).toHaveLength(0);
		// 0.1 × 3 is 0.30000000000000004 in floating point; in kobo it is exactly the limit.
		const atLimit = await runVoucher(sandbox, order(0.1, 3), { credential });
		expect(atLimit.error).toBeUndefined();
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
	});

	it('the tighter of node and credential limits applies, also to recipient orders', async () => {
		const { error } = await runVoucher(
			sandbox,
			campaign(uniqueReference('g'), { maxOrderTotal: 2500 }),
			{ items: sheet(3), credential: { maxOrderTotal: 1_000_000 } },
		);
		expect(error?.message).toMatch(
			/NGN 3,000\.00 is above the maximum order total of NGN 2,500\.00/,
		);
		// Only the look-ups that find the campaign's existing orders were sent.
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});
});

describe('concurrency', () => {
	it('keeps output order equal to input order while requests overlap', async () => {
		// The wallet read goes alone (the pacing's start), then creates two at once: the sandbox
		// holds those two until both have come, so requests overlap for certain, at any speed.
		sandbox.configure({ createBarrier: { creates: 2 } });
		try {
			const references = Array.from({ length: 12 }, () => uniqueReference('conc'));
			const { json } = await runVoucher(
				sandbox,
				{
					resource: 'order',
					operation: 'create',
					reference: '={{ $json.ref }}',
					productCode: 'VCH-INSTANT',
					amount: 1,
					quantity: 1,
					options: { concurrency: 4, checkWallet: true },
				},
				{ items: references.map((ref) => ({ ref })) },
			);
			expect(json.map((row) => row.reference)).toEqual(references);
			// The barrier let its two through together: none was refused for waiting alone.
			expect(sandbox.state.requests.filter((r) => r.fault === 'barrier')).toEqual([]);
		} finally {
			sandbox.configure({ createBarrier: null });
		}
	});
});
