// Values as users map them, in a real n8n (issue 42): a table's numeric id as the Reference and
// a numeric Product Code, given by `{{ $json.… }}` from items whose JSON holds numbers, are read
// as their digits; an id past 2^53 arrives already rounded by n8n, and is refused saying so.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
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
			{
				resource: 'order',
				operation: 'createForRecipients',
				recipientsSource: 'inputItems',
				reference: base,
				productCode: '={{ $json.code }}',
				amount: 1000,
				templateId: 1,
			},
		);
		expect(output).toHaveLength(1);
		expect(output[0].error).toBeUndefined();
		expect(String(output[0].reference)).toMatch(new RegExp(`^${base}-`));
		expect(posts()).toEqual([expect.objectContaining({ productCode: '1001' })]);
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
