import { setTimeout as sleep } from 'node:timers/promises';

import { request } from 'undici';

import type { Sandbox } from '../../sandbox/server.mts';

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error('Timed out waiting for the sandbox');
		await sleep(20);
	}
}

function basicAuth(sb: Sandbox): string {
	const { publicKey, secretKey } = sb.keys;
	return `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`;
}

async function post(sb: Sandbox, path: string, body: object): Promise<void> {
	const res = await request(`${sb.url}${path}`, {
		method: 'POST',
		headers: { authorization: basicAuth(sb), 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const text = await res.body.text();
	if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${text}`);
}

let references = 0;
const run = Date.now().toString(36);
const nextReference = () => `trigger-test-${run}-${++references}`;

/**
 * POSTs a download order straight to the sandbox's API (no node involved); with a slow
 * product it reaches a final status later and so sends ORDER_UPDATED.
 */
export async function postDownloadOrder(sb: Sandbox, productCode: string): Promise<void> {
	await post(sb, '/v2/orders', {
		reference: nextReference(),
		productCode,
		amount: 1000,
		quantity: 1,
	});
}

export async function postRecipientOrder(sb: Sandbox, productCode: string): Promise<void> {
	await post(sb, '/v2/orders/recipients', {
		reference: nextReference(),
		productCode,
		amount: 1000,
		templateId: 1,
		recipients: [{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.ng' }],
	});
}

/** Waits until `count` attempts were made and none is waiting for a retry. */
export async function settledDeliveries(sb: Sandbox, count: number) {
	await waitFor(() => {
		const { deliveries } = sb.state;
		return deliveries.length >= count && deliveries.every((d) => d.outcome !== 'retry');
	});
	return sb.state.deliveries;
}
