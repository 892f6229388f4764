import { describe, expect, it } from 'vitest';

import { signPayload } from '../../../../../nodes/serviceProtocol/signature';
import { runVerifySignature } from '../../voucherNodeRunner.mts';

const SECRET = 'whsec-for-this-url';
const body =
	'{"type":"ORDER_UPDATED","data":{"orderNumber":"SBX-ORD-1","reference":"r-1","status":"FAILED"}}';

/** Webhook → Verify Signature inside a real n8n-core run, with only the webhook credential set. */
const verify = (items: Array<{ body: string; signature?: string }>, asTool = false) =>
	runVerifySignature(SECRET, items, asTool);

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

describe('Webhook → Verify Signature as an AI Agent tool', () => {
	it("gives the agent the event without the vouchers' codes and PINs", async () => {
		const withCodes = JSON.stringify({
			type: 'ORDER_UPDATED',
			data: {
				orderNumber: 'SBX-ORD-2',
				reference: 'r-2',
				status: 'COMPLETED',
				vouchers: [{ serial: 7001, value: 500, code: 'SBX-CODE-9F3A', pin: '4821' }],
			},
		});
		const item = { body: withCodes, signature: signPayload(withCodes, SECRET) };
		const [asTool] = await verify([item], true);
		expect(asTool).toMatchObject({
			valid: true,
			event: { data: { codesWithheld: true, vouchers: [{ serial: 7001, value: 500 }] } },
		});
		expect(JSON.stringify(asTool)).not.toMatch(/SBX-CODE-9F3A|4821/);
		const [inWorkflow] = await verify([item]);
		expect(JSON.stringify(inWorkflow)).toContain('SBX-CODE-9F3A');
	});
});
