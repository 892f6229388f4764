import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { basicAuth } from '../../real-n8n/fixtures.mts';
import { startSandbox } from '../../sandbox/server.mts';
import type { Sandbox } from '../../sandbox/server.mts';
import { call, download, postDownload, postRecipients, recipients } from './sandboxClient.mts';

let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox();
});
afterAll(() => sbx.close());
beforeEach(() => sbx.reset());

const ENDPOINTS: Array<['GET' | 'POST', string, unknown?]> = [
	['POST', '/v2/orders', download()],
	['POST', '/v2/orders/recipients', recipients()],
	['GET', '/v2/orders/some-ref'],
	['GET', '/v2/vouchers/status/SBX-ACTIVE-0001'],
	['GET', '/v2/transactions/wallets'],
	['GET', '/v2/countries'],
	['GET', '/v2/orders/templates'],
];

const ngnBalance = async () =>
	(await call(sbx, 'GET', '/v2/transactions/wallets')).body.data[0].balance as number;

describe('authentication', () => {
	it.each(ENDPOINTS)(
		'%s %s answers 401 text without credentials or with a wrong secret',
		async (method, path, body) => {
			for (const auth of [
				null,
				basicAuth({ publicKey: 'pk_test_sandbox', secretKey: 'wrong' }),
				'Bearer sk_test_sandbox',
				'Basic !!!',
			]) {
				const res = await call(sbx, method, path, body, auth);
				expect(res.status).toBe(401);
				expect(res.text).toBe('Unauthorized');
			}
			expect(sbx.state.orders.size).toBe(0);
		},
	);

	it.each(ENDPOINTS)('%s %s answers 403 text to the read-only pair', async (method, path, body) => {
		const res = await call(sbx, method, path, body, basicAuth(sbx.forbiddenKeys));
		expect(res.status).toBe(403);
		expect(res.text).toBe('Forbidden');
		expect(sbx.state.orders.size).toBe(0);
	});

	it('logs the public key of each request and never the secret', async () => {
		await call(sbx, 'GET', '/v2/countries');
		await call(sbx, 'GET', '/v2/countries', undefined, basicAuth(sbx.forbiddenKeys));
		await call(sbx, 'GET', '/v2/countries', undefined, null);
		expect(sbx.state.requests.map((r) => [r.publicKey, r.status])).toEqual([
			['pk_test_sandbox', 200],
			['pk_test_readonly', 403],
			[null, 401],
		]);
		expect(JSON.stringify(sbx.state.requests)).not.toMatch(/sk_test/);
	});
});

describe('reference data', () => {
	it('lists an NGN wallet with the opening balance and a zero USD wallet', async () => {
		const res = await call(sbx, 'GET', '/v2/transactions/wallets');
		expect(res.body).toEqual({
			data: [
				{ balance: 50_000_000, currency: 'NGN' },
				{ balance: 0, currency: 'USD' },
			],
			statusCode: '00',
			message: expect.any(String),
		});
	});

	it('lists countries with two-letter codes', async () => {
		const res = await call(sbx, 'GET', '/v2/countries');
		expect(res.body.statusCode).toBe('00');
		expect(res.body.data).toContainEqual({ code: 'NG', name: 'Nigeria' });
		for (const c of res.body.data) expect(c.code).toMatch(/^[A-Z]{2}$/);
	});

	it('lists global and client templates with string ids', async () => {
		const res = await call(sbx, 'GET', '/v2/orders/templates');
		expect(res.body.data.map((t: { id: string }) => t.id)).toEqual(['1', '2', '7']);
		for (const t of res.body.data)
			expect(Object.keys(t).sort()).toEqual(['id', 'name', 'screenshotUrl']);
	});
});

describe('download orders', () => {
	it('completes VCH-INSTANT at once with code, pin, serial and a one-year expiry', async () => {
		const res = await postDownload(sbx, { reference: 'dl-1', quantity: 3, pin: '0042' });
		expect(res.status).toBe(200);
		const order = res.body.data;
		expect(order).toMatchObject({
			reference: 'dl-1',
			status: 'COMPLETED',
			orderNumber: expect.any(String),
		});
		expect(order.vouchers).toHaveLength(3);
		for (const v of order.vouchers) {
			expect(v).toMatchObject({
				value: 1000,
				pin: '0042',
				status: null,
				firstName: null,
				lastName: null,
				email: null,
			});
			expect(v.code).toEqual(expect.any(String));
			const years = (Date.parse(v.expiryDate) - Date.now()) / (365 * 864e5);
			expect(years).toBeGreaterThan(0.99);
			expect(years).toBeLessThan(1.01);
		}
		expect(new Set(order.vouchers.map((v: { serial: number }) => v.serial)).size).toBe(3);
	});

	it('makes a random 4-digit pin when none or a blank one is given', async () => {
		for (const pin of [undefined, null, '', '   ']) {
			const res = await postDownload(sbx, { pin });
			for (const v of res.body.data.vouchers) expect(v.pin).toMatch(/^\d{4}$/);
		}
	});

	it('issues codes that the status endpoint reports ACTIVE', async () => {
		const res = await postDownload(sbx, { amount: 2500.75 });
		const { code } = res.body.data.vouchers[0];
		const status = await call(sbx, 'GET', `/v2/vouchers/status/${encodeURIComponent(code)}`);
		expect(status.body.data).toMatchObject({ status: 'ACTIVE', value: 2500.75 });
	});

	it('uses the product name for the narration default only on recipient orders', async () => {
		await postRecipients(sbx, { reference: 'n-1', productCode: 'VCH-JUMIA' });
		await postRecipients(sbx, { reference: 'n-2', narration: 'Happy new year' });
		expect(sbx.state.orders.get('n-1')?.narration).toBe('Jumia Gift Card vouchers');
		expect(sbx.state.orders.get('n-2')?.narration).toBe('Happy new year');
	});
});

describe('recipient orders', () => {
	it('completes VCH-INSTANT with delivered items and hides code and pin', async () => {
		const res = await postRecipients(sbx, { reference: 'rc-1', templateId: 7 });
		expect(res.body.data.status).toBe('COMPLETED');
		expect(res.body.data.vouchers).toEqual([
			expect.objectContaining({
				status: 'DELIVERED',
				firstName: 'Ada',
				email: 'ada@example.com',
				code: null,
				pin: null,
				value: 500,
			}),
			expect.objectContaining({
				status: 'DELIVERED',
				firstName: 'Femi',
				email: 'femi@example.com',
				code: null,
				pin: null,
			}),
		]);
		expect(res.body.data.vouchers[0].expiryDate).toEqual(expect.any(String));
	});
});

describe('a gateway in front', () => {
	it('answers a path holding a gatewayNotFound text 404 with its own page, unseen by the service', async () => {
		sbx.configure({ gatewayNotFound: ['%25'] });
		try {
			const refused = await call(sbx, 'GET', '/v2/orders/50%25-off');
			expect(refused.status).toBe(404);
			expect(refused.headers['content-type']).toBe('text/html');
			expect(refused.text).toContain('<h1>Not Found</h1>');
			expect(sbx.state.requests).toHaveLength(0);
			expect((await call(sbx, 'GET', '/v2/orders/50-off')).body.statusCode).toBe('04');
		} finally {
			sbx.configure({ gatewayNotFound: [] });
		}
	});

	it('stands in the way only once the order exists under gatewayNotFoundOnceMade', async () => {
		sbx.configure({ gatewayNotFound: ['/gw-1'], gatewayNotFoundOnceMade: true });
		try {
			expect((await call(sbx, 'GET', '/v2/orders/gw-1')).body.statusCode).toBe('04');
			expect((await postDownload(sbx, { reference: 'gw-1' })).status).toBe(200);
			const refused = await call(sbx, 'GET', '/v2/orders/gw-1');
			expect(refused.status).toBe(404);
			expect(refused.headers['content-type']).toBe('text/html');
		} finally {
			sbx.configure({ gatewayNotFound: [], gatewayNotFoundOnceMade: false });
		}
	});

	it('answers the References phantomOrders lists with the phantom order, and only those', async () => {
		sbx.configure({ phantomOrders: ['ph-1', 'ph 2'] });
		try {
			for (const path of ['/v2/orders/ph-1', '/v2/orders/ph%202']) {
				const phantom = await call(sbx, 'GET', path);
				expect(phantom.body.data).toEqual({
					orderNumber: 'SBX-PHANTOM',
					status: 'FAILED',
					vouchers: null,
				});
			}
			expect((await call(sbx, 'GET', '/v2/orders/ph-3')).body.statusCode).toBe('04');
			expect((await call(sbx, 'GET', '/v2/orders/templates')).body.statusCode).toBe('00');
			expect(() => sbx.configure({ phantomOrders: [1] as never })).toThrow(
				'phantomOrders must be true, false or an array of References',
			);
		} finally {
			sbx.configure({ phantomOrders: false });
		}
	});

	it('answers it with JSON as Kong does under gatewayNotFoundBody json', async () => {
		sbx.configure({ gatewayNotFound: ['%25'], gatewayNotFoundBody: 'json' });
		try {
			const refused = await call(sbx, 'GET', '/v2/orders/50%25-off');
			expect(refused.status).toBe(404);
			expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
			expect(refused.body).toEqual({ message: 'no Route matched with those values' });
			expect(sbx.state.requests).toHaveLength(0);
		} finally {
			sbx.configure({ gatewayNotFound: [], gatewayNotFoundBody: 'html' });
		}
	});
});

describe('get order', () => {
	it('reads an order back by a reference with characters that need encoding', async () => {
		const reference = 'INV 2024/07+ä#1';
		await postDownload(sbx, { reference });
		const res = await call(sbx, 'GET', `/v2/orders/${encodeURIComponent(reference)}`);
		expect(res.body.statusCode).toBe('00');
		expect(res.body.data.reference).toBe(reference);
	});

	it('answers 04 without data for an unknown reference, on HTTP 200 by default', async () => {
		const res = await call(sbx, 'GET', '/v2/orders/unknown-ref');
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ statusCode: '04', message: 'Order not found' });
		expect('data' in res.body).toBe(false);
	});

	it('carries 04 on HTTP 404 under dialect.unknownOrder envelope404', async () => {
		sbx.configure({ dialect: { unknownOrder: 'envelope404' } });
		try {
			const res = await call(sbx, 'GET', '/v2/orders/unknown-ref');
			expect(res.status).toBe(404);
			expect(res.body.statusCode).toBe('04');
		} finally {
			sbx.configure({ dialect: {} });
		}
	});
});

describe('voucher status', () => {
	it.each([
		['SBX-ACTIVE-0001', 'ACTIVE'],
		['SBX-USED-0001', 'USED'],
		['SBX-EXPIRED-0001', 'EXPIRED'],
		['SBX-INVALID-0001', 'INVALID'],
		['SBX/ACTIVE 0002+X', 'ACTIVE'],
	])('reports seeded %s as %s', async (code, status) => {
		const res = await call(sbx, 'GET', `/v2/vouchers/status/${encodeURIComponent(code)}`);
		expect(res.status).toBe(200);
		expect(res.body.data).toEqual({
			status,
			value: expect.any(Number),
			expiryDate: expect.any(String),
		});
	});

	it('keeps a literal + as a plus sign', async () => {
		const res = await call(sbx, 'GET', '/v2/vouchers/status/SBX%2FACTIVE%200002+X');
		expect(res.body.data.status).toBe('ACTIVE');
	});

	it('answers 404 text for an unknown code', async () => {
		const res = await call(sbx, 'GET', '/v2/vouchers/status/NOPE-0000');
		expect(res.status).toBe(404);
		expect(res.text).toBe('Voucher not found');
	});
});

describe('refusals', () => {
	it.each([
		['body is not JSON', '/v2/orders', '{not json'],
		['body is an array', '/v2/orders', []],
		['empty reference', '/v2/orders', download({ reference: '' })],
		['missing productCode', '/v2/orders', download({ productCode: undefined })],
		['unknown product', '/v2/orders', download({ productCode: 'VCH-NOPE' })],
		['zero amount', '/v2/orders', download({ amount: 0 })],
		['negative amount', '/v2/orders', download({ amount: -5 })],
		['amount as a string', '/v2/orders', download({ amount: '100' })],
		['amount below a kobo', '/v2/orders', download({ amount: 10.005 })],
		['quantity 0', '/v2/orders', download({ quantity: 0 })],
		['fractional quantity', '/v2/orders', download({ quantity: 1.5 })],
		['missing quantity', '/v2/orders', download({ quantity: undefined })],
		['3-digit pin', '/v2/orders', download({ pin: '123' })],
		['pin with letters', '/v2/orders', download({ pin: '12a4' })],
		['unknown coupon', '/v2/orders', download({ couponCode: 'FREE' })],
		['no recipients', '/v2/orders/recipients', recipients({ recipients: [] })],
		[
			'bad e-mail',
			'/v2/orders/recipients',
			recipients({ recipients: [{ firstName: 'A', lastName: 'B', email: 'not-an-email' }] }),
		],
		[
			'missing lastName',
			'/v2/orders/recipients',
			recipients({ recipients: [{ firstName: 'A', email: 'a@b.co' }] }),
		],
		['unknown template', '/v2/orders/recipients', recipients({ templateId: 3 })],
		['template id as a string', '/v2/orders/recipients', recipients({ templateId: '1' })],
		['missing template', '/v2/orders/recipients', recipients({ templateId: undefined })],
	])('answers 400 / 05 when %s, and creates nothing', async (_label, path, body) => {
		const res = await call(sbx, 'POST', path, body);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ statusCode: '05', message: expect.any(String) });
		expect(sbx.state.orders.size).toBe(0);
		expect(sbx.state.ledger).toHaveLength(1);
	});

	it('answers 09 for a reference already used by either order type, keeping the first order', async () => {
		const first = await postDownload(sbx, { reference: 'dup-1' });
		const again = await postDownload(sbx, { reference: 'dup-1', quantity: 5 });
		const asRecipients = await postRecipients(sbx, { reference: 'dup-1' });
		for (const res of [again, asRecipients]) {
			expect(res.status).toBe(400);
			expect(res.body).toEqual({ statusCode: '09', message: 'Order reference already exists' });
		}
		expect(sbx.state.orders.get('dup-1')?.orderNumber).toBe(first.body.data.orderNumber);
		expect(sbx.state.ledger.filter((e) => e.kind === 'debit')).toHaveLength(1);
	});

	it('commits exactly one of many concurrent creates with the same reference', async () => {
		const results = await Promise.all(
			Array.from({ length: 10 }, () => postDownload(sbx, { reference: 'race-1' })),
		);
		expect(results.filter((r) => r.body.statusCode === '00')).toHaveLength(1);
		expect(results.filter((r) => r.body.statusCode === '09')).toHaveLength(9);
	});

	it('answers 51 when the wallet cannot pay, and debits nothing', async () => {
		const res = await postDownload(sbx, { amount: 25_000_000.01, quantity: 2 });
		expect(res.status).toBe(400);
		expect(res.body.statusCode).toBe('51');
		expect(await ngnBalance()).toBe(50_000_000);
		expect(sbx.state.orders.size).toBe(0);
	});

	it('answers 404 for paths outside the seven endpoints', async () => {
		expect((await call(sbx, 'GET', '/v2/products')).status).toBe(404);
		expect((await call(sbx, 'POST', '/v2/countries', {})).status).toBe(404);
	});
});

describe('wallet ledger', () => {
	it('debits amount x quantity in whole kobo, with no float drift', async () => {
		await postDownload(sbx, { amount: 0.1, quantity: 3 });
		await postDownload(sbx, { amount: 0.2, quantity: 1 });
		expect(sbx.state.ledger.map((e) => e.amountKobo)).toEqual([5_000_000_000, -30, -20]);
		expect(await ngnBalance()).toBe(49_999_999.5);
	});

	it('takes 10% off the debit with coupon SAVE10', async () => {
		await postRecipients(sbx, { amount: 999.99, couponCode: 'SAVE10' });
		// 99,999 kobo less 9,999 (10%, rounded down) = 90,000 kobo per voucher, two recipients.
		expect(sbx.state.ledger[1].amountKobo).toBe(-180_000);
		expect(await ngnBalance()).toBe(49_998_200);
	});

	it('lets the debit use up the wallet exactly', async () => {
		const res = await postDownload(sbx, { amount: 12_500_000, quantity: 4 });
		expect(res.body.statusCode).toBe('00');
		expect(await ngnBalance()).toBe(0);
	});
});
