import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { startSandbox } from '../../sandbox/server.mts';
import type { Sandbox } from '../../sandbox/server.mts';
import {
	DIALECTS,
	eventInDialect,
	opaqueTemplateId,
	resolveDialect,
} from '../../sandbox/dialect.mts';
import { until } from '../../real-n8n/fixtures.mts';
import { call, download, postDownload, recipients, startReceiver } from './sandboxClient.mts';

let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox({ processingDelayMs: 50 });
});
afterAll(() => sbx.close());
beforeEach(() => {
	sbx.configure({ dialect: {} });
	sbx.reset();
});

const orders = () => [...sbx.state.orders.values()];

describe('dialect: a used Reference', () => {
	const first = download({ reference: 'dup-1', quantity: 1 });

	it.each([
		[
			'default (envelope400)',
			{},
			400,
			{ statusCode: '09', message: 'Order reference already exists' },
		],
		['envelope200', { duplicateReference: 'envelope200' }, 200, { statusCode: '09' }],
	] as const)('%s: answers the 09 envelope', async (_, dialect, status, body) => {
		sbx.configure({ dialect });
		await call(sbx, 'POST', '/v2/orders', first);
		const res = await call(sbx, 'POST', '/v2/orders', first);
		expect(res.status).toBe(status);
		expect(res.body).toMatchObject(body);
		expect(orders()).toHaveLength(1);
	});

	it('text409: answers 409 text, no second order', async () => {
		sbx.configure({ dialect: { duplicateReference: 'text409' } });
		await call(sbx, 'POST', '/v2/orders', first);
		const res = await call(sbx, 'POST', '/v2/orders', first);
		expect(res.status).toBe(409);
		expect(res.body).toBeUndefined();
		expect(res.text).toBe('Order reference already exists');
		expect(orders()).toHaveLength(1);
	});

	it('existingOrder200: answers 200 00 with the existing order, debits nothing', async () => {
		sbx.configure({ dialect: { duplicateReference: 'existingOrder200' } });
		const created = await call(sbx, 'POST', '/v2/orders', first);
		const again = await call(sbx, 'POST', '/v2/orders', { ...first, quantity: 3 });
		expect(again.status).toBe(200);
		expect(again.body).toEqual(created.body);
		expect(orders()).toHaveLength(1);
		expect(sbx.state.ledger.filter((e) => e.kind === 'debit')).toHaveLength(1);
	});
});

describe("dialect: the order in a create's answer", () => {
	it('noReference: a create, and a used Reference answered with its order, omit the reference; Get Order keeps it', async () => {
		sbx.configure({
			dialect: { createdOrder: 'noReference', duplicateReference: 'existingOrder200' },
		});
		const order = download({ reference: 'no-ref-1', quantity: 1 });
		const created = await call(sbx, 'POST', '/v2/orders', order);
		expect(created.body.data).toMatchObject({
			orderNumber: expect.any(String),
			status: 'COMPLETED',
		});
		expect(created.body.data).not.toHaveProperty('reference');
		const again = await call(sbx, 'POST', '/v2/orders', order);
		expect(again.body.data).not.toHaveProperty('reference');
		const read = await call(sbx, 'GET', '/v2/orders/no-ref-1');
		expect(read.body.data).toMatchObject({ reference: 'no-ref-1' });
	});
});

describe('dialect: an unknown order', () => {
	it.each([
		[{}, 200, { statusCode: '04', message: 'Order not found' }],
		[{ unknownOrder: 'envelope404' }, 404, { statusCode: '04', message: 'Order not found' }],
	] as const)('%j: HTTP %i with the 04 envelope', async (dialect, status, body) => {
		sbx.configure({ dialect });
		const res = await call(sbx, 'GET', '/v2/orders/nope');
		expect(res.status).toBe(status);
		expect(res.body).toEqual(body);
	});

	it('text404: HTTP 404 with a text body', async () => {
		sbx.configure({ dialect: { unknownOrder: 'text404' } });
		const res = await call(sbx, 'GET', '/v2/orders/nope');
		expect(res.status).toBe(404);
		expect(res.text).toBe('Order not found');
	});

	it('problem404: ASP.NET Core problem+json, a new traceId on every answer', async () => {
		sbx.configure({ dialect: { unknownOrder: 'problem404' } });
		const [a, b] = [
			await call(sbx, 'GET', '/v2/orders/nope'),
			await call(sbx, 'GET', '/v2/orders/nope'),
		];
		for (const res of [a, b]) {
			expect(res.status).toBe(404);
			expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
			expect(res.body).toEqual({
				type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
				title: 'Not Found',
				status: 404,
				traceId: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/),
			});
		}
		expect(a.body.traceId).not.toBe(b.body.traceId);
	});

	it('spring404: Spring Boot, the time of the answer, the path as sent and the Reference', async () => {
		sbx.configure({ dialect: { unknownOrder: 'spring404' } });
		const before = Date.now();
		const res = await call(sbx, 'GET', '/v2/orders/50%25%20off');
		expect(res.status).toBe(404);
		expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
		expect(res.body).toEqual({
			timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
			status: 404,
			error: 'Not Found',
			message: 'Order 50% off not found',
			path: '/v2/orders/50%25%20off',
		});
		expect(Date.parse(res.body.timestamp)).toBeGreaterThanOrEqual(before - 1);
	});

	it("extra fields never overwrite an answer's own: the traceId stays per answer", async () => {
		sbx.configure({ dialect: { unknownOrder: 'problem404', extraFields: true } });
		const [a, b] = [
			await call(sbx, 'GET', '/v2/orders/nope'),
			await call(sbx, 'GET', '/v2/orders/nope'),
		];
		expect(a.body).toMatchObject({ title: 'Not Found', timestamp: expect.any(String) });
		expect(a.body.traceId).toMatch(/^00-/);
		expect(a.body.traceId).not.toBe(b.body.traceId);
	});
});

describe('dialect: error bodies', () => {
	it('envelope: 401, 403, voucher 404 and 500 as {statusCode, message}', async () => {
		sbx.configure({ dialect: { errorBodies: 'envelope' } });
		const bad = await call(sbx, 'GET', '/v2/countries', undefined, 'Basic eDp5');
		expect([bad.status, bad.body]).toEqual([401, { statusCode: '401', message: 'Unauthorized' }]);
		expect(bad.headers['www-authenticate']).toBe('Basic realm="sandbox"');
		const forbidden = await call(
			sbx,
			'GET',
			'/v2/countries',
			undefined,
			`Basic ${Buffer.from('pk_test_readonly:sk_test_readonly').toString('base64')}`,
		);
		expect([forbidden.status, forbidden.body]).toEqual([
			403,
			{ statusCode: '403', message: 'Forbidden' },
		]);
		const voucher = await call(sbx, 'GET', '/v2/vouchers/status/NOPE');
		expect([voucher.status, voucher.body]).toEqual([
			404,
			{ statusCode: '404', message: 'Voucher not found' },
		]);
		sbx.configure({ faults: { errorRate: 1 } });
		try {
			const failed = await call(sbx, 'GET', '/v2/countries');
			expect([failed.status, failed.body]).toEqual([
				500,
				{ statusCode: '500', message: 'Internal Server Error' },
			]);
		} finally {
			sbx.configure({ faults: {} });
		}
	});

	it("text (default): the spec's words as text", async () => {
		const voucher = await call(sbx, 'GET', '/v2/vouchers/status/NOPE');
		expect([voucher.status, voucher.text]).toEqual([404, 'Voucher not found']);
	});
});

describe('dialect: shapes of the data', () => {
	it('numbers as strings: balance, value and serial as decimal text', async () => {
		sbx.configure({ dialect: { numbers: 'string' } });
		const created = await call(sbx, 'POST', '/v2/orders', download({ amount: 1000, quantity: 1 }));
		const voucher = created.body.data.vouchers[0];
		expect(voucher.value).toBe('1000.00');
		expect(voucher.serial).toMatch(/^\d+$/);
		const wallets = await call(sbx, 'GET', '/v2/transactions/wallets');
		expect(wallets.body.data[0]).toEqual({ balance: '49999000.00', currency: 'NGN' });
		const status = await call(sbx, 'GET', '/v2/vouchers/status/SBX-ACTIVE-0001');
		expect(status.body.data.value).toBe('5000.00');
	});

	it('long serials: past 2^53, kept exactly, written as bare JSON numbers', async () => {
		sbx.configure({ dialect: { serials: 'long' } });
		const created = await call(sbx, 'POST', '/v2/orders', download({ quantity: 2 }));
		const order = orders()[0];
		// The sandbox's first long serials: no test before this one issued any.
		expect(order.vouchers.map((voucher) => voucher.serial)).toEqual([
			1234567890130000161n,
			1234567890130000162n,
		]);
		// Bare tokens, as a service writing a long would: text keeps the digits a parse loses.
		expect(created.text).toContain('"serial":1234567890130000161,');
		expect(created.text).toContain('"serial":1234567890130000162,');
		expect(created.body.data.vouchers[0].serial).toBe(created.body.data.vouchers[1].serial);
		const read = await call(sbx, 'GET', `/v2/orders/${order.reference}`);
		expect(read.text).toContain('"serial":1234567890130000161,');

		sbx.configure({ dialect: { serials: 'long', numbers: 'string' } });
		await call(sbx, 'POST', '/v2/orders', download({ quantity: 1 }));
		expect(orders()[1].vouchers[0].serial).toBe(1234567890130000163n);
		const asText = await call(sbx, 'GET', `/v2/orders/${orders()[1].reference}`);
		expect(asText.body.data.vouchers[0].serial).toBe('1234567890130000163');

		sbx.configure({ dialect: {} });
		await call(sbx, 'POST', '/v2/orders', download({ quantity: 1 }));
		expect(typeof orders()[2].vouchers[0].serial).toBe('number');
	});

	it('lower-case statuses: orders, items and vouchers', async () => {
		sbx.configure({ dialect: { statusCase: 'lower' } });
		const created = await call(sbx, 'POST', '/v2/orders/recipients', recipients());
		expect(created.body.data.status).toBe('completed');
		expect(created.body.data.vouchers.map((v: { status: string }) => v.status)).toEqual([
			'delivered',
			'delivered',
		]);
		const status = await call(sbx, 'GET', '/v2/vouchers/status/SBX-USED-0001');
		expect(status.body.data.status).toBe('used');
		expect(orders()[0].status).toBe('COMPLETED');
	});

	it('extra fields on envelopes, orders, vouchers, wallets, countries and templates', async () => {
		sbx.configure({ dialect: { extraFields: true } });
		const created = await call(sbx, 'POST', '/v2/orders', download({ quantity: 1 }));
		expect(created.body).toHaveProperty('traceId');
		expect(created.body.data).toHaveProperty('createdAt');
		expect(created.body.data.vouchers[0]).toHaveProperty('productName');
		const lists = await Promise.all(
			['/v2/transactions/wallets', '/v2/countries', '/v2/orders/templates'].map(
				async (path) => (await call(sbx, 'GET', path)).body.data[0],
			),
		);
		expect(lists[0]).toHaveProperty('walletId');
		expect(lists[1]).toHaveProperty('dialCode');
		expect(lists[2]).toHaveProperty('clientId');
	});

	it('opaque template ids: listed and accepted as such, the numeric ones refused', async () => {
		sbx.configure({ dialect: { templateIds: 'opaque' } });
		const listed = await call(sbx, 'GET', '/v2/orders/templates');
		const ids = listed.body.data.map((t: { id: string }) => t.id);
		expect(ids).toEqual(['1', '2', '7'].map(opaqueTemplateId));
		expect(ids[0]).toMatch(/^tpl_[0-9a-f]+$/);
		const ok = await call(sbx, 'POST', '/v2/orders/recipients', recipients({ templateId: ids[0] }));
		expect(ok.body.statusCode).toBe('00');
		expect(orders()[0].templateId).toBe(ids[0]);
		const numeric = await call(sbx, 'POST', '/v2/orders/recipients', recipients({ templateId: 1 }));
		expect([numeric.status, numeric.body.statusCode]).toEqual([400, '05']);
	});

	it('a bad template: 05 on HTTP 400 by default, on HTTP 200 under envelope200', async () => {
		const refused = await call(sbx, 'POST', '/v2/orders/recipients', recipients({ templateId: 3 }));
		expect([refused.status, refused.body]).toEqual([
			400,
			{ statusCode: '05', message: 'Invalid template: 3' },
		]);
		sbx.configure({ dialect: { badTemplate: 'envelope200' } });
		const again = await call(sbx, 'POST', '/v2/orders/recipients', recipients({ templateId: 3 }));
		expect([again.status, again.body.statusCode]).toEqual([200, '05']);
		expect(orders()).toHaveLength(0);
	});
});

describe('dialect: webhook bodies', () => {
	const data = {
		serialNumber: 7000000000001,
		balance: 1500,
		orderNumber: 'ORD-1',
		status: 'FAILED',
	};

	it('are as the spec shows them under the default', () => {
		expect(eventInDialect('VOUCHER_UPDATED', data, resolveDialect())).toEqual({
			type: 'VOUCHER_UPDATED',
			data,
		});
	});

	it("take the numbers, case and extra fields of the dialect, the type in the statuses' case", () => {
		const body = eventInDialect(
			'VOUCHER_UPDATED',
			data,
			resolveDialect({ numbers: 'string', statusCase: 'lower', extraFields: true }),
		);
		expect(body).toMatchObject({
			type: 'voucher_updated',
			data: { serialNumber: '7000000000001', balance: '1500.00', status: 'failed' },
			traceId: expect.any(String),
		});
	});
});

describe('dialect: a long serial in a webhook body', () => {
	const setBalance = (serial: string) =>
		call(sbx, 'POST', `/__sandbox/vouchers/${serial}/balance`, { balance: 7 });

	it('is sent as a bare number, and the balance endpoint finds its voucher by every digit', async () => {
		const r = await startReceiver();
		try {
			sbx.configure({ dialect: { serials: 'long' }, webhooks: [{ url: r.url, secret: 's' }] });
			await postDownload(sbx, { quantity: 2 });
			const [first, second] = orders()[0].vouchers.map((voucher) => String(voucher.serial));
			expect(BigInt(second) - BigInt(first)).toBe(1n);
			expect((await setBalance(second)).status).toBe(200);
			await until('one delivery', () => r.hits.length === 1);
			expect(r.hits[0].raw.toString()).toContain(`"serialNumber":${second},`);
			const unknown = await setBalance(`${second}0`);
			expect([unknown.status, unknown.body]).toEqual([404, { error: `unknown serial ${second}0` }]);
		} finally {
			sbx.configure({ webhooks: [] });
			await r.close();
		}
	});
});

describe('dialect option', () => {
	it('is merged over the defaults on every configure, not over the last dialect', async () => {
		sbx.configure({ dialect: { unknownOrder: 'text404' } });
		sbx.configure({ dialect: { numbers: 'string' } });
		const res = await call(sbx, 'GET', '/v2/orders/nope');
		expect(res.body).toEqual({ statusCode: '04', message: 'Order not found' });
	});

	it('is set at start and through the admin endpoint; bad values are refused', async () => {
		const other = await startSandbox({ dialect: DIALECTS.everythingDifferent });
		try {
			expect((await call(other, 'GET', '/v2/orders/nope')).status).toBe(404);
			const config = (body: unknown) =>
				request(`${other.url}/__sandbox/config`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify(body),
				});
			const good = await config({ dialect: { unknownOrder: 'envelope404' } });
			expect(good.statusCode).toBe(200);
			await good.body.dump();
			expect((await call(other, 'GET', '/v2/orders/nope')).body.statusCode).toBe('04');
			for (const [bad, error] of [
				[{ dialect: { numbers: 'text' } }, /dialect.numbers must be one of "number", "string"/],
				[{ dialect: { colour: 'red' } }, /unknown dialect option colour/],
				[{ dialect: 'spec' }, /dialect must be an object/],
			] as const) {
				const res = await config(bad);
				expect(res.statusCode).toBe(400);
				expect(((await res.body.json()) as { error: string }).error).toMatch(error);
			}
		} finally {
			await other.close();
		}
	});

	it('names every single deviation and two with many at once', () => {
		expect(DIALECTS.spec).toEqual({});
		expect(Object.keys(DIALECTS.everythingDifferent)).toHaveLength(10);
		expect(Object.keys(DIALECTS.everythingReadable)).toHaveLength(9);
		for (const [name, dialect] of Object.entries(DIALECTS)) {
			if (['spec', 'everythingDifferent', 'everythingReadable'].includes(name)) continue;
			expect(Object.keys(dialect), name).toHaveLength(1);
		}
	});
});
