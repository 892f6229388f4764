/**
 * The trigger under every dialect the sandbox's webhooks speak (sandbox/dialect.mts), and
 * under bodies the spec does not show: each event runs once, or is answered 5xx so the
 * service delivers it again; a 2xx without a run only for what the filters read with
 * certainty. What the output shows: docs/trigger.md.
 */
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { signPayload } from '../../../nodes/serviceProtocol/signature';
import { VoucherServiceTrigger } from '../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
import { opaqueTemplateId, type Dialect } from '../../../sandbox/dialect.mts';
import { DIALECTS, SEED_VOUCHERS, startSandbox, type Sandbox } from '../../../sandbox/server.mts';
import { startWebhookHost, type HostOptions, type WebhookHost } from './n8nWebhookHost.mts';
import { postDownloadOrder, postRecipientOrder, settledDeliveries } from './sandboxOrders.mts';

const SECRET = 'dashboard-secret-for-dialects';
const FILTER_FAILED = { events: ['ORDER_UPDATED'], orderStatuses: ['FAILED'] };

let sb: Sandbox;
let host: WebhookHost | undefined;

beforeAll(async () => {
	sb = await startSandbox({ timeFactor: 0.0005, processingDelayMs: 100 });
});
afterEach(async () => {
	await host?.close();
	host = undefined;
	sb.configure({ webhooks: [], dialect: {} });
	sb.reset();
});
afterAll(async () => {
	await sb.close();
});

async function listen(options: Partial<HostOptions> = {}): Promise<WebhookHost> {
	host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET, ...options });
	return host;
}

type Item = { event: string; data: Record<string, unknown>; deduplicationKey: string | null };
const items = (receiver: WebhookHost) => receiver.executions.flat() as unknown as Item[];

/** The dialects that change what a webhook body looks like, and the spec's own reading. */
const WEBHOOK_KEYS: Array<keyof Dialect> = ['numbers', 'statusCase', 'extraFields', 'serials'];
const webhookDialects = Object.entries(DIALECTS).filter(
	([name, dialect]) => name === 'spec' || WEBHOOK_KEYS.some((key) => key in dialect),
);

/** A new balance per test: the same serial and balance would be a copy of an earlier event. */
let balance = 1000.5;

describe.each(webhookDialects)('the sandbox speaking dialect %s', (_, dialect) => {
	it('runs every event once, delivered twice, and shows it in the spec types and case', async () => {
		sb.configure({ dialect });
		const receiver = await listen({ parameters: { options: { includeRawBody: true } } });
		sb.configure({ webhooks: [{ url: receiver.url, secret: SECRET, duplicates: 2 }] });
		for (const code of ['COMPLETED', 'PARTIAL', 'CANCELED', 'FAILED'])
			await postDownloadOrder(sb, `VCH-SLOW-${code}`);
		await postRecipientOrder(
			sb,
			'VCH-SLOW-COMPLETED',
			dialect.templateIds === 'opaque' ? opaqueTemplateId('1') : 1,
		);
		sb.emitVoucherUpdate(SEED_VOUCHERS[0].serial, ++balance);

		const deliveries = await settledDeliveries(sb, 12);
		await receiver.idle();

		expect(deliveries.map((d) => d.status)).toEqual(deliveries.map(() => 200));
		expect(receiver.answers.filter((a) => a.body.includes('"duplicate"'))).toHaveLength(6);
		const ran = items(receiver);
		expect(ran).toHaveLength(6);
		const orders = ran.filter((item) => item.event === 'ORDER_UPDATED');
		expect(orders.map((item) => item.data.status).sort()).toEqual(
			['CANCELED', 'COMPLETED', 'COMPLETED', 'FAILED', 'PARTIALLY_COMPLETED'].sort(),
		);
		for (const { data, deduplicationKey } of orders) {
			expect(deduplicationKey).toBe(
				JSON.stringify(['ORDER_UPDATED', data.orderNumber, data.status]),
			);
			const vouchers = (data.vouchers ?? []) as Array<Record<string, unknown>>;
			for (const voucher of vouchers) {
				expect(typeof voucher.value).toBe('number');
				if (voucher.status !== null) expect(voucher.status).toMatch(/^[A-Z]+$/);
			}
			// Every digit of the books' serial: a number where it is safe, else its digits.
			const booked = [...sb.state.orders.values()].find(
				(order) => order.orderNumber === data.orderNumber,
			)!;
			expect(vouchers.map((voucher) => voucher.serial)).toEqual(
				booked.vouchers.map(({ serial }) => (typeof serial === 'bigint' ? String(serial) : serial)),
			);
		}
		const [update] = ran.filter((item) => item.event === 'VOUCHER_UPDATED');
		expect(update.data).toMatchObject({ serialNumber: SEED_VOUCHERS[0].serial, balance });
		expect(update.deduplicationKey).toBe(
			JSON.stringify(['VOUCHER_UPDATED', SEED_VOUCHERS[0].serial, balance]),
		);
		if (dialect.extraFields) expect(orders[0].data).toHaveProperty('createdAt');
	});

	it('filters by status in any case: only FAILED runs, the rest is answered as filtered', async () => {
		sb.configure({ dialect });
		const receiver = await listen({ parameters: FILTER_FAILED });
		sb.configure({ webhooks: [{ url: receiver.url, secret: SECRET }] });
		await postDownloadOrder(sb, 'VCH-SLOW-COMPLETED');
		await postDownloadOrder(sb, 'VCH-SLOW-FAILED');

		await settledDeliveries(sb, 2);
		await receiver.idle();
		expect(items(receiver).map((item) => item.data.status)).toEqual(['FAILED']);
		expect(receiver.answers.filter((a) => a.body.includes('"filtered"'))).toHaveLength(1);
	});
});

/** Signs and posts `body` as the service would, and waits for what it started. */
async function deliver(receiver: WebhookHost, body: unknown) {
	const text = JSON.stringify(body);
	const res = await request(receiver.url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', signature: signPayload(text, SECRET) },
		body: text,
	});
	const answer = await res.body.text();
	await receiver.idle();
	return { status: res.statusCode, body: answer };
}

let number = 0;
const order = (data: Record<string, unknown> = {}, type: unknown = 'ORDER_UPDATED') => ({
	type,
	data: {
		orderNumber: `ORD-${++number}`,
		reference: `ref-${number}`,
		status: 'COMPLETED',
		...data,
	},
});
const voucherUpdate = (data: Record<string, unknown> = {}, type: unknown = 'VOUCHER_UPDATED') => ({
	type,
	data: {
		orderNumber: 'ORD-1',
		voucherCode: 'SBX-****-0001',
		serialNumber: 7000000000000 + ++number,
		balance: 1500,
		email: 'ada@example.ng',
		...data,
	},
});
const VOUCHER_SENT = {
	value: '1000.00',
	serial: '7000000000001',
	code: null,
	pin: null,
	expiryDate: null,
	status: 'delivered',
	firstName: 'Ada',
	lastName: 'Obi',
	email: 'ada@example.ng',
};
const VOUCHER_READ = { ...VOUCHER_SENT, value: 1000, serial: 7000000000001, status: 'DELIVERED' };

describe('bodies the spec does not show, signed', () => {
	const runs: Array<[string, object, Record<string, unknown>]> = [
		[
			'type and status in lower case',
			order({ status: 'completed' }, 'order_updated'),
			{ status: 'COMPLETED' },
		],
		[
			'type and status in mixed case with spaces around',
			order({ status: ' Partially_Completed ' }, ' Order_Updated '),
			{ status: 'PARTIALLY_COMPLETED' },
		],
		[
			"vouchers' numbers as text and statuses in lower case",
			order({ status: 'partially_completed', vouchers: [VOUCHER_SENT] }),
			{ status: 'PARTIALLY_COMPLETED', vouchers: [VOUCHER_READ] },
		],
		['CANCELED without vouchers', order({ status: 'canceled' }), { status: 'CANCELED' }],
		['FAILED without vouchers', order({ status: 'FAILED' }), { status: 'FAILED' }],
		[
			'extra fields at the top and in data',
			{ ...order({ channel: 'API', nested: { a: 1 } }), traceId: 't-1', timestamp: 'now' },
			{ status: 'COMPLETED', channel: 'API', nested: { a: 1 } },
		],
		[
			'a voucher update with serial number and balance as text',
			voucherUpdate({ serialNumber: '7000000000001', balance: '1500.00' }, 'voucher_updated'),
			{ serialNumber: 7000000000001, balance: 1500 },
		],
		[
			'a serial past 2^53, which stays text rather than lose a digit',
			voucherUpdate({ serialNumber: '90071992547409931' }),
			{ serialNumber: '90071992547409931' },
		],
		['a voucher update without email', voucherUpdate({ email: undefined }), { balance: 1500 }],
		[
			'an unknown status while every status is selected',
			order({ status: 'success' }),
			{ status: 'SUCCESS' },
		],
		['no status while every status is selected', order({ status: undefined }), {}],
	];

	it.each(runs)('runs %s, and shows it as read', async (_, body, shown) => {
		const receiver = await listen({ parameters: { suppressDuplicates: false } });
		expect((await deliver(receiver, body)).status).toBe(200);
		const [item] = items(receiver);
		expect(items(receiver)).toHaveLength(1);
		expect(item.event).toBe((body as { type: string }).type.trim().toUpperCase());
		expect(item.data).toMatchObject(shown);
	});

	const filtered: Array<[string, Partial<HostOptions>, object]> = [
		[
			'a type in lower case that Events leaves out',
			{ parameters: FILTER_FAILED },
			voucherUpdate({}, 'voucher_updated'),
		],
		[
			'a status in lower case that Order Statuses leaves out',
			{ parameters: FILTER_FAILED },
			order({ status: 'completed' }),
		],
		// The spec's one status that is not terminal: never among the four, whatever is selected.
		['PROCESSING, while every status is selected', {}, order({ status: 'processing' })],
	];

	it.each(filtered)(
		'answers 200 filtered to %s: the filter read it with certainty',
		async (_, options, body) => {
			const receiver = await listen(options);
			expect(await deliver(receiver, body)).toEqual({
				status: 200,
				body: JSON.stringify({ received: true, ignored: 'filtered' }),
			});
			expect(receiver.executions).toHaveLength(0);
		},
	);

	const unreadable: Array<[string, Partial<HostOptions>, unknown, string]> = [
		[
			'an unknown status that Order Statuses may leave out',
			{ parameters: FILTER_FAILED },
			order({ status: 'ERROR' }),
			'order status "ERROR"',
		],
		[
			'no status while Order Statuses leaves some out',
			{ parameters: FILTER_FAILED },
			order({ status: undefined }),
			'order status missing',
		],
		[
			'a status that is not text',
			{ parameters: FILTER_FAILED },
			order({ status: 3 }),
			'order status 3',
		],
		['an unknown type', {}, voucherUpdate({}, 'VOUCHER_CREATED'), 'type "VOUCHER_CREATED"'],
		['no type', {}, { data: order().data }, 'string `type`'],
		['a type that is not text', {}, { type: 1, data: order().data }, 'string `type`'],
		['no data', {}, { type: 'ORDER_UPDATED' }, 'object `data`'],
		['data null', {}, { type: 'ORDER_UPDATED', data: null }, 'object `data`'],
		['data a list', {}, { type: 'ORDER_UPDATED', data: [order().data] }, 'object `data`'],
		[
			'data as text',
			{},
			{ type: 'ORDER_UPDATED', data: JSON.stringify(order().data) },
			'object `data`',
		],
	];

	it.each(unreadable)(
		'answers 500 to %s, runs nothing and logs why, so the service delivers it again',
		async (_, options, body, why) => {
			const receiver = await listen(options);
			expect(await deliver(receiver, body)).toEqual({ status: 500, body: 'Event not understood' });
			expect(receiver.executions).toHaveLength(0);
			expect(receiver.warnings).toHaveLength(1);
			expect(receiver.warnings[0]).toContain(why);
			expect(receiver.warnings[0]).not.toContain(SECRET);
		},
	);

	it('runs an unknown type as sent when Include Unknown Event Types is on', async () => {
		const receiver = await listen({ parameters: { options: { includeUnknownEvents: true } } });
		const body = voucherUpdate({ balance: '7.50' }, 'voucher_created');
		expect((await deliver(receiver, body)).status).toBe(200);
		expect(items(receiver)).toEqual([
			expect.objectContaining({
				event: 'voucher_created',
				data: body.data,
				deduplicationKey: null,
			}),
		]);
	});
});

describe('a redelivery in another dialect', () => {
	it.each([
		[
			'an order update in lower case',
			{
				type: 'ORDER_UPDATED',
				data: { orderNumber: 'ORD-77', reference: 'r', status: 'COMPLETED' },
			},
			{
				type: 'order_updated',
				data: { orderNumber: 'ORD-77', reference: 'r', status: 'completed' },
			},
		],
		[
			'a voucher update with its numbers as text',
			{ type: 'VOUCHER_UPDATED', data: { serialNumber: 12, balance: 1500 } },
			{ type: 'Voucher_Updated', data: { serialNumber: '12', balance: '1500.00', extra: true } },
		],
	])('is %s: a duplicate, run once', async (_, first, again) => {
		const receiver = await listen();
		expect((await deliver(receiver, first)).status).toBe(200);
		expect(await deliver(receiver, again)).toEqual({
			status: 200,
			body: JSON.stringify({ received: true, ignored: 'duplicate' }),
		});
		expect(receiver.executions).toHaveLength(1);
		expect(receiver.executions[0]).toHaveLength(1);
	});
});
