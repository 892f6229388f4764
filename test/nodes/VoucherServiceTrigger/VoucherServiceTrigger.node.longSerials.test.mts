/**
 * Serials past 2^53 in webhook bodies, sent as bare JSON numbers by the sandbox (dialect
 * `serials: 'long'`): the trigger and Webhook → Verify Signature read every digit of the
 * same bytes the same way, and two vouchers whose serials differ only past 2^53 are two
 * events, not a copy of one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { VoucherServiceTrigger } from '../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
import { SEED_VOUCHERS, startSandbox, type Sandbox } from '../../../sandbox/server.mts';
import { runVerifySignature } from '../VoucherService/voucherNodeRunner.mts';
import { startWebhookHost, type WebhookHost } from './n8nWebhookHost.mts';
import { postDownloadOrder, settledDeliveries } from './sandboxOrders.mts';

const SECRET = 'dashboard-secret-for-long-serials';

let sb: Sandbox;
let host: WebhookHost | undefined;

beforeAll(async () => {
	sb = await startSandbox({ timeFactor: 0.0005, dialect: { serials: 'long' } });
});
afterEach(async () => {
	await host?.close();
	host = undefined;
	sb.configure({ webhooks: [] });
	sb.reset();
});
afterAll(async () => {
	await sb.close();
});

type Item = { event: string; data: Record<string, unknown>; deduplicationKey: string | null };

/** Webhook → Verify Signature over the bytes and signature of each delivery. */
const verifiedEvents = async (deliveries: Array<{ body: string; signature: string }>) =>
	(await runVerifySignature(SECRET, deliveries)) as Array<{ valid: boolean; event: Item }>;

describe('VOUCHER_UPDATED with serials past 2^53', () => {
	it('two vouchers with the same balance, serials apart only past 2^53: both run, every digit kept', async () => {
		host = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: SECRET,
			parameters: { events: ['VOUCHER_UPDATED'] },
		});
		sb.configure({ webhooks: [{ url: host.url, secret: SECRET }] });
		await postDownloadOrder(sb, 'VCH-INSTANT');
		await postDownloadOrder(sb, 'VCH-INSTANT');
		const serials = [...sb.state.orders.values()].map((order) => order.vouchers[0].serial);
		// The sandbox's first two long serials: one double, 1234567890130000128, holds both.
		expect(serials).toEqual([1234567890130000161n, 1234567890130000162n]);
		for (const serial of serials) sb.emitVoucherUpdate(serial, 500);
		sb.emitVoucherUpdate(SEED_VOUCHERS[0].serial, 500);

		const deliveries = await settledDeliveries(sb, 3);
		await host.idle();
		expect(deliveries.map((delivery) => delivery.status)).toEqual([200, 200, 200]);
		expect(deliveries[0].body).toContain('"serialNumber":1234567890130000161,');

		const ran = host.executions.flat() as unknown as Item[];
		const expected = ['1234567890130000161', '1234567890130000162', SEED_VOUCHERS[0].serial];
		expect(ran.map((item) => item.data.serialNumber)).toEqual(expected);
		expect(ran.map((item) => item.deduplicationKey)).toEqual(
			expected.map((serial) => JSON.stringify(['VOUCHER_UPDATED', serial, 500])),
		);

		// The same bytes through Verify Signature: the same serial numbers, of the same types.
		const verified = await verifiedEvents(deliveries);
		expect(verified.map((json) => json.valid)).toEqual([true, true, true]);
		expect(verified.map((json) => json.event.data.serialNumber)).toEqual(expected);
	});
});
