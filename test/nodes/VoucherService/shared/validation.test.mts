import { describe, expect, it } from 'vitest';
import type { INodeParameters } from 'n8n-workflow';

import { apiRequests, runVoucher, sandboxForThisFile } from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile({}, { resetBeforeEach: false });

const download = (overrides: INodeParameters): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference: 'valid-ref',
	productCode: 'VCH-INSTANT',
	amount: 100,
	quantity: 1,
	...overrides,
});

const recipient = { firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' };
const forRecipients = (overrides: INodeParameters): INodeParameters => ({
	resource: 'order',
	operation: 'createForRecipients',
	reference: 'valid-ref',
	productCode: 'VCH-INSTANT',
	amount: 100,
	templateId: 1,
	recipientsSource: 'manual',
	recipients: { recipient: [recipient] },
	...overrides,
});

const withRecipient = (patch: Record<string, string>) =>
	forRecipients({ recipients: { recipient: [recipient, { ...recipient, ...patch }] } });

/**
 * [what, parameters, the field the error must name]. A literally empty required field is
 * already refused by n8n itself; empties here come from expressions, as from a blank cell.
 */
const catalogue: Array<[string, INodeParameters, string]> = [
	['empty reference (from an empty cell)', download({ reference: '={{ "" }}' }), 'reference'],
	['blank reference', download({ reference: '   ' }), 'reference'],
	[
		'empty product code (from an empty cell)',
		download({ productCode: '={{ $json.missing }}' }),
		'productCode',
	],
	['blank product code', download({ productCode: ' \t ' }), 'productCode'],
	['zero amount', download({ amount: 0 }), 'amount'],
	['negative amount', download({ amount: -5 }), 'amount'],
	['three decimals', download({ amount: 10.005 }), 'amount'],
	['float noise', download({ amount: '={{ 0.1 + 0.2 }}' }), 'amount'],
	['infinite amount', download({ amount: '={{ Infinity }}' }), 'amount'],
	['NaN amount', download({ amount: '={{ NaN }}' }), 'amount'],
	['text amount', download({ amount: '={{ "ten" }}' }), 'amount'],
	['zero quantity', download({ quantity: 0 }), 'quantity'],
	['fractional quantity', download({ quantity: 1.5 }), 'quantity'],
	['negative quantity', download({ quantity: -2 }), 'quantity'],
	['3-digit PIN', download({ additionalFields: { pin: '123' } }), 'pin'],
	['5-digit PIN', download({ additionalFields: { pin: '12345' } }), 'pin'],
	['letters in PIN', download({ additionalFields: { pin: '12a4' } }), 'pin'],
	['no recipients', forRecipients({ recipients: {} }), 'recipients'],
	['empty recipient list', forRecipients({ recipients: { recipient: [] } }), 'recipients'],
	['blank first name', withRecipient({ firstName: ' ' }), 'recipients[1].firstName'],
	['blank last name', withRecipient({ lastName: '' }), 'recipients[1].lastName'],
	['e-mail without @', withRecipient({ email: 'ada.example.com' }), 'recipients[1].email'],
	['e-mail without domain', withRecipient({ email: 'ada@' }), 'recipients[1].email'],
	['e-mail with spaces', withRecipient({ email: 'a da@example.com' }), 'recipients[1].email'],
	['empty e-mail', withRecipient({ email: '' }), 'recipients[1].email'],
	['fractional template', forRecipients({ templateId: 1.5 }), 'templateId'],
	['text template', forRecipients({ templateId: 'classic' }), 'templateId'],
	['recipients: zero amount', forRecipients({ amount: 0 }), 'amount'],
	['recipients: blank reference', forRecipients({ reference: ' ' }), 'reference'],
	['get: blank reference', { resource: 'order', operation: 'get', reference: '  ' }, 'reference'],
	[
		'status: empty code',
		{ resource: 'voucher', operation: 'getStatus', voucherCode: '={{ "" }}' },
		'voucherCode',
	],
];

describe('validation catalogue: bad input is refused before any request', () => {
	it.each(catalogue)('%s', async (_what, parameters, field) => {
		const before = apiRequests(sandbox).length;
		const result = await runVoucher(sandbox, parameters, { items: [{}, {}] });
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toContain('Item 0');
		expect(result.error?.message).toContain(`"${field}"`);
		expect(apiRequests(sandbox).length).toBe(before);
	});

	it(`sent 0 requests for all ${catalogue.length} invalid inputs`, () => {
		expect(catalogue.length).toBeGreaterThanOrEqual(25);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('names the failing item when only a later item is bad, and continues with continueOnFail', async () => {
		const result = await runVoucher(
			sandbox,
			download({ reference: '={{ $json.ref }}', quantity: '={{ $json.qty }}' }),
			{
				items: [
					{ ref: 'v-1', qty: 1 },
					{ ref: 'v-2', qty: 0 },
				],
				continueOnFail: true,
			},
		);
		expect(result.json[0]).toMatchObject({ reference: 'v-1', status: 'COMPLETED' });
		expect(result.json[1].error).toMatch(/^Item 1: invalid "quantity"/);
		expect(
			apiRequests(sandbox, 'POST').map((entry) => (entry.body as { reference: string }).reference),
		).toEqual(['v-1']);
	});
});
