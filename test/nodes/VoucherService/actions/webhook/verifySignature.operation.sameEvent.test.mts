/**
 * Webhook → Verify Signature and the trigger give the same bytes the same event (issue 42):
 * type and statuses in the spec's case, decimal text as its number, what is not a number as
 * sent, long serials as their digits. Deliveries of the sandbox in its dialects, and bodies it
 * never sends, go to the trigger served as n8n serves it, and then through Verify Signature.
 */
import { request } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

import { signPayload } from '../../../../../nodes/serviceProtocol/signature';
import { VoucherServiceTrigger } from '../../../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
import { opaqueTemplateId } from '../../../../../sandbox/dialect.mts';
import { DIALECTS, SEED_VOUCHERS, startSandbox } from '../../../../../sandbox/server.mts';
import {
	startWebhookHost,
	type WebhookHost,
} from '../../../VoucherServiceTrigger/n8nWebhookHost.mts';
import {
	postDownloadOrder,
	postRecipientOrder,
	settledDeliveries,
} from '../../../VoucherServiceTrigger/sandboxOrders.mts';
import { runVerifySignature } from '../../voucherNodeRunner.mts';

const SECRET = 'dashboard-secret-for-one-reading';

const sb = await startSandbox({ timeFactor: 0.0005, processingDelayMs: 100 });
afterAll(() => sb.close());

let host: WebhookHost | undefined;
afterEach(async () => {
	await host?.close();
	host = undefined;
	sb.configure({ webhooks: [], dialect: {} });
	sb.reset();
});

/** The trigger running every event, each copy, unknown types too. */
async function listen(): Promise<WebhookHost> {
	host = await startWebhookHost({
		node: new VoucherServiceTrigger(),
		secret: SECRET,
		parameters: { suppressDuplicates: false, options: { includeUnknownEvents: true } },
	});
	return host;
}

type Event = { type: string; data: Record<string, unknown> };

/** What the trigger's executions show of each event, in the order they ran. */
const triggered = (receiver: WebhookHost): Event[] =>
	(receiver.executions.flat() as unknown as Array<{ event: string; data: Event['data'] }>).map(
		({ event, data }) => ({ type: event, data }),
	);

/** The same deliveries through Verify Signature: each valid, and its event. */
async function verified(deliveries: Array<{ body: string; signature: string }>): Promise<Event[]> {
	const out = await runVerifySignature(SECRET, deliveries);
	expect(out.map((json) => json.valid)).toEqual(deliveries.map(() => true));
	return out.map((json) => json.event as Event);
}

let balance = 2000.25;

describe.each(['numbersAsStrings', 'lowerCaseStatuses', 'longSerials', 'everythingDifferent'])(
	'the sandbox speaking %s',
	(name) => {
		it('gives each delivery the same event through Verify Signature as through the trigger', async () => {
			const dialect = DIALECTS[name as keyof typeof DIALECTS];
			sb.configure({ dialect });
			const receiver = await listen();
			sb.configure({ webhooks: [{ url: receiver.url, secret: SECRET }] });
			await postDownloadOrder(sb, 'VCH-SLOW-PARTIAL');
			await postRecipientOrder(
				sb,
				'VCH-SLOW-COMPLETED',
				'templateIds' in dialect ? opaqueTemplateId('1') : 1,
			);
			sb.emitVoucherUpdate(SEED_VOUCHERS[0].serial, ++balance);
			const deliveries = await settledDeliveries(sb, 3);
			await receiver.idle();

			const fromTrigger = triggered(receiver);
			expect(fromTrigger).toHaveLength(3);
			expect(await verified(deliveries)).toEqual(fromTrigger);
		});
	},
);

describe('bodies the sandbox never sends', () => {
	const bodies: Array<[string, object]> = [
		['an unknown status in lower case', { type: 'order_updated', data: { status: 'success' } }],
		[
			"vouchers' decimals as text, one that is not a number",
			{
				type: 'ORDER_UPDATED',
				data: {
					orderNumber: 12,
					status: 'Completed ',
					vouchers: [
						{ value: '1000.50', serial: '77', status: 'delivered' },
						{ value: 'NGN 1,000', serial: '90071992547409931', status: null },
					],
				},
			},
		],
		[
			'a voucher update with its balance as text',
			{ type: ' voucher_updated', data: { serialNumber: '12', balance: '1500.00' } },
		],
		['an unknown type', { type: 'wallet_updated', data: { balance: '1.00', status: 'ok' } }],
	];

	it.each(bodies)('gives %s the same event both ways', async (_, body) => {
		const receiver = await listen();
		const text = JSON.stringify(body);
		const signature = signPayload(text, SECRET);
		const res = await request(receiver.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', signature },
			body: text,
		});
		await res.body.text();
		await receiver.idle();
		expect(res.statusCode).toBe(200);

		const fromTrigger = triggered(receiver);
		expect(fromTrigger).toHaveLength(1);
		expect(await verified([{ body: text, signature }])).toEqual(fromTrigger);
	});
});
