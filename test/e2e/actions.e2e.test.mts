// Every operation of the action node, run by a real n8n the way the editor's
// "Execute workflow" button runs it (POST /rest/workflows/:id/run), against the
// sandbox. Asserts what n8n output AND what the sandbox received.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { nodeError, nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { loadWorkflow, ownerClient, sandboxApiCredential, workflowFiles } from './n8nUnderTest.mts';

describe('action node operations in n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };
	const workflowIds: Record<string, string> = {};

	async function run(name: string) {
		workflowIds[name] ??= (await rest.createWorkflow(loadWorkflow(name, { api: credential }))).id;
		return await rest.runWorkflow(workflowIds[name], 'Start');
	}

	const requests = () =>
		sandbox.state.requests.map((r) => ({
			method: r.method,
			path: r.path,
			status: r.status,
			publicKey: r.publicKey,
			body: r.body,
		}));

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0, processingDelayMs: 1500 });
		credential = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e actions)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	beforeEach(() => sandbox.reset());

	it('has a workflow file for each scenario below', () => {
		expect(workflowFiles()).toEqual(
			expect.arrayContaining([
				'order-create-and-get.json',
				'order-create-for-recipients.json',
				'lookups.json',
				'failure-continue.json',
				'failure-stop.json',
				'order-wait.json',
			]),
		);
	});

	it('order: create (download) then get', async () => {
		const ex = await run('order-create-and-get');
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		const [created] = nodeOutput(ex, 'Create order');
		expect(created).toMatchObject({ reference: `e2e-dl-${ex.id}`, status: 'COMPLETED' });
		expect(created.orderNumber).toEqual(expect.any(String));
		const vouchers = created.vouchers as Array<Record<string, unknown>>;
		expect(vouchers).toHaveLength(2);
		for (const v of vouchers) {
			expect(v).toMatchObject({ pin: '4821', value: 1500 });
			expect(v.code).toEqual(expect.any(String));
		}
		const [read] = nodeOutput(ex, 'Get order');
		expect(read).toMatchObject({
			reference: created.reference,
			orderNumber: created.orderNumber,
			status: 'COMPLETED',
		});

		const posts = requests().filter((r) => r.method === 'POST');
		expect(posts).toEqual([
			{
				method: 'POST',
				path: '/v2/orders',
				status: 200,
				publicKey: sandbox.keys.publicKey,
				body: {
					reference: created.reference,
					productCode: 'VCH-INSTANT',
					amount: 1500,
					quantity: 2,
					pin: '4821',
					couponCode: 'SAVE10',
				},
			},
		]);
		expect(
			requests().some(
				(r) =>
					r.method === 'GET' && r.path === `/v2/orders/${created.reference}` && r.status === 200,
			),
		).toBe(true);
		// The coupon took 10 % off each voucher: the ledger shows what was charged.
		const debit = sandbox.state.ledger.find(
			(e) => e.kind === 'debit' && e.reference === created.reference,
		);
		expect(debit?.amountKobo).toBe(-2 * 1350 * 100);
	});

	it('order: create for recipients, entered in the node and from input items', async () => {
		const ex = await run('order-create-for-recipients');
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');

		const [listed] = nodeOutput(ex, 'Order for listed recipients');
		expect(listed).toMatchObject({ reference: `e2e-rcp-${ex.id}`, status: 'COMPLETED' });
		expect(
			(listed.vouchers as Array<Record<string, unknown>>).map((v) => [v.email, v.status]),
		).toEqual([
			['ada@example.com', 'DELIVERED'],
			['bayo@example.com', 'DELIVERED'],
		]);

		const campaign = nodeOutput(ex, 'Order for item recipients');
		expect(campaign.length).toBeGreaterThanOrEqual(1);
		const delivered = campaign.flatMap(
			(o) => (o.vouchers as Array<Record<string, unknown>> | undefined) ?? [o],
		);
		expect(delivered.map((v) => v.email).sort()).toEqual([
			'chi@example.com',
			'dayo@example.com',
			'efe@example.com',
		]);

		const posts = requests().filter((r) => r.method === 'POST');
		expect(posts.every((r) => r.path === '/v2/orders/recipients' && r.status === 200)).toBe(true);
		const listedBody = posts.find(
			(r) => (r.body as { reference: string }).reference === listed.reference,
		)?.body;
		expect(listedBody).toEqual({
			reference: listed.reference,
			productCode: 'VCH-INSTANT',
			amount: 2000,
			templateId: 1,
			narration: 'Thanks for a great year',
			recipients: [
				{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' },
				{ firstName: 'Bayo', lastName: 'Eze', email: 'bayo@example.com' },
			],
		});
		const campaignBodies = posts
			.filter((r) => r !== posts.find((p) => p.body === listedBody))
			.map((r) => r.body as Record<string, unknown>);
		expect(campaignBodies.length).toBeGreaterThanOrEqual(1);
		for (const body of campaignBodies)
			expect(body).toMatchObject({ productCode: 'VCH-INSTANT', amount: 1000, templateId: 7 });
		expect(
			campaignBodies
				.flatMap((b) => (b.recipients as Array<{ email: string }>).map((r) => r.email))
				.sort(),
		).toEqual(['chi@example.com', 'dayo@example.com', 'efe@example.com']);
	});

	it('wallet, country and template getAll, voucher getStatus', async () => {
		const ex = await run('lookups');
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		const wallets = nodeOutput(ex, 'Wallets');
		expect(wallets).toEqual(
			expect.arrayContaining([expect.objectContaining({ currency: 'NGN', balance: 50_000_000 })]),
		);
		const countries = nodeOutput(ex, 'Countries');
		expect(countries.length).toBeGreaterThan(0);
		expect(countries).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'NG' })]));
		const templates = nodeOutput(ex, 'Templates');
		expect(templates.map((t) => String(t.id)).sort()).toEqual(['1', '2', '7']);
		const [status] = nodeOutput(ex, 'Voucher status');
		expect(status).toMatchObject({ status: 'ACTIVE' });

		const paths = requests()
			.map((r) => `${r.method} ${r.path} ${r.status}`)
			.sort();
		expect(paths).toEqual(
			[
				'GET /v2/countries 200',
				'GET /v2/orders/templates 200',
				'GET /v2/transactions/wallets 200',
				'GET /v2/vouchers/status/SBX-ACTIVE-0001 200',
			].sort(),
		);
	});

	it('a failing call with Continue On Fail becomes an item with the error, and the workflow goes on', async () => {
		const ex = await run('failure-continue');
		expect(ex.status).toBe('success');
		const [voucherError] = nodeOutput(ex, 'Unknown voucher');
		expect(String(voucherError.error)).toMatch(/not found/i);
		const [orderError] = nodeOutput(ex, 'Unknown order');
		expect(String(orderError.error)).toMatch(/not found/i);
		expect(nodeOutput(ex, 'After')).toHaveLength(1);
		expect(
			requests()
				.map((r) => `${r.method} ${r.path} ${r.status}`)
				.sort(),
		).toEqual(
			['GET /v2/orders/e2e-no-such-order 200', 'GET /v2/vouchers/status/SBX-NOPE-0000 404'].sort(),
		);
	});

	it('a failing call without Continue On Fail fails the execution at that node', async () => {
		const ex = await run('failure-stop');
		expect(ex.status).toBe('error');
		const error = nodeError(ex, 'Unknown voucher');
		expect(error?.message).toMatch(/not found/i);
		expect(ex.data.resultData.lastNodeExecuted).toBe('Unknown voucher');
		expect(ex.data.resultData.runData['Never reached']).toBeUndefined();
		expect(requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'GET /v2/vouchers/status/SBX-NOPE-0000 404',
		]);
	});

	it('order: create a slow order and wait for its final status', async () => {
		const ex = await run('order-wait');
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		const [order] = nodeOutput(ex, 'Slow order');
		expect(order).toMatchObject({ reference: `e2e-slow-${ex.id}`, status: 'COMPLETED' });
		expect(order.vouchers).toHaveLength(1);
		const gets = requests().filter(
			(r) => r.method === 'GET' && r.path === `/v2/orders/${order.reference}`,
		);
		expect(gets.length).toBeGreaterThanOrEqual(1);
	});
});
