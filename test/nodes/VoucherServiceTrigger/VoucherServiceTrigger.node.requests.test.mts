import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { signPayload } from '../../../nodes/serviceProtocol/signature';
import { VoucherServiceTrigger } from '../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
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

	it('answers 400 to a correctly signed body that is not a JSON object: no event to run or retry', async () => {
		host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET });
		expect((await deliver('not json')).status).toBe(400);
		expect((await deliver('["ORDER_UPDATED"]')).status).toBe(400);
		expect(host.executions).toHaveLength(0);
	});

	// Other shapes it cannot read: VoucherServiceTrigger.node.dialects.test.mts
	it('answers 500 to an unknown event type, so the service delivers it again', async () => {
		host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET });
		expect(await deliver(unknownEvent)).toEqual({ status: 500, text: 'Event not understood' });
		expect(host.executions).toHaveLength(0);
		expect(host.warnings[0]).toContain('Include Unknown Event Types');
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

describe('deliveries the node cannot check for a reason of its own', () => {
	const event = (serialNumber: number) =>
		JSON.stringify({ type: 'VOUCHER_UPDATED', data: { serialNumber, balance: 5 } });

	it.each([
		['the credential cannot be decrypted', 'Credentials could not be decrypted.', 701],
		['the database cannot be reached', 'SQLITE_BUSY: database is locked', 702],
	])(
		'answers 503 when %s, starts nothing and logs the cause without the secret',
		async (_, message, serial) => {
			const getCredentials = vi.fn(async () => {
				throw new Error(message);
			});
			host = await startWebhookHost({
				node: new VoucherServiceTrigger(),
				secret: SECRET,
				webhookContext: { getCredentials },
			});
			expect(await deliver(event(serial))).toEqual({ status: 503, text: 'Service Unavailable' });
			expect(getCredentials).toHaveBeenCalledOnce();
			expect(host.executions).toHaveLength(0);
			expect(host.warnings).toHaveLength(1);
			expect(host.warnings[0]).toContain(`Error: ${message}`);
			expect(host.warnings[0]).not.toContain(SECRET);
		},
	);

	it.each([
		['no credential on the node', { secret: undefined }],
		['an empty secret', { secret: '' }],
		[
			'a secret that is not a string',
			{ webhookContext: { getCredentials: async () => ({ secret: 42 }) } },
		],
	])('answers 503 to a signed delivery with %s', async (_, options) => {
		host = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: SECRET,
			...options,
		});
		expect((await deliver(event(703))).status).toBe(503);
		expect(host.executions).toHaveLength(0);
		expect(host.warnings).toHaveLength(1);
	});

	it('answers 503 when static data cannot be read, masks the secret, and runs the same delivery once later', async () => {
		const broken = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: SECRET,
			webhookContext: {
				getWorkflowStaticData: () => {
					throw new Error(`query failed near '${SECRET}'`);
				},
			},
		});
		host = broken;
		expect((await deliver(event(704))).status).toBe(503);
		expect(broken.warnings[0]).toContain("query failed near '[secret]'");
		expect(broken.warnings[0]).not.toContain(SECRET);
		await broken.close();

		// Same process (module), so a key remembered by the failed request would show here.
		host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET });
		expect((await deliver(event(704))).status).toBe(200);
		expect(host.executions).toEqual([[expect.objectContaining({ event: 'VOUCHER_UPDATED' })]]);
	});

	it('still answers 401 to a wrong signature when the secret can be read', async () => {
		host = await startWebhookHost({ node: new VoucherServiceTrigger(), secret: SECRET });
		const body = event(705);
		const answer = await deliver(body, { signature: signPayload(body, 'another-secret') });
		expect(answer).toEqual({ status: 401, text: 'Unauthorized' });
		expect(host.warnings).toHaveLength(0);
	});

	it.each([
		['a missing signature', {}],
		['a header that cannot be a signature', { signature: 'abc' }],
	])('answers 401 to %s without reading the credential', async (_, headers) => {
		const getCredentials = vi.fn();
		host = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: SECRET,
			webhookContext: { getCredentials },
		});
		const res = await request(host.url, { method: 'POST', headers, body: event(706) });
		expect(res.statusCode).toBe(401);
		await res.body.dump();
		expect(getCredentials).not.toHaveBeenCalled();
		expect(host.executions).toHaveLength(0);
	});
});

describe('the body as n8n hands it over, at node version 1 and 2', () => {
	const body = JSON.stringify({ type: 'VOUCHER_UPDATED', data: { serialNumber: 9, balance: 1 } });

	// At version 2 n8n reads no body of a content type it does not parse; the node must.
	it.each([1, 2])(
		'version %i: verifies and runs a delivery with a missing or unusual Content-Type',
		async (typeVersion) => {
			host = await startWebhookHost({
				node: new VoucherServiceTrigger(),
				secret: SECRET,
				typeVersion,
				parameters: { suppressDuplicates: false, options: { includeHeaders: true } },
			});
			const types = [
				undefined,
				'application/octet-stream',
				'application/vnd.voucher+json',
				'text/plain',
				'application/json; charset=utf-8',
			];
			const answers = [];
			for (const contentType of types) {
				const res = await request(host.url, {
					method: 'POST',
					headers: {
						signature: signPayload(body, SECRET),
						...(contentType === undefined ? {} : { 'content-type': contentType }),
					},
					body,
				});
				answers.push(res.statusCode);
				await res.body.dump();
				await host.idle();
			}
			expect(answers).toEqual(types.map(() => 200));
			expect(
				host.executions.map(([item]) => (item.headers as Record<string, string>)['content-type']),
			).toEqual(types);
			expect(host.executions.map(([item]) => item.data)).toEqual(
				types.map(() => ({ serialNumber: 9, balance: 1 })),
			);
		},
	);

	it.each([1, 2])(
		'version %i: refuses a multipart body, which n8n consumes before the node sees raw bytes',
		async (typeVersion) => {
			host = await startWebhookHost({
				node: new VoucherServiceTrigger(),
				secret: SECRET,
				typeVersion,
			});
			const answer = await deliver(body, { 'content-type': 'multipart/form-data; boundary=x' });
			expect(answer).toEqual({ status: 401, text: 'Unauthorized' });
			expect(host.executions).toHaveLength(0);
		},
	);

	it('is version 2 for new nodes and still loads workflows saved at version 1', () => {
		const { description } = new VoucherServiceTrigger();
		expect([description.version, description.defaultVersion]).toEqual([[1, 2], 2]);
	});
});
