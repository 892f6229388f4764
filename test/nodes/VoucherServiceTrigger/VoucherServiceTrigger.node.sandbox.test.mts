import { setTimeout as sleep } from 'node:timers/promises';

import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { SEED_VOUCHERS, startSandbox, type Sandbox } from '../../../sandbox/server.mts';
import { VoucherServiceTrigger } from '../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
import { startWebhookHost, type HostOptions, type WebhookHost } from './n8nWebhookHost.mts';
import { postDownloadOrder, postRecipientOrder, settledDeliveries } from './sandboxOrders.mts';

const SECRET = 'dashboard-secret-for-this-url';
const [voucher, otherVoucher] = SEED_VOUCHERS;

let sb: Sandbox;
let host: WebhookHost | undefined;

async function listen(options: Partial<HostOptions> = {}, duplicates = 1): Promise<WebhookHost> {
	host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET, ...options });
	sb.configure({ webhooks: [{ url: host.url, secret: SECRET, duplicates }] });
	return host;
}

beforeAll(async () => {
	sb = await startSandbox({ timeFactor: 0.0005, processingDelayMs: 200 });
});

afterEach(async () => {
	await host?.close();
	host = undefined;
	sb.reset();
});

afterAll(async () => {
	await sb.close();
});

describe('VoucherServiceTrigger with the sandbox', () => {
	it('starts one execution per signed event and passes the data on as sent', async () => {
		const receiver = await listen({ parameters: { options: { includeRawBody: true } } });
		for (const code of [
			'VCH-SLOW-COMPLETED',
			'VCH-SLOW-PARTIAL',
			'VCH-SLOW-CANCELED',
			'VCH-SLOW-FAILED',
		]) {
			await postDownloadOrder(sb, code);
		}
		await postRecipientOrder(sb, 'VCH-SLOW-COMPLETED');
		sb.emitVoucherUpdate(voucher.serial, 1234.5);

		const deliveries = await settledDeliveries(sb, 6);
		await receiver.idle();

		expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200, 200, 200]);
		expect(receiver.executions).toHaveLength(6);
		for (const delivery of deliveries) {
			const sent = JSON.parse(delivery.body) as { type: string; data: object };
			const item = receiver.executions.flat().find((json) => json.rawBody === delivery.body);
			expect(item).toMatchObject({ event: sent.type, data: sent.data });
			expect(Date.parse(String(item?.receivedAt))).not.toBeNaN();
		}
		const statuses = receiver.executions
			.flat()
			.map((json) => (json.data as { status?: string }).status);
		expect(statuses).toEqual(
			expect.arrayContaining(['COMPLETED', 'PARTIALLY_COMPLETED', 'CANCELED', 'FAILED']),
		);
	});

	it('keeps the null code, pin and expiry date of delivery orders', async () => {
		const receiver = await listen();
		await postRecipientOrder(sb, 'VCH-SLOW-COMPLETED');
		await settledDeliveries(sb, 1);
		await receiver.idle();

		const [[item]] = receiver.executions;
		const [first] = (item.data as { vouchers: object[] }).vouchers;
		expect(first).toMatchObject({
			code: null,
			pin: null,
			expiryDate: null,
			email: 'ada@example.ng',
		});
	});

	it('answers 401 to a delivery signed with another secret, which the service does not retry', async () => {
		const receiver = await listen();
		sb.configure({ webhooks: [{ url: receiver.url, secret: 'rotated-in-the-dashboard' }] });
		sb.emitVoucherUpdate(voucher.serial, 10);

		await settledDeliveries(sb, 1);
		await sleep(500); // several first-retry delays (3 min x 0.0005 = 90 ms)

		expect(sb.state.deliveries.map((d) => [d.status, d.outcome, d.attempt])).toEqual([
			[401, 'rejected', 1],
		]);
		expect(receiver.executions).toHaveLength(0);
	});

	it("answers 503 while the credential cannot be read, and the service's retry runs the event once", async () => {
		let reads = 0;
		const receiver = await listen({
			webhookContext: {
				getCredentials: async () => {
					if (++reads === 1) throw new Error('Credentials could not be decrypted.');
					return { secret: SECRET };
				},
			},
		});
		sb.emitVoucherUpdate(voucher.serial, 11);

		await vi.waitFor(() => expect(sb.state.deliveries.at(-1)?.outcome).toBe('delivered'));
		await receiver.idle();
		expect(sb.state.deliveries.map((d) => [d.status, d.outcome, d.attempt])).toEqual([
			[503, 'retry', 1],
			[200, 'delivered', 2],
		]);
		expect(receiver.executions).toHaveLength(1);
	});

	it('starts one execution per event when the service sends each one five times at once', async () => {
		const receiver = await listen({}, 5);
		await postDownloadOrder(sb, 'VCH-SLOW-COMPLETED');
		await postDownloadOrder(sb, 'VCH-SLOW-FAILED');
		sb.emitVoucherUpdate(voucher.serial, 20);
		sb.emitVoucherUpdate(voucher.serial, 15);
		sb.emitVoucherUpdate(otherVoucher.serial, 20);

		const deliveries = await settledDeliveries(sb, 25);
		await receiver.idle();

		expect(deliveries).toHaveLength(25);
		expect(deliveries.every((d) => d.status === 200)).toBe(true);
		expect(receiver.executions).toHaveLength(5);
		const bodies = new Set(deliveries.map((d) => d.body));
		expect(bodies.size).toBe(5);
		const ignored = receiver.answers.filter((a) => a.body.includes('"duplicate"'));
		expect(ignored).toHaveLength(20);
	});

	it('lets every copy through when duplicate suppression is off', async () => {
		const receiver = await listen({ parameters: { suppressDuplicates: false } }, 3);
		sb.emitVoucherUpdate(voucher.serial, 30);
		await settledDeliveries(sb, 3);
		await receiver.idle();
		expect(receiver.executions).toHaveLength(3);
	});

	it('remembers an event across an n8n restart, through the static data its execution saved', async () => {
		const first = await listen();
		sb.emitVoucherUpdate(voucher.serial, 40);
		const [delivery] = await settledDeliveries(sb, 1);
		await first.close();
		expect(first.executions).toHaveLength(1);
		expect(first.db.staticData).toContain('VOUCHER_UPDATED');

		vi.resetModules(); // a new process: nothing kept in module memory
		const restarted = await import(
			'../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node'
		);
		host = await startWebhookHost({
			node: new restarted.VoucherServiceTrigger(),
			secret: SECRET,
			db: first.db,
		});

		const redelivery = await request(host.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', signature: delivery.signature },
			body: delivery.body,
		});
		expect(redelivery.statusCode).toBe(200);
		expect(await redelivery.body.json()).toEqual({ received: true, ignored: 'duplicate' });
		await host.idle();
		expect(host.executions).toHaveLength(0);
	});

	it('answers 200 without an execution for events and statuses the user filtered out', async () => {
		const receiver = await listen({
			parameters: { events: ['ORDER_UPDATED'], orderStatuses: ['FAILED'] },
		});
		await postDownloadOrder(sb, 'VCH-SLOW-COMPLETED');
		await postDownloadOrder(sb, 'VCH-SLOW-FAILED');
		sb.emitVoucherUpdate(voucher.serial, 50);

		const deliveries = await settledDeliveries(sb, 3);
		await receiver.idle();

		expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
		expect(
			receiver.executions.flat().map((json) => (json.data as { status: string }).status),
		).toEqual(['FAILED']);
		expect(receiver.answers.filter((a) => a.body.includes('"filtered"'))).toHaveLength(2);
	});
});
