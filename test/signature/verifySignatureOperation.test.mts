import type { IExecuteFunctions } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { signPayload } from '../../nodes/shared/signature';
import {
	description,
	execute,
} from '../../nodes/VoucherService/actions/webhook/verifySignature.operation';

const SECRET = 'per-url-secret';
const body = JSON.stringify({ type: 'VOUCHER_UPDATED', data: { serialNumber: 7, balance: 5 } });

function context(parameters: Record<string, unknown>, binary: Buffer = Buffer.from(body)) {
	return {
		getNodeParameter: (name: string, _item: number, fallback?: unknown) =>
			parameters[name] ?? fallback,
		getCredentials: async () => ({ secret: SECRET }),
		helpers: {
			assertBinaryData: () => ({ mimeType: 'application/json', data: '' }),
			getBinaryDataBuffer: async () => binary,
		},
	} as unknown as IExecuteFunctions;
}

describe('Webhook → Verify Signature', () => {
	it('shows its fields only for the webhook resource and this operation', () => {
		for (const property of description) {
			expect(property.displayOptions?.show).toMatchObject({
				resource: ['webhook'],
				operation: ['verifySignature'],
			});
		}
	});

	it('verifies the raw body from a binary field and returns the event', async () => {
		const ctx = context({
			rawBodySource: 'binary',
			binaryPropertyName: 'data',
			signature: signPayload(body, SECRET),
		});
		expect(await execute.call(ctx, 0)).toEqual({
			valid: true,
			event: { type: 'VOUCHER_UPDATED', data: { serialNumber: 7, balance: 5 } },
		});
	});

	it('verifies a raw body given as text', async () => {
		const ctx = context({
			rawBodySource: 'text',
			rawBodyText: body,
			signature: signPayload(body, SECRET),
		});
		expect(await execute.call(ctx, 0)).toMatchObject({ valid: true });
	});

	it('is invalid for a body parsed and serialised again, or a wrong signature', async () => {
		const respaced = JSON.stringify(JSON.parse(body), null, 1);
		const signature = signPayload(body, SECRET);
		expect(
			await execute.call(context({ rawBodySource: 'text', rawBodyText: respaced, signature }), 0),
		).toEqual({ valid: false });
		expect(
			await execute.call(
				context({ rawBodySource: 'text', rawBodyText: body, signature: 'abc' }),
				0,
			),
		).toEqual({ valid: false });
		expect(await execute.call(context({ rawBodySource: 'text', rawBodyText: body }), 0)).toEqual({
			valid: false,
		});
	});

	it('says valid, without an event, for a signed body that is not an event', async () => {
		const ctx = context({
			rawBodySource: 'text',
			rawBodyText: 'hello',
			signature: signPayload('hello', SECRET),
		});
		expect(await execute.call(ctx, 0)).toEqual({ valid: true });
	});
});
