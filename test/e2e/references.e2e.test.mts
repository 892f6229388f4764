// One Reference, one request, in a real n8n: the wirings a new user builds first (a fixed
// Reference on per-row items, a Reference reused with another amount, the Reference
// "templates"), judged from n8n's output and the sandbox's books.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { nodeError, type N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import {
	ACTION_NODE_NAME,
	ownerClient,
	runActionOnRows,
	sandboxApiCredential,
} from './n8nUnderTest.mts';

const people = [
	{ first: 'Ada', last: 'Obi', email: 'ada@example.com', amount: 1000 },
	{ first: 'Bola', last: 'Ade', email: 'bola@example.com', amount: 2000 },
	{ first: 'Chi', last: 'Eze', email: 'chi@example.com', amount: 1000 },
];

describe('References in n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };

	const runOnRows = (rows: object[], parameters: Record<string, unknown>) =>
		runActionOnRows(rest, credential, rows, parameters);

	const posts = () => sandbox.state.requests.filter((r) => r.method === 'POST');
	const ordersUnder = (reference: string) =>
		[...sandbox.state.orders.values()].filter((order) => order.reference === reference);

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0, processingDelayMs: 1500 });
		credential = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e references)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	beforeEach(() => sandbox.reset());

	const recipientsPerRow = (reference: string, options: Record<string, unknown> = {}) => ({
		resource: 'order',
		operation: 'createForRecipients',
		recipientsSource: 'manual',
		reference,
		productCode: 'VCH-INSTANT',
		amount: 1000,
		templateId: 1,
		recipients: {
			recipient: [
				{
					firstName: '={{ $json.first }}',
					lastName: '={{ $json.last }}',
					email: '={{ $json.email }}',
				},
			],
		},
		options,
	});

	it.each([false, true])(
		'a fixed Reference on per-row recipients (Dry Run %s): one order for the first row, an error for each other row',
		async (dryRun) => {
			const reference = `e2e-fixed-${dryRun}-${Date.now().toString(36)}`;
			const { output } = await runOnRows(people, recipientsPerRow(reference, { dryRun }));
			expect(posts()).toHaveLength(dryRun ? 0 : 1);
			expect(ordersUnder(reference)).toHaveLength(dryRun ? 0 : 1);
			expect(output).toHaveLength(3);
			expect(output[0]).toMatchObject(dryRun ? { wouldBuy: true } : { status: 'COMPLETED' });
			expect(output[0].error).toBeUndefined();
			expect(output[1].error).toBe(
				`Item 1: reference "${reference}" is already used by item 0 of this run`,
			);
			expect(output[2].error).toBe(
				`Item 2: reference "${reference}" is already used by item 0 of this run`,
			);
		},
	);

	it('a Reference reused with another amount in a second run: an error naming the order, nothing bought', async () => {
		const reference = `e2e-reuse-${Date.now().toString(36)}`;
		const create = (amount: number) => ({
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount,
			quantity: 1,
			options: {},
		});
		const first = await runOnRows([people[0]], create(1000));
		const balanceAfterFirst = sandbox.state.ledger.at(-1)!.balanceAfterKobo;
		const second = await runOnRows([people[0]], create(2000));
		expect(sandbox.state.ledger.at(-1)!.balanceAfterKobo).toBe(balanceAfterFirst);
		expect(ordersUnder(reference)).toHaveLength(1);
		expect(second.output[0].error).toBe(
			`Item 0: reference "${reference}" already belongs to another request, order ${String(first.output[0].orderNumber)}`,
		);
	});

	it('the Reference "templates" is refused by Create and by Get, and nothing is sent', async () => {
		const created = await runOnRows([people[0]], {
			resource: 'order',
			operation: 'create',
			reference: 'templates',
			productCode: 'VCH-INSTANT',
			amount: 1000,
			quantity: 1,
		});
		expect(String(created.output[0].error)).toMatch(
			/^Item 0: invalid "reference": "templates" cannot be a Reference/,
		);
		const read = await runOnRows([people[0]], {
			resource: 'order',
			operation: 'get',
			reference: 'templates',
		});
		expect(String(read.output[0].error)).toContain(
			"GET /v2/orders/templates is another of the service's endpoints",
		);
		expect(nodeError(read.ex, ACTION_NODE_NAME)).toBeUndefined();
		expect(sandbox.state.requests).toHaveLength(0);
	});
});
