/**
 * One Reference, one request: the flows a new user builds first, judged from the sandbox's
 * own books (orders under the reference, POSTs received, the ledger).
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { asOrder } from '../../../../../nodes/VoucherService/orders/lookup';
import type { VoucherApiClient } from '../../../../../nodes/VoucherService/transport/client';
import { campaignParameters } from '../../campaignParameters.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile({ processingDelayMs: 300 });

const ordersUnder = (reference: string) =>
	[...sandbox.state.orders.values()].filter((order) => order.reference === reference);

const spentKobo = async (run: () => Promise<unknown>) => {
	const before = sandbox.state.ledger.at(-1)?.balanceAfterKobo ?? 0;
	await run();
	return before - (sandbox.state.ledger.at(-1)?.balanceAfterKobo ?? 0);
};

const download = (reference: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference,
	productCode: 'VCH-INSTANT',
	amount: '={{ $json.amount ?? 1000 }}',
	quantity: 1,
	...extra,
});

/** Create for Recipients → Enter Below, one recipient mapped from each row: the easy wiring. */
const perRowRecipient = (reference: string, options: INodeParameters = {}): INodeParameters => ({
	resource: 'order',
	operation: 'createForRecipients',
	recipientsSource: 'manual',
	reference,
	productCode: 'VCH-INSTANT',
	amount: 1000,
	templateId: 1,
	recipients: {
		recipient: [
			{
				firstName: '={{ $json.first }}',
				lastName: '={{ $json.last }}',
				email: '={{ $json.email }}',
			},
		],
	},
	options,
});

const people = [
	{ first: 'Ada', last: 'Obi', email: 'ada@example.com' },
	{ first: 'Bola', last: 'Ade', email: 'bola@example.com' },
	{ first: 'Chi', last: 'Eze', email: 'chi@example.com' },
];

const errorOf = (json: IDataObject) => String(json.error ?? '');

/** An error item's description, which n8n keeps on the item's error, not in its JSON. */
const descriptionOf = (run: Awaited<ReturnType<typeof runVoucher>>, index: number) =>
	String(run.main[index].error?.description ?? '');

describe('one Reference on several items of a run', () => {
	it('recipients mapped per row with a fixed Reference: the first row is bought, each other row is an error naming both items', async () => {
		const reference = uniqueReference('fixed');
		const run = await runVoucher(sandbox, perRowRecipient(reference), {
			items: people,
			continueOnFail: true,
		});
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
		expect(ordersUnder(reference)).toHaveLength(1);
		expect(run.json[0]).toMatchObject({ reference, status: 'COMPLETED' });
		expect(errorOf(run.json[1])).toBe(
			`Item 1: reference "${reference}" is already used by item 0 of this run`,
		);
		expect(errorOf(run.json[2])).toBe(
			`Item 2: reference "${reference}" is already used by item 0 of this run`,
		);
		expect(descriptionOf(run, 1)).toMatch(/From Input Items/);
		expect(descriptionOf(run, 1)).toContain("{{ 'welcome-' + $json.email }}");
		expect(run.main.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});

	it('the same in a Dry Run: the repeats are errors, nothing is sent, and the hint counts one order', async () => {
		const reference = uniqueReference('fixed-dry');
		const run = await runVoucher(sandbox, perRowRecipient(reference, { dryRun: true }), {
			items: people,
			continueOnFail: true,
		});
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
		expect(run.json[0]).toMatchObject({ dryRun: true, wouldBuy: true });
		expect(errorOf(run.json[1])).toMatch(/^Item 1: reference ".*" is already used by item 0/);
		expect(errorOf(run.json[2])).toMatch(/^Item 2: reference ".*" is already used by item 0/);
		const hint = run.run.data.resultData.runData['Node under test'][0].hints?.[0]?.message;
		expect(hint).toMatch(/buy 1 voucher in 1 new order for NGN 1,000\.00/);
	});

	it('without Continue On Fail the node stops before sending anything', async () => {
		const reference = uniqueReference('fixed-stop');
		const run = await runVoucher(sandbox, download(reference), {
			items: [{ amount: 1000 }, { amount: 2000 }],
		});
		expect(run.error?.message).toBe(
			`Item 1: reference "${reference}" is already used by item 0 of this run`,
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});

	it('references that differ only in case or spaces count as one', async () => {
		const reference = uniqueReference('Case');
		const run = await runVoucher(sandbox, download('={{ $json.ref }}'), {
			items: [{ ref: reference }, { ref: ` ${reference.toLowerCase()} ` }],
			continueOnFail: true,
		});
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
		expect(errorOf(run.json[1])).toMatch(/is already used by item 0 of this run/);
	});

	it('a Reference built from the row buys one order per row', async () => {
		const base = uniqueReference('welcome');
		const run = await runVoucher(sandbox, perRowRecipient(`={{ '${base}-' + $json.email }}`), {
			items: people,
		});
		expect(run.error).toBeUndefined();
		expect(apiRequests(sandbox, 'POST')).toHaveLength(3);
		expect(run.json.map((order) => (order.vouchers as IDataObject[])[0].email)).toEqual(
			people.map((p) => p.email),
		);
	});
});

describe('a Reference reused for another request', () => {
	it('Create with a fixed Reference on amounts 1,000 and 2,000 across two runs: the second is an error, nothing is bought', async () => {
		const reference = uniqueReference('reuse');
		const first = await runVoucher(sandbox, download(reference), { items: [{ amount: 1000 }] });
		const { orderNumber } = first.json[0];
		let second: Awaited<ReturnType<typeof runVoucher>> | undefined;
		const spent = await spentKobo(async () => {
			second = await runVoucher(sandbox, download(reference), {
				items: [{ amount: 2000 }],
				continueOnFail: true,
			});
		});
		expect(spent).toBe(0);
		expect(ordersUnder(reference)).toHaveLength(1);
		expect(errorOf(second!.json[0])).toBe(
			`Item 0: reference "${reference}" already belongs to another request, order ${String(orderNumber)}`,
		);
		expect(descriptionOf(second!, 0)).toContain(
			'its vouchers are worth NGN 1,000.00, this item asks for NGN 2,000.00',
		);
	});

	it('a quantity that differs is named', async () => {
		const reference = uniqueReference('reuse-qty');
		await runVoucher(sandbox, download(reference));
		const again = await runVoucher(sandbox, download(reference, { quantity: 3 }), {
			continueOnFail: true,
		});
		expect(descriptionOf(again, 0)).toContain('it has 1 vouchers, this item asks for 3');
		expect(ordersUnder(reference)).toHaveLength(1);
	});

	it('other recipients under the same Reference are named; the same ones in another case match', async () => {
		const reference = uniqueReference('reuse-rcp');
		await runVoucher(sandbox, perRowRecipient(reference), { items: [people[0]] });
		const other = await runVoucher(sandbox, perRowRecipient(reference), {
			items: [people[1]],
			continueOnFail: true,
		});
		expect(descriptionOf(other, 0)).toContain(
			'it is for Ada Obi <ada@example.com>, whom this item does not name; it holds no voucher for Bola Ade <bola@example.com>',
		);
		const same = await runVoucher(sandbox, perRowRecipient(reference), {
			items: [{ first: ' ADA', last: 'obi ', email: 'Ada@Example.com' }],
		});
		expect(same.error).toBeUndefined();
		expect(same.json[0]).toMatchObject({ reference, alreadyExisted: true });
		expect(ordersUnder(reference)).toHaveLength(1);
	});

	it('the same request again returns the order, marked alreadyExisted', async () => {
		const reference = uniqueReference('rerun');
		const first = await runVoucher(sandbox, download(reference));
		const again = await runVoucher(sandbox, download(reference));
		expect(again.error).toBeUndefined();
		expect(again.json[0]).toMatchObject({
			orderNumber: first.json[0].orderNumber,
			alreadyExisted: true,
		});
	});

	it('a Dry Run reports the mismatch as the real run would, and sends nothing', async () => {
		const reference = uniqueReference('reuse-dry');
		await runVoucher(sandbox, download(reference));
		const dry = await runVoucher(sandbox, download(reference, { options: { dryRun: true } }), {
			items: [{ amount: 2000 }],
			continueOnFail: true,
		});
		expect(errorOf(dry.json[0])).toMatch(/already belongs to another request/);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
	});

	it('an order still PROCESSING cannot be compared: it is returned with vouchersPending and comparedWithRequest false', async () => {
		const reference = uniqueReference('pending');
		const slow = { productCode: 'VCH-SLOW-COMPLETED' };
		// Long enough that the order is still PROCESSING when the second run looks, on a busy machine too.
		sandbox.configure({ processingDelayMs: 60_000 });
		let again;
		try {
			await runVoucher(sandbox, download(reference, slow));
			again = await runVoucher(sandbox, download(reference, slow), { items: [{ amount: 2000 }] });
		} finally {
			sandbox.configure({ processingDelayMs: 300 });
		}
		expect(again.json[0]).toMatchObject({
			status: 'PROCESSING',
			vouchersPending: true,
			comparedWithRequest: false,
		});
		// Both notices: the vouchers come later, and the order is not yet known to be this item's.
		expect(String(again.json[0].notice)).toMatch(/still PROCESSING.*could not be compared/s);
		expect(ordersUnder(reference)).toHaveLength(1);
	});

	it('with Wait for Completion, a PROCESSING order is compared once it lists its vouchers', async () => {
		const reference = uniqueReference('pending-wait');
		const slow = { productCode: 'VCH-SLOW-COMPLETED' };
		await runVoucher(sandbox, download(reference, slow));
		const again = await runVoucher(
			sandbox,
			download(reference, { ...slow, options: { waitForCompletion: true } }),
			{ items: [{ amount: 2000 }], continueOnFail: true },
		);
		expect(errorOf(again.json[0])).toMatch(/already belongs to another request/);
	});
});

describe('a create answered without its reference', () => {
	it('Wait for Completion follows the order by the Reference sent, and outputs it under that Reference', async () => {
		sandbox.configure({ dialect: { createdOrder: 'noReference' } });
		try {
			const reference = uniqueReference('no-ref');
			const run = await runVoucher(
				sandbox,
				download(reference, {
					productCode: 'VCH-SLOW-COMPLETED',
					options: { waitForCompletion: true, waitTimeoutSeconds: 10 },
				}),
			);
			expect(run.error).toBeUndefined();
			expect(run.json[0]).toMatchObject({ reference, status: 'COMPLETED', alreadyExisted: false });
			const polls = apiRequests(sandbox, 'GET').map((request) => request.path);
			expect(polls.length).toBeGreaterThan(0);
			expect(new Set(polls)).toEqual(new Set([`/v2/orders/${reference}`]));
			expect(ordersUnder(reference)).toHaveLength(1);
		} finally {
			sandbox.configure({ dialect: {} });
		}
	});
});

describe('References the service cannot read back', () => {
	it.each(['templates', ' Recipients ', 'TEMPLATES'])(
		'Create refuses %j before sending anything, naming the item and the field',
		async (reference) => {
			const run = await runVoucher(sandbox, download(reference), { continueOnFail: true });
			expect(errorOf(run.json[0])).toMatch(
				/^Item 0: invalid "reference": ".+" cannot be a Reference/,
			);
			expect(apiRequests(sandbox)).toHaveLength(0);
		},
	);

	it.each([
		[
			'.',
			/^Item 0: invalid "reference": "\." cannot be a Reference: HTTP clients send GET \/v2\/orders\/\. as GET \/v2\/orders\//,
		],
		[
			'..',
			/^Item 0: invalid "reference": "\.\." cannot be a Reference: HTTP clients send GET \/v2\/orders\/\.\. as GET \/v2\/,/,
		],
		[' .. ', /"\.\." cannot be a Reference/],
		['INV/2024/07', /^Item 0: invalid "reference": Reference must not contain "\/" or "\\"/],
		['a/..', /must not contain "\/"/],
		['INV\\7', /must not contain "\/" or "\\"/],
		['tab\there', /^Item 0: invalid "reference": Reference must not contain control characters/],
		['line\nbreak', /control characters/],
		['nul\u0000', /control characters/],
		['c1\u0085', /control characters/],
		['half\ud800', /lone UTF-16 surrogate/],
	])(
		'Create refuses %j, which would not reach the order route unchanged, and sends nothing',
		async (reference, message) => {
			const run = await runVoucher(sandbox, download(reference), { continueOnFail: true });
			expect(errorOf(run.json[0])).toMatch(message);
			expect(apiRequests(sandbox)).toHaveLength(0);
		},
	);

	it.each([
		['Order → Get', { resource: 'order', operation: 'get', reference: '..' }],
		['Order → Get Campaign', { resource: 'order', operation: 'getCampaign', reference: '.' }],
		['a campaign base', campaignParameters('spring/2026')],
	])(
		'%s refuses such a Reference too, naming the field, and sends nothing',
		async (_, parameters) => {
			const run = await runVoucher(sandbox, parameters as INodeParameters, {
				items: [{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' }],
				continueOnFail: true,
			});
			expect(errorOf(run.json[0])).toMatch(/^Item 0: invalid "reference": /);
			expect(apiRequests(sandbox)).toHaveLength(0);
		},
	);

	it('Create for Recipients refuses it too', async () => {
		const run = await runVoucher(sandbox, perRowRecipient('templates'), {
			items: [people[0]],
			continueOnFail: true,
		});
		expect(errorOf(run.json[0])).toMatch(/cannot be a Reference/);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('Get Order refuses it and says why, instead of showing the template list as an order', async () => {
		const run = await runVoucher(
			sandbox,
			{ resource: 'order', operation: 'get', reference: 'templates' },
			{ continueOnFail: true },
		);
		expect(errorOf(run.json[0])).toContain(
			"GET /v2/orders/templates is another of the service's endpoints",
		);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});
});

describe('an answer that is not the order asked for', () => {
	const client = { node: { name: 'Voucher Service' } } as unknown as VoucherApiClient;

	it.each([
		['the template list', [{ id: '1', name: 'Classic' }], /answered with a list/],
		['an object without an order number', { 0: 'a' }, /lacks an order number/],
		[
			'another reference',
			{ orderNumber: 'O-1', status: 'COMPLETED', reference: 'other' },
			/names another reference/,
		],
	])('%s is an error, never an order', (_, data, description) => {
		expect(() => asOrder(client, data, 'mine', 4)).toThrowError(
			expect.objectContaining({
				message: 'Item 4: the service\'s answer for reference "mine" is not that order',
				description: expect.stringMatching(description),
			}),
		);
	});

	it('an order under the same reference, in another case, is that order', () => {
		const order = { orderNumber: 'O-1', status: 'COMPLETED', reference: ' MINE' };
		expect(asOrder(client, order, 'mine', 0)).toEqual(order);
	});
});

describe('If Reference Exists from an expression', () => {
	it('a value that is neither choice is refused, naming the option, and nothing is sent', async () => {
		const run = await runVoucher(
			sandbox,
			download(uniqueReference('ire'), { options: { ifReferenceExists: '={{ "Fail" }}' } }),
			{ continueOnFail: true },
		);
		expect(errorOf(run.json[0])).toBe(
			'Item 0: the option "If Reference Exists" must be "returnExisting" or "fail"',
		);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});
});

describe('the summary above a real run', () => {
	const hintsOf = (run: Awaited<ReturnType<typeof runVoucher>>) =>
		(run.run.data.resultData.runData['Node under test'][0].hints ?? []).map((hint) => hint.message);

	it('Create: what this run bought, what earlier runs held, and what failed, from its own outcomes', async () => {
		const held = uniqueReference('sum-held');
		await runVoucher(sandbox, download(held));
		const run = await runVoucher(sandbox, download('={{ $json.ref }}'), {
			items: [
				{ ref: held, amount: 1000 },
				{ ref: uniqueReference('sum-a'), amount: 2000 },
				{ ref: uniqueReference('sum-b'), amount: 500 },
				{ ref: 'templates', amount: 500 },
			],
			continueOnFail: true,
		});
		expect(hintsOf(run)).toEqual([
			'This run bought 2 vouchers in 2 new orders for NGN 2,500.00 (before coupon discounts); 1 item already held from an earlier run; 1 item refused or failed; 0 orders still PROCESSING.',
		]);
	});

	it('a dry run has no summary, only its own totals', async () => {
		const run = await runVoucher(
			sandbox,
			download(uniqueReference('sum-dry'), { options: { dryRun: true } }),
		);
		expect(hintsOf(run)).toEqual([expect.stringMatching(/^Dry run, nothing was bought/)]);
	});
});
