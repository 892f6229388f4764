import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

import { signPayload } from '../../nodes/shared/signature';
import { VoucherServiceTrigger } from '../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
import { startWebhookHost, type WebhookHost } from './n8nWebhookHost.mts';

const SECRET = 'per-url-secret';
let host: WebhookHost;

afterEach(async () => {
	await host.close();
});

async function deliver(body: string, headers: Record<string, string> = {}) {
	const res = await request(host.url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			signature: signPayload(body, SECRET),
			...headers,
		},
		body,
	});
	const text = await res.body.text();
	await host.idle();
	return { status: res.statusCode, text };
}

const unknownEvent = JSON.stringify({ type: 'WALLET_UPDATED', data: { currency: 'NGN' } });

describe('requests the service would not send', () => {
	it('refuses a delivery without a signature header', async () => {
		host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET });
		const res = await request(host.url, { method: 'POST', body: unknownEvent });
		expect(res.statusCode).toBe(401);
		expect(await res.body.text()).toBe('Unauthorized');
		expect(host.executions).toHaveLength(0);
	});

	it('answers 400 to a correctly signed body that is not an event', async () => {
		host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET });
		expect((await deliver('{"type":"ORDER_UPDATED"}')).status).toBe(400);
		expect((await deliver('not json')).status).toBe(400);
		expect(host.executions).toHaveLength(0);
	});

	it('acknowledges an unknown event type without running the workflow', async () => {
		host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET });
		expect(await deliver(unknownEvent)).toEqual({
			status: 200,
			text: JSON.stringify({ received: true, ignored: 'filtered' }),
		});
		expect(host.executions).toHaveLength(0);
	});

	it('emits unknown event types, every time, when asked to', async () => {
		host = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: SECRET,
			parameters: { options: { includeUnknownEvents: true, includeHeaders: true } },
		});
		await deliver(unknownEvent);
		await deliver(unknownEvent);
		expect(host.executions).toHaveLength(2);
		const [[item]] = host.executions;
		expect(item).toMatchObject({ event: 'WALLET_UPDATED', data: { currency: 'NGN' } });
		expect((item.headers as Record<string, string>).signature).toBe(
			signPayload(unknownEvent, SECRET),
		);
		expect(item).not.toHaveProperty('rawBody');
	});
});
