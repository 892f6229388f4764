import { request } from 'undici';

import { basicAuth, until } from '../../../real-n8n/fixtures.mts';
import type { Sandbox } from '../../../sandbox/server.mts';

async function post(sb: Sandbox, path: string, body: object): Promise<void> {
	const res = await request(`${sb.url}${path}`, {
		method: 'POST',
		headers: { authorization: basicAuth(sb.keys), 'content-type': 'application/json' },
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

/** `templateId`: as the sandbox's dialect lists its first template. */
export async function postRecipientOrder(
	sb: Sandbox,
	productCode: string,
	templateId: number | string = 1,
): Promise<void> {
	await post(sb, '/v2/orders/recipients', {
		reference: nextReference(),
		productCode,
		amount: 1000,
		templateId,
		recipients: [{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.ng' }],
	});
}

/** Waits until `count` attempts were made and none is waiting for a retry. */
export async function settledDeliveries(sb: Sandbox, count: number) {
	await until(
		`${count} settled deliveries`,
		() => {
			const { deliveries } = sb.state;
			return deliveries.length >= count && deliveries.every((d) => d.outcome !== 'retry');
		},
		5000,
	);
	return sb.state.deliveries;
}
