import { describe, expect, it } from 'vitest';

import { runLoadOptions } from '../../../n8n-core-runner/runWorkflow.mts';
import { DEFAULT_OPTIONS } from '../../../sandbox/options.mts';
import { VoucherServiceApi } from '../../../credentials/VoucherServiceApi.credentials';
import {
	apiRequests,
	credentialFor,
	runVoucher,
	uniqueReference,
	voucherNode,
	sandboxForThisFile,
} from './voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

describe('Order → Create (download)', () => {
	it('creates a completed order whose vouchers carry codes and PINs', async () => {
		const reference = uniqueReference('dl');
		const { json, error } = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 1500.5,
			quantity: 2,
			additionalFields: { pin: '4821', couponCode: 'SAVE10' },
		});
		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		expect(json[0]).toMatchObject({ reference, status: 'COMPLETED', alreadyExisted: false });
		const vouchers = json[0].vouchers as Array<Record<string, unknown>>;
		expect(vouchers).toHaveLength(2);
		for (const voucher of vouchers) {
			expect(voucher.pin).toBe('4821');
			expect(typeof voucher.code).toBe('string');
			expect(voucher.value).toBe(1500.5);
		}
		const [post] = apiRequests(sandbox, 'POST');
		expect(post.path).toBe('/v2/orders');
		expect(post.publicKey).toBe(sandbox.keys.publicKey);
		expect(post.body).toEqual({
			reference,
			productCode: 'VCH-INSTANT',
			amount: 1500.5,
			quantity: 2,
			pin: '4821',
			couponCode: 'SAVE10',
		});
	});

	it('leaves out an empty PIN and coupon so the service applies its defaults', async () => {
		const reference = uniqueReference('dl');
		await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 100,
			quantity: 1,
			additionalFields: { pin: '  ', couponCode: '' },
		});
		expect(apiRequests(sandbox, 'POST')[0].body).toEqual({
			reference,
			productCode: 'VCH-INSTANT',
			amount: 100,
			quantity: 1,
		});
	});

	it('says in the output that a PROCESSING download order has no vouchers yet', async () => {
		const { json, error } = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference: uniqueReference('slow'),
			productCode: 'VCH-SLOW-COMPLETED',
			amount: 100,
			quantity: 1,
		});
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({ status: 'PROCESSING', vouchersPending: true });
		expect(json[0].vouchers).toBeUndefined();
		expect(String(json[0].notice)).toContain('PROCESSING');
	});

	it('outputs one item per voucher with the order keys copied on when asked', async () => {
		const reference = uniqueReference('pv');
		const { main } = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 10,
			quantity: 3,
			outputMode: 'voucher',
		});
		expect(main).toHaveLength(3);
		for (const item of main) {
			expect(item.json).toMatchObject({ reference, orderStatus: 'COMPLETED' });
			expect(item.json.orderNumber).toBeTruthy();
			expect(item.pairedItem).toEqual({ item: 0 });
		}
		expect(new Set(main.map((item) => item.json.serial)).size).toBe(3);
	});

	it('reads an expression inside a collection per item, and fixed values alike for every item', async () => {
		// Fixed parameters are read once per run; a collection with one expression in it must not be.
		const references = [uniqueReference('pe'), uniqueReference('pe'), uniqueReference('pe')];
		const { main, error } = await runVoucher(
			sandbox,
			{
				resource: 'order',
				operation: 'create',
				reference: '={{ $json.reference }}',
				productCode: 'VCH-INSTANT',
				amount: 100,
				quantity: 1,
				additionalFields: { pin: '={{ $json.pin }}' },
				outputMode: '={{ $json.mode }}',
				options: { maxOrderTotal: '={{ $json.limit }}' },
			},
			{
				continueOnFail: true,
				items: [
					{ reference: references[0], pin: '1111', mode: 'order', limit: 1000 },
					{ reference: references[1], pin: '2222', mode: 'order', limit: 50 },
					{ reference: references[2], pin: '3333', mode: 'voucher', limit: 1000 },
				],
			},
		);
		expect(error).toBeUndefined();
		expect(main.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(main[0].json).toMatchObject({ reference: references[0], status: 'COMPLETED' });
		expect(String(main[1].json.error)).toContain('Item 1: order total');
		expect(main[2].json).toMatchObject({ reference: references[2], orderStatus: 'COMPLETED' });
		const posts = apiRequests(sandbox, 'POST');
		expect(posts).toHaveLength(2);
		expect(
			posts.map(({ body }) => {
				const { reference, pin } = body as Record<string, unknown>;
				return [reference, pin];
			}),
		).toEqual(
			expect.arrayContaining([
				[references[0], '1111'],
				[references[2], '3333'],
			]),
		);
	});
});

describe('Order → Create for Recipients', () => {
	it('sends the recipients, the template and the narration, and outputs delivery statuses', async () => {
		const reference = uniqueReference('rc');
		const { json, error } = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'createForRecipients',
			reference,
			productCode: 'VCH-AMAZON',
			amount: 5000,
			templateId: 7,
			recipientsSource: 'manual',
			recipients: {
				recipient: [
					{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' },
					{ firstName: 'Tunde', lastName: 'Bello', email: 'tunde@example.com' },
				],
			},
			additionalFields: { narration: 'Thank you!' },
		});
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({ reference, status: 'COMPLETED' });
		const vouchers = json[0].vouchers as Array<Record<string, unknown>>;
		expect(vouchers.map((voucher) => voucher.email)).toEqual([
			'ada@example.com',
			'tunde@example.com',
		]);
		expect(vouchers.every((voucher) => voucher.status === 'DELIVERED')).toBe(true);
		const [post] = apiRequests(sandbox, 'POST');
		expect(post.path).toBe('/v2/orders/recipients');
		expect(post.body).toMatchObject({ templateId: 7, narration: 'Thank you!' });
		expect(post.body).not.toHaveProperty('quantity');
	});

	it('omits the narration when it is empty, so the service writes its default', async () => {
		await runVoucher(sandbox, {
			resource: 'order',
			operation: 'createForRecipients',
			reference: uniqueReference('rc'),
			productCode: 'VCH-JUMIA',
			amount: 200,
			templateId: 1,
			recipients: { recipient: [{ firstName: 'A', lastName: 'B', email: 'a@b.ng' }] },
			additionalFields: { narration: '' },
		});
		const [post] = apiRequests(sandbox, 'POST');
		expect(post.body).not.toHaveProperty('narration');
		expect(sandbox.state.orders.size).toBe(1);
	});
});

describe('Order → Get', () => {
	it('reads an order by a reference that needs URL encoding', async () => {
		const reference = `${uniqueReference('enc')} a b?#%+&`;
		await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 1,
			quantity: 1,
		});
		const { json, error } = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'get',
			reference,
		});
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({ reference, status: 'COMPLETED' });
		const [get] = apiRequests(sandbox, 'GET');
		expect(get.path).toBe(`/v2/orders/${encodeURIComponent(reference)}`);
	});
});

describe('Voucher → Get Status', () => {
	it.each([
		['SBX-ACTIVE-0001', 'ACTIVE'],
		['SBX-USED-0001', 'USED'],
		['SBX-EXPIRED-0001', 'EXPIRED'],
		['SBX-INVALID-0001', 'INVALID'],
		['SBX/ACTIVE 0002+X', 'ACTIVE'],
	])('reads %s as %s', async (voucherCode, status) => {
		const { json, error } = await runVoucher(sandbox, {
			resource: 'voucher',
			operation: 'getStatus',
			voucherCode,
		});
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({ status });
		expect(typeof json[0].value).toBe('number');
		expect(apiRequests(sandbox, 'GET')[0].path).toBe(
			`/v2/vouchers/status/${encodeURIComponent(voucherCode)}`,
		);
	});
});

describe('lists', () => {
	it('Wallet → Get Many outputs one item per currency, with the NGN balance', async () => {
		const { json } = await runVoucher(sandbox, { resource: 'wallet', operation: 'getAll' });
		expect(json.map((wallet) => wallet.currency)).toContain('NGN');
		expect(json.find((wallet) => wallet.currency === 'NGN')?.balance).toBeGreaterThan(0);
	});

	it('Country → Get Many', async () => {
		const { json } = await runVoucher(sandbox, { resource: 'country', operation: 'getAll' });
		expect(json).toContainEqual({ code: 'NG', name: 'Nigeria' });
	});

	it('Template → Get Many returns client and global templates', async () => {
		const { json } = await runVoucher(sandbox, { resource: 'template', operation: 'getAll' });
		expect(json.map((template) => template.id).sort()).toEqual(['1', '2', '7']);
	});

	it('runs once per input item, each output paired to its item', async () => {
		const { main } = await runVoucher(
			sandbox,
			{ resource: 'country', operation: 'getAll' },
			{ items: [{ a: 1 }, { a: 2 }] },
		);
		const perItem = main.length / 2;
		expect(
			main.slice(0, perItem).every((item) => (item.pairedItem as { item: number }).item === 0),
		).toBe(true);
		expect(
			main.slice(perItem).every((item) => (item.pairedItem as { item: number }).item === 1),
		).toBe(true);
	});
});

describe('Template dropdown', () => {
	it('loads templates from GET /v2/orders/templates with integer ids', async () => {
		const options = await runLoadOptions({
			nodeType: voucherNode,
			methodName: 'getTemplates',
			credentialTypes: [new VoucherServiceApi()],
			credentials: { voucherServiceApi: credentialFor(sandbox) },
		});
		expect(options.map((option) => option.value)).toEqual([1, 2, 7]);
		expect(options[2].name).toContain('Sandbox Client Branded');
	});

	const loadTemplates = () =>
		runLoadOptions({
			nodeType: voucherNode,
			methodName: 'getTemplates',
			credentialTypes: [new VoucherServiceApi()],
			credentials: { voucherServiceApi: credentialFor(sandbox) },
		});

	it('shows a template whose id is not a number as a disabled entry that says why', async () => {
		sandbox.configure({
			templates: [
				{ id: 'tpl-a', name: 'Lettered', screenshotUrl: 'https://sandbox.invalid/a.png' },
				{ id: '3', name: 'Numbered', screenshotUrl: 'https://sandbox.invalid/3.png' },
			],
		});
		try {
			const options = await loadTemplates();
			expect(options).toEqual([
				expect.objectContaining({
					value: 'tpl-a',
					disabled: true,
					name: 'Lettered (tpl-a): cannot be used',
				}),
				expect.objectContaining({ value: 3, name: 'Numbered (3)' }),
			]);
			expect(options[0].description).toMatch(/not a whole number/);
			expect(options[1].disabled).toBeUndefined();
		} finally {
			sandbox.configure({ templates: DEFAULT_OPTIONS.templates });
		}
	});

	it('an empty list gives one disabled entry that says why, not an empty dropdown', async () => {
		sandbox.configure({ templates: [] });
		try {
			expect(await loadTemplates()).toEqual([
				expect.objectContaining({
					disabled: true,
					name: 'No Templates Found for This Account',
				}),
			]);
		} finally {
			sandbox.configure({ templates: DEFAULT_OPTIONS.templates });
		}
	});

	it('the canvas subtitle is the chosen action, as a sentence', () => {
		const subtitle = String(voucherNode.description.subtitle);
		const actionOf = (resource: string, operation: string) =>
			new Function('$parameter', `return ${subtitle.slice(3, -2)}`)({ resource, operation });
		expect(actionOf('order', 'createForRecipients')).toBe('Create an order for recipients');
		expect(actionOf('wallet', 'getAll')).toMatch(/^Get /);
	});

	it('Amount starts empty, not at a value validation refuses', async () => {
		const amount = voucherNode.description.properties.find((p) => p.name === 'amount');
		expect(amount?.default).toBeNull();
		const run = await runVoucher(
			sandbox,
			{
				resource: 'order',
				operation: 'create',
				reference: 'no-amount',
				productCode: 'VCH-INSTANT',
				quantity: 1,
			},
			{ continueOnFail: true },
		);
		expect(String(run.json[0].error)).toMatch(/^Item 0: invalid "amount"/);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});
});
