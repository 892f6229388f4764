import { describe, expect, it } from 'vitest';

import { VoucherServiceWebhookApi } from '../../credentials/VoucherServiceWebhookApi.credentials';
import { signPayload } from '../../nodes/voucherServiceApi/signature';
import { runNode } from '../../n8n-core-runner/runWorkflow.mts';
import { voucherNode } from './voucherNodeRunner.mts';

const SECRET = 'whsec-for-this-url';
const body =
	'{"type":"ORDER_UPDATED","data":{"orderNumber":"SBX-ORD-1","reference":"r-1","status":"FAILED"}}';

/** Webhook → Verify Signature inside a real n8n-core run, with only the webhook credential set. */
async function verify(items: Array<{ body: string; signature?: string }>) {
	const result = await runNode({
		nodeType: voucherNode,
		credentialTypes: [new VoucherServiceWebhookApi()],
		credentials: { voucherServiceWebhookApi: { secret: SECRET } },
		parameters: {
			resource: 'webhook',
			operation: 'verifySignature',
			rawBodySource: 'text',
			rawBodyText: '={{ $json.body }}',
			signature: '={{ $json.signature }}',
		},
		inputItems: items,
	});
	expect(result.error).toBeUndefined();
	return result.items[0].map((item) => item.json);
}

describe('Webhook → Verify Signature in a workflow', () => {
	it('needs no API credential and tells valid from tampered deliveries, item by item', async () => {
		const signature = signPayload(body, SECRET);
		const out = await verify([
			{ body, signature },
			{ body: body.replace('FAILED', 'COMPLETED'), signature },
			{ body, signature: signature.toUpperCase() },
			{ body, signature: '' },
			{ body: JSON.stringify(JSON.parse(body), null, 1), signature },
			{ body },
			{ body: 'hello', signature: signPayload('hello', SECRET) },
		]);
		expect(out[0]).toEqual({
			valid: true,
			event: {
				type: 'ORDER_UPDATED',
				data: { orderNumber: 'SBX-ORD-1', reference: 'r-1', status: 'FAILED' },
			},
		});
		expect(out.slice(1, 6).map((json) => json.valid)).toEqual([false, true, false, false, false]);
		// Signed but not an event: valid, and no event to pass on.
		expect(out[6]).toEqual({ valid: true });
		expect(JSON.stringify(out)).not.toContain(SECRET);
	});
});
