// Values as users map them, in a real n8n (issue 42): a table's numeric id as the Reference, a
// numeric Product Code, Voucher Code, recipient name or Template, given by `{{ $json.… }}` from
// items whose JSON holds numbers, are read as their digits; an id past 2^53 arrives already
// rounded by n8n, and is refused saying so. A value given but unusable is never called missing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { campaignParameters } from '../nodes/VoucherService/campaignParameters.mts';
import { ownerClient, runActionOnRows, sandboxApiCredential } from './n8nUnderTest.mts';

/** A JSON number as written, whatever its size: JSON.stringify writes it as it is (Node 21+). */
const jsonNumber = (digits: string): unknown =>
	(JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(digits);

const create = {
	resource: 'order',
	operation: 'create',
	reference: '={{ $json.id }}',
	productCode: '={{ $json.code }}',
	amount: 1000,
	quantity: 1,
};

/** Create for Recipients → Enter Below, for Ada, under each row's `ref` with its `tpl` as the Template. */
const templateFromColumn = campaignParameters(
	'={{ $json.ref }}',
	{},
	{
		recipientsSource: 'manual',
		templateId: '={{ $json.tpl }}',
		recipients: { recipient: [{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' }] },
	},
);

describe('numbers mapped to text fields in n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };

	const posts = () =>
		sandbox.state.requests
			.filter((r) => r.method === 'POST')
			.map((r) => r.body as Record<string, unknown>);

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0 });
		credential = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e mapped values)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	beforeEach(() => sandbox.reset());

	it('a numeric Reference and a numeric Product Code buy one order under their digits, read back by the number', async () => {
		const id = Date.now();
		const { output } = await runActionOnRows(rest, credential, [{ id, code: 1001 }], create);
		expect(output).toEqual([
			expect.objectContaining({ reference: String(id), status: 'COMPLETED' }),
		]);
		expect(posts()).toEqual([
			expect.objectContaining({ reference: String(id), productCode: '1001' }),
		]);

		const read = await runActionOnRows(rest, credential, [{ id }], {
			resource: 'order',
			operation: 'get',
			reference: '={{ $json.id }}',
		});
		expect(read.output).toEqual([
			expect.objectContaining({ reference: String(id), status: 'COMPLETED' }),
		]);
	});

	it('a numeric Product Code in a campaign from input items', async () => {
		const base = `e2e-numeric-${Date.now().toString(36)}`;
		const { output } = await runActionOnRows(
			rest,
			credential,
			[{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com', code: 1001 }],
			campaignParameters(base, {}, { productCode: '={{ $json.code }}' }),
		);
		expect(output).toHaveLength(1);
		expect(output[0].error).toBeUndefined();
		expect(String(output[0].reference)).toMatch(new RegExp(`^${base}-`));
		expect(posts()).toEqual([expect.objectContaining({ productCode: '1001' })]);
	});

	it('a numeric Voucher Code is looked up by its digits', async () => {
		// A code of digits only, as a sheet's numeric column holds it: the sandbox knows it.
		const seed = sandbox.state.vouchers.get('SBX-ACTIVE-0001')!;
		sandbox.state.vouchers.set('40012345', { ...seed, code: '40012345' });
		const { output } = await runActionOnRows(rest, credential, [{ code: 40012345 }], {
			resource: 'voucher',
			operation: 'getStatus',
			voucherCode: '={{ $json.code }}',
		});
		expect(output).toEqual([
			{ status: seed.state, value: seed.value, expiryDate: seed.expiryDate },
		]);
		expect(sandbox.state.requests.map((r) => [r.method, r.path, r.status])).toEqual([
			['GET', '/v2/vouchers/status/40012345', 200],
		]);
	});

	it('numeric first and last names in a campaign from input items are bought as their digits', async () => {
		const base = `e2e-names-${Date.now().toString(36)}`;
		const { output } = await runActionOnRows(
			rest,
			credential,
			[{ first: 42, last: 7, email: 'forty-two@example.com' }],
			campaignParameters(
				base,
				{},
				{
					firstNameField: '={{ $json.first }}',
					// A plain column name, the other way to map it: the column's number, read the same.
					lastNameField: 'last',
				},
			),
		);
		expect(output).toHaveLength(1);
		expect(output[0].error).toBeUndefined();
		const recipients = { firstName: '42', lastName: '7', email: 'forty-two@example.com' };
		expect(posts()).toEqual([expect.objectContaining({ recipients: [recipients] })]);
		expect([...sandbox.state.orders.values()].map((o) => o.recipients)).toEqual([
			[expect.objectContaining(recipients)],
		]);
	});

	it('a Template as a number or numeric text buys; anything else is refused naming the field, the value and what it takes', async () => {
		const base = `e2e-tpl-${Date.now().toString(36)}`;
		const rows = [1, '2', ' 7 ', 'abc', 1.5, true].map((tpl, i) => ({ tpl, ref: `${base}-${i}` }));
		const { output } = await runActionOnRows(rest, credential, rows, templateFromColumn);
		expect(output.slice(0, 3)).toEqual(
			[0, 1, 2].map((i) =>
				expect.objectContaining({ reference: `${base}-${i}`, status: 'COMPLETED' }),
			),
		);
		expect(posts().map((body) => [body.reference, body.templateId])).toEqual([
			[`${base}-0`, 1],
			[`${base}-1`, 2],
			[`${base}-2`, 7],
		]);
		const errors = output.slice(3).map((item) => String(item.error));
		expect(errors).toEqual([
			'Item 3: invalid "templateId": Template ID "abc" is not a whole number, and an order takes a numeric template ID',
			'Item 4: invalid "templateId": Template ID must be a whole number from 0 to 2147483647, not 1.5',
			'Item 5: invalid "templateId": Template ID must be a number, not the boolean true',
		]);
		for (const error of errors) expect(error).not.toMatch(/required|missing/i);
	});

	it('a value given as empty text is called empty; only one not given is called required', async () => {
		const { output } = await runActionOnRows(rest, credential, [{ id: '', code: 1001 }], create);
		expect(output).toEqual([
			expect.objectContaining({
				error: 'Item 0: invalid "reference": Reference must not be empty',
			}),
		]);
		// A Template mapped from a column: empty in one item, absent from the other.
		const base = `e2e-tpl-empty-${Date.now().toString(36)}`;
		const templates = await runActionOnRows(
			rest,
			credential,
			[{ ref: `${base}-0`, tpl: '' }, { ref: `${base}-1` }],
			templateFromColumn,
		);
		expect(templates.output.map((item) => item.error)).toEqual([
			'Item 0: invalid "templateId": Template ID must not be empty',
			'Item 1: invalid "templateId": Template ID is required',
		]);
		expect(sandbox.state.requests).toEqual([]);
	});

	it('an id past 2^53 reaches the node already rounded: refused, saying to give it as text; as text it keeps every digit', async () => {
		const digits = `${Date.now()}1234567`;
		const { output } = await runActionOnRows(
			rest,
			credential,
			[
				{ id: jsonNumber(digits), code: 1001 },
				{ id: digits, code: 1001 },
			],
			create,
		);
		expect(output[0].error).toBe(
			`Item 0: invalid "reference": Reference was given the number ${Number(digits)}, past 2^53, whose digits were rounded before the node got them: give it as text to keep every digit`,
		);
		expect(output[1]).toMatchObject({ reference: digits, status: 'COMPLETED' });
		expect(posts().map((body) => body.reference)).toEqual([digits]);
	});
});
