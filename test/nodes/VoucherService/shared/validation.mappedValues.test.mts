/**
 * Values as users map them (issue 42): a number given to a text field is read as its digits, and
 * a value that cannot be used is refused naming the field, what was given and what is accepted,
 * never as if it were missing. Through the node, over loopback, against the sandbox: `{{ $json.x }}`
 * gives the node the item's JavaScript number, as n8n does.
 */
import { describe, expect, it } from 'vitest';
import type { INodeParameters } from 'n8n-workflow';

import { campaignParameters } from '../campaignParameters.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

const download = (overrides: INodeParameters = {}): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference: '={{ $json.id }}',
	productCode: '={{ $json.code }}',
	amount: 1000,
	quantity: 1,
	...overrides,
});

/** A number no other test of this run uses as a Reference. */
let next = Date.now() % 1_000_000_000;
const freshId = () => ++next * 1000 + (process.pid % 1000);

const sentBodies = () =>
	apiRequests(sandbox, 'POST').map((entry) => entry.body as Record<string, unknown>);

describe('a number mapped to a text field', () => {
	it('buys under a numeric Reference and a numeric Product Code, sent as their digits', async () => {
		const id = freshId();
		const run = await runVoucher(sandbox, download(), { items: [{ id, code: 1001 }] });
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ reference: String(id), status: 'COMPLETED' });
		expect(sentBodies()).toEqual([
			expect.objectContaining({ reference: String(id), productCode: '1001' }),
		]);

		// The same order read back by the number, through an expression n8n evaluates itself.
		const got = await runVoucher(
			sandbox,
			{ resource: 'order', operation: 'get', reference: '={{ $json.id + 0 }}' },
			{ items: [{ id }] },
		);
		expect(got.json[0]).toMatchObject({ reference: String(id), status: 'COMPLETED' });
	});

	it('reads a decimal and a negative number as JavaScript writes them', async () => {
		const id = freshId();
		const run = await runVoucher(sandbox, download({ reference: `=r-${id}-{{ $json.id }}` }), {
			items: [{ id: -12.5, code: 1001 }],
		});
		expect(run.json[0]).toMatchObject({ reference: `r-${id}--12.5` });
		const negative = await runVoucher(sandbox, download(), { items: [{ id: -id, code: 1001 }] });
		expect(negative.json[0]).toMatchObject({ reference: `-${id}`, status: 'COMPLETED' });
	});

	it('sends a numeric PIN as its digits, and says a 3-digit number lost a leading zero without showing it', async () => {
		const [ok, short] = [freshId(), freshId()];
		const run = await runVoucher(
			sandbox,
			download({ additionalFields: { pin: '={{ $json.pin }}' } }),
			{
				items: [
					{ id: ok, code: 1001, pin: 4821 },
					{ id: short, code: 1001, pin: 123 },
				],
				continueOnFail: true,
			},
		);
		expect(sentBodies()).toEqual([expect.objectContaining({ reference: String(ok), pin: '4821' })]);
		expect(run.json[1].error).toBe(
			'Item 1: invalid "pin": PIN must be exactly 4 digits, not a number of 3 (a number loses its leading zeros: give the PIN as text)',
		);
		expect(String(run.json[1].error)).not.toContain('123');
	});

	it('reads numeric names, narration and voucher code as their digits', async () => {
		const base = uniqueReference('digits');
		const campaign = await runVoucher(
			sandbox,
			campaignParameters(
				base,
				{},
				{ productCode: '={{ $json.code }}', additionalFields: { narration: '={{ $json.note }}' } },
			),
			{ items: [{ firstName: 42, lastName: 7, email: 'ada@example.com', code: 1001, note: 2026 }] },
		);
		expect(campaign.error).toBeUndefined();
		expect(sentBodies()).toEqual([
			expect.objectContaining({
				productCode: '1001',
				narration: '2026',
				recipients: [{ firstName: '42', lastName: '7', email: 'ada@example.com' }],
			}),
		]);

		const status = await runVoucher(
			sandbox,
			{ resource: 'voucher', operation: 'getStatus', voucherCode: '={{ $json.code }}' },
			{ items: [{ code: 987654321 }], continueOnFail: true },
		);
		// The service's own answer to that code: the node sent it, as its digits.
		expect(status.json[0].error).toBe('Voucher not found');
		expect(apiRequests(sandbox, 'GET').at(-1)?.path).toBe('/v2/vouchers/status/987654321');
	});

	it('keeps every digit of a long id given as text, and refuses one that came as a number past 2^53', async () => {
		const digits = `${freshId()}0000000000`;
		const run = await runVoucher(sandbox, download(), {
			items: [
				{ id: digits, code: 1001 },
				{ id: Number(digits), code: 1001 },
			],
			continueOnFail: true,
		});
		expect(run.json[0]).toMatchObject({ reference: digits, status: 'COMPLETED' });
		expect(run.json[1].error).toBe(
			`Item 1: invalid "reference": Reference was given the number ${Number(digits)}, past 2^53, whose digits were rounded before the node got them: give it as text to keep every digit`,
		);
		expect(sentBodies().map((body) => body.reference)).toEqual([digits]);
	});
});

describe('a value a text field cannot use', () => {
	it.each([
		['true', true, 'Reference must be text or a number, not the boolean true'],
		['null', null, 'Reference must be text or a number, not null'],
		['an object', { n: 1 }, 'Reference must be text or a number, not an object'],
		['a list', [1, 2], 'Reference must be text or a number, not a list'],
		['empty text', '  ', 'Reference must not be empty'],
	])('names what was given: %s', async (_, id, message) => {
		const run = await runVoucher(sandbox, download(), { items: [{ id, code: 1001 }] });
		expect(run.error?.message).toBe(`Item 0: invalid "reference": ${message}`);
		expect(run.error?.message).not.toContain('required');
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('names the values of amount, quantity and Row ID that it refuses', async () => {
		const run = await runVoucher(
			sandbox,
			download({ amount: '={{ $json.amount }}', quantity: '={{ $json.quantity }}' }),
			{
				items: [
					{ id: freshId(), code: 1001, amount: 'NGN 5000', quantity: 1 },
					{ id: freshId(), code: 1001, amount: 10.005, quantity: 1 },
					{ id: freshId(), code: 1001, amount: 1000, quantity: 2.5 },
				],
				continueOnFail: true,
			},
		);
		expect(run.json.map((json) => json.error)).toEqual([
			'Item 0: invalid "amount": Amount must be a number, not "NGN 5000"',
			'Item 1: invalid "amount": Amount must have at most 2 decimal places, not 10.005',
			'Item 2: invalid "quantity": Quantity must be a whole number from 1 to 2147483647, not 2.5',
		]);
		const paged = await runVoucher(
			sandbox,
			campaignParameters(uniqueReference('rows'), {}, { rowIdField: 'id' }),
			{ items: [{ id: 2 ** 60, firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' }] },
		);
		expect(paged.error?.message).toBe(
			`Item 0: invalid "rowId": Row ID was given the number ${2 ** 60}, past 2^53, whose digits were rounded before the node got them: give it as text to keep every digit`,
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});

	// In a real n8n, `{{ $json.tpl }}` of an item without that column gave "not a undefined".
	it('calls a number field missing only when nothing was given, and blank text empty', async () => {
		const recipients = {
			recipient: [{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' }],
		};
		const run = await runVoucher(
			sandbox,
			{
				resource: 'order',
				operation: 'createForRecipients',
				reference: '={{ $json.id }}',
				productCode: 'VCH-INSTANT',
				amount: '={{ $json.amount }}',
				templateId: '={{ $json.tpl }}',
				recipients,
			},
			{
				items: [
					{ id: freshId(), amount: 1000 },
					{ id: freshId(), amount: 1000, tpl: ' ' },
					{ id: freshId(), tpl: 1 },
					{ id: freshId(), amount: '', tpl: 1 },
				],
				continueOnFail: true,
			},
		);
		expect(run.json.map((json) => json.error)).toEqual([
			'Item 0: invalid "templateId": Template ID is required',
			'Item 1: invalid "templateId": Template ID must not be empty',
			'Item 2: invalid "amount": Amount is required',
			'Item 3: invalid "amount": Amount must not be empty',
		]);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});
});
