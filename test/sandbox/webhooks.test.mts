import { createHmac, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { until } from '../../real-n8n/fixtures.mts';
import { startSandbox } from '../../sandbox/server.mts';
import type { Sandbox } from '../../sandbox/server.mts';
import { call, postDownload, postRecipients, startReceiver } from './sandboxClient.mts';
import type { Hit } from './sandboxClient.mts';

const SECRET = 'whsec_sandbox_test_ä';
const TIME_FACTOR = 0.001; // retry delays of 180, 360, 720 and 1440 ms

/** Independent of the sandbox's own signing code: HMAC-SHA512 over the bytes as received. */
function verifies(hit: Hit, secret: string): boolean {
	const header = hit.headers.signature;
	if (typeof header !== 'string' || header === '') return false;
	const expected = createHmac('sha512', Buffer.from(secret, 'utf8')).update(hit.raw).digest();
	const given = Buffer.from(header, 'hex');
	return given.length === expected.length && timingSafeEqual(given, expected);
}

const event = (hit: Hit) => JSON.parse(hit.raw.toString('utf8'));

let sbx: Sandbox;
const receivers: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
	sbx = await startSandbox({
		processingDelayMs: 50,
		timeFactor: TIME_FACTOR,
		deliveryTimeoutMs: 300,
	});
});
afterAll(() => sbx.close());
afterEach(async () => {
	sbx.configure({ webhooks: [] });
	sbx.reset();
	await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(answer?: (i: number) => number | 'hang') {
	const r = await startReceiver(answer);
	receivers.push(r);
	return r;
}

async function slowOrder(post = postDownload, over: Record<string, unknown> = {}) {
	const res = await post(sbx, { productCode: 'VCH-SLOW-COMPLETED', ...over });
	expect(res.body.data.status).toBe('PROCESSING');
	return res.body.data as { orderNumber: string; reference: string };
}

describe('ORDER_UPDATED', () => {
	it('is signed with lowercase hex HMAC-SHA512 of the exact body bytes', async () => {
		const r = await receiver();
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		const order = await slowOrder();
		await until('one hit', () => r.hits.length === 1);
		const [hit] = r.hits;
		expect(hit.headers['content-type']).toBe('application/json');
		expect(hit.headers.signature).toMatch(/^[0-9a-f]{128}$/);
		expect(verifies(hit, SECRET)).toBe(true);
		expect(verifies(hit, 'another-secret')).toBe(false);
		expect(event(hit)).toMatchObject({
			type: 'ORDER_UPDATED',
			data: { orderNumber: order.orderNumber, reference: order.reference, status: 'COMPLETED' },
		});
	});

	it('shows code, pin and a zone-less expiry for download vouchers, and nulls the recipient fields', async () => {
		const r = await receiver();
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		await slowOrder(postDownload, { quantity: 2, pin: '9876' });
		await until('one hit', () => r.hits.length === 1);
		const { vouchers } = event(r.hits[0]).data;
		expect(vouchers).toHaveLength(2);
		for (const v of vouchers) {
			expect(v).toMatchObject({
				pin: '9876',
				code: expect.any(String),
				serial: expect.any(Number),
				status: null,
				firstName: null,
				lastName: null,
				email: null,
			});
			expect(v.expiryDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
		}
	});

	it('shows recipient fields for delivery orders and nulls pin, code and expiry', async () => {
		const r = await receiver();
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		await slowOrder(postRecipients);
		await until('one hit', () => r.hits.length === 1);
		for (const v of event(r.hits[0]).data.vouchers) {
			expect(v).toMatchObject({
				pin: null,
				code: null,
				expiryDate: null,
				status: 'DELIVERED',
				email: expect.stringContaining('@'),
			});
		}
	});

	it.each(['CANCELED', 'FAILED'])('omits vouchers for %s', async (outcome) => {
		const r = await receiver();
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		await postDownload(sbx, { productCode: `VCH-SLOW-${outcome}` });
		await until('one hit', () => r.hits.length === 1);
		const data = event(r.hits[0]).data;
		expect(data.status).toBe(outcome);
		expect('vouchers' in data).toBe(false);
	});

	it('is not sent for an order that completed in its create response', async () => {
		const r = await receiver();
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		await postDownload(sbx);
		await slowOrder();
		await until('one hit', () => r.hits.length === 1);
		await sleep(200);
		expect(r.hits).toHaveLength(1);
	});
});

describe('delivery and retry', () => {
	it('retries a 500 receiver exactly 5 times, 3:6:12:24 minutes scaled, with the same bytes', async () => {
		const r = await receiver(() => 500);
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		await slowOrder();
		await until('a delivery that gave up', () =>
			sbx.state.deliveries.some((d) => d.outcome === 'gave-up'),
		);
		await sleep(3000 * TIME_FACTOR * 60); // a further 180 ms: a sixth attempt would have arrived by now
		expect(r.hits).toHaveLength(5);
		expect(sbx.state.deliveries.map((d) => [d.attempt, d.status, d.outcome])).toEqual([
			[1, 500, 'retry'],
			[2, 500, 'retry'],
			[3, 500, 'retry'],
			[4, 500, 'retry'],
			[5, 500, 'gave-up'],
		]);
		const scheduled = [3, 6, 12, 24].map((min) => min * 60_000 * TIME_FACTOR);
		expect(sbx.state.deliveries.slice(1).map((d) => d.delayMs)).toEqual(scheduled);
		const gaps = r.hits.slice(1).map((h, i) => h.at - r.hits[i].at);
		gaps.forEach((gap, i) => {
			expect(gap).toBeGreaterThanOrEqual(scheduled[i] - 5);
			expect(gap).toBeLessThan(scheduled[i] + 2000);
		});
		expect(new Set(r.hits.map((h) => h.raw.toString('hex'))).size).toBe(1);
		expect(new Set(r.hits.map((h) => h.headers.signature)).size).toBe(1);
	});

	it.each([200, 204, 400, 401])(
		'makes a single attempt when the receiver answers %i',
		async (status) => {
			const r = await receiver(() => status);
			sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
			await slowOrder();
			await until('one delivery', () => sbx.state.deliveries.length === 1);
			await sleep(400); // past the first retry delay of 180 ms
			expect(r.hits).toHaveLength(1);
			expect(sbx.state.deliveries).toHaveLength(1);
			expect(sbx.state.deliveries[0].outcome).toBe(status < 300 ? 'delivered' : 'rejected');
		},
	);

	it('stops retrying once the receiver recovers', async () => {
		const r = await receiver((i) => (i < 2 ? 503 : 200));
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		await slowOrder();
		await until('a delivered event', () =>
			sbx.state.deliveries.some((d) => d.outcome === 'delivered'),
		);
		await sleep(900);
		expect(sbx.state.deliveries.map((d) => d.outcome)).toEqual(['retry', 'retry', 'delivered']);
	});

	it('retries a receiver that does not answer within deliveryTimeoutMs', async () => {
		const r = await receiver((i) => (i === 0 ? 'hang' : 200));
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		await slowOrder();
		await until('two deliveries', () => sbx.state.deliveries.length === 2);
		expect(sbx.state.deliveries[0]).toMatchObject({
			status: null,
			error: expect.any(String),
			outcome: 'retry',
		});
		expect(sbx.state.deliveries[1]).toMatchObject({ status: 200, outcome: 'delivered' });
	});

	it('retries a connection error', async () => {
		const r = await receiver();
		const deadUrl = r.url;
		await r.close();
		sbx.configure({ webhooks: [{ url: deadUrl, secret: SECRET }] });
		await slowOrder();
		await until('two deliveries', () => sbx.state.deliveries.length === 2);
		expect(sbx.state.deliveries.map((d) => [d.status, d.outcome])).toEqual([
			[null, 'retry'],
			[null, 'retry'],
		]);
		expect(sbx.state.deliveries[0].error).toBe('ECONNREFUSED');
	});

	it('sends the same signed body N times with duplicates: N', async () => {
		const r = await receiver();
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET, duplicates: 3 }] });
		await slowOrder();
		await until('three hits', () => r.hits.length === 3);
		await sleep(100);
		expect(r.hits).toHaveLength(3);
		expect(new Set(r.hits.map((h) => h.raw.toString('hex'))).size).toBe(1);
		expect(r.hits.every((h) => verifies(h, SECRET))).toBe(true);
		expect(sbx.state.deliveries.map((d) => d.copy).sort()).toEqual([1, 2, 3]);
	});

	it('sends each target only the events it subscribed to, signed with its own secret', async () => {
		const orders = await receiver();
		const vouchers = await receiver();
		sbx.configure({
			webhooks: [
				{ url: orders.url, secret: 'secret-a', events: ['ORDER_UPDATED'] },
				{ url: vouchers.url, secret: 'secret-b', events: ['VOUCHER_UPDATED'] },
			],
		});
		await slowOrder();
		sbx.emitVoucherUpdate(1_000_000_001, 10);
		await until(
			'one hit on each receiver',
			() => orders.hits.length === 1 && vouchers.hits.length === 1,
		);
		await sleep(100);
		expect(orders.hits.map((h) => event(h).type)).toEqual(['ORDER_UPDATED']);
		expect(vouchers.hits.map((h) => event(h).type)).toEqual(['VOUCHER_UPDATED']);
		expect(verifies(orders.hits[0], 'secret-a')).toBe(true);
		expect(verifies(vouchers.hits[0], 'secret-b')).toBe(true);
	});
});

describe('VOUCHER_UPDATED', () => {
	it('carries the masked code, serial, new balance and owner e-mail', async () => {
		const r = await receiver();
		sbx.configure({ webhooks: [{ url: r.url, secret: SECRET }] });
		const res = await postRecipients(sbx);
		const [voucher] = res.body.data.vouchers;
		sbx.emitVoucherUpdate(voucher.serial, 120.5);
		await until('one hit', () => r.hits.length === 1);
		const body = event(r.hits[0]);
		expect(body).toEqual({
			type: 'VOUCHER_UPDATED',
			data: {
				orderNumber: res.body.data.orderNumber,
				voucherCode: expect.stringMatching(/\*{4}/),
				serialNumber: voucher.serial,
				balance: 120.5,
				email: 'ada@example.com',
			},
		});
		const { code } = [...sbx.state.vouchers.values()].find((v) => v.serial === voucher.serial)!;
		expect(body.data.voucherCode).not.toBe(code);
		expect(body.data.voucherCode.slice(-4)).toBe(code.slice(-4));
		expect(verifies(r.hits[0], SECRET)).toBe(true);
	});

	it('marks a voucher USED when its balance reaches zero', async () => {
		const res = await postDownload(sbx);
		const [voucher] = res.body.data.vouchers;
		sbx.emitVoucherUpdate(voucher.serial, 0);
		const status = await call(sbx, 'GET', `/v2/vouchers/status/${voucher.code}`);
		expect(status.body.data.status).toBe('USED');
	});

	it('refuses an unknown serial', () => {
		expect(() => sbx.emitVoucherUpdate(42, 1)).toThrow(/serial 42/);
	});
});
