// The trigger in a real n8n: an active (published) workflow receives the
// sandbox's signed webhook deliveries at its production URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { sign, startSandbox, type Sandbox } from '../../sandbox/server.mts';
import {
	API_CREDENTIAL,
	WEBHOOK_CREDENTIAL,
	loadWorkflow,
	rawWorkflow,
	n8nUrl,
	ownerClient,
	until,
} from './helpers.mts';

const SECRET = 'whsec_e2e_right';
const TRIGGER_NODE_NAME = 'Voucher Service Trigger';

describe('trigger node in n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let triggerWorkflowId: string;
	let webhookUrl: string;
	let slowWorkflowId: string;

	async function executions() {
		return await rest.listExecutions(triggerWorkflowId);
	}

	async function events(): Promise<Array<Record<string, any>>> {
		const list = await executions();
		const out = [];
		for (const summary of list) {
			const ex = await rest.waitForExecution(summary.id);
			expect(ex.status).toBe('success');
			out.push(...nodeOutput(ex, TRIGGER_NODE_NAME));
		}
		return out;
	}

	/** Waits for n executions, then a little longer to see that no more come. */
	async function expectExecutionCount(n: number) {
		await until(
			`${n} executions`,
			async () => (await executions()).length >= n || undefined,
			20_000,
		);
		await new Promise((r) => setTimeout(r, 1500));
		expect(await executions()).toHaveLength(n);
	}

	beforeAll(async () => {
		rest = await ownerClient();
		const workflow = rawWorkflow('trigger-events');
		const webhookId = workflow.nodes.find((n) => n.name === TRIGGER_NODE_NAME)!.webhookId as string;
		// The node's webhook path is "webhook"; n8n puts the node's webhookId in front of it.
		webhookUrl = `${n8nUrl()}/webhook/${webhookId}/webhook`;
		sandbox = await startSandbox({
			port: 0,
			processingDelayMs: 1000,
			webhooks: [{ url: webhookUrl, secret: SECRET }],
		});
		const api = await rest.createCredential('Voucher Sandbox (e2e trigger)', API_CREDENTIAL, {
			baseUrl: sandbox.url,
			publicKey: sandbox.keys.publicKey,
			secretKey: sandbox.keys.secretKey,
		});
		const webhook = await rest.createCredential('Voucher webhooks (e2e)', WEBHOOK_CREDENTIAL, {
			secret: SECRET,
		});
		triggerWorkflowId = (await rest.createWorkflow(loadWorkflow('trigger-events', { webhook }))).id;
		await rest.activateWorkflow(triggerWorkflowId);
		await rest.waitForWebhook(webhookUrl);
		slowWorkflowId = (await rest.createWorkflow(loadWorkflow('order-slow', { api }))).id;
	});
	afterAll(async () => {
		if (triggerWorkflowId) await rest.deactivateWorkflow(triggerWorkflowId).catch(() => {});
		await sandbox?.close();
	});

	it('orders that complete later start one execution each, holding the verified ORDER_UPDATED event', async () => {
		const ex = await rest.runWorkflow(slowWorkflowId, 'Start');
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		const [download] = nodeOutput(ex, 'Slow download order');
		const [recipients] = nodeOutput(ex, 'Slow recipient order');
		expect(download.status).toBe('PROCESSING');
		expect(recipients.status).toBe('PROCESSING');

		await until(
			'two ORDER_UPDATED deliveries',
			() =>
				sandbox.state.deliveries.filter((d) => d.event === 'ORDER_UPDATED').length >= 2 ||
				undefined,
		);
		expect(sandbox.state.deliveries.map((d) => [d.event, d.status, d.outcome])).toEqual([
			['ORDER_UPDATED', 200, 'delivered'],
			['ORDER_UPDATED', 200, 'delivered'],
		]);
		await expectExecutionCount(2);
		const received = await events();
		const byReference = Object.fromEntries(received.map((e) => [e.data.reference, e]));
		expect(byReference[download.reference as string]).toMatchObject({
			event: 'ORDER_UPDATED',
			data: { orderNumber: download.orderNumber, status: 'COMPLETED' },
		});
		expect(byReference[download.reference as string].data.vouchers).toHaveLength(1);
		expect(byReference[recipients.reference as string]).toMatchObject({
			event: 'ORDER_UPDATED',
			data: { orderNumber: recipients.orderNumber, status: 'PARTIALLY_COMPLETED' },
		});
		// What the workflow got is exactly what the service signed and sent.
		for (const d of sandbox.state.deliveries) {
			const sent = JSON.parse(d.body);
			expect(received.find((e) => e.data.orderNumber === sent.data.orderNumber)?.data).toEqual(
				sent.data,
			);
		}
	});

	it('a VOUCHER_UPDATED delivery and its duplicates start exactly one execution', async () => {
		const before = (await executions()).length;
		sandbox.state.deliveries.length = 0;
		const voucher = sandbox.state.vouchers.get('SBX-ACTIVE-0001')!;
		sandbox.configure({ webhooks: [{ url: webhookUrl, secret: SECRET, duplicates: 3 }] });
		sandbox.emitVoucherUpdate(voucher.serial, 1234.5);
		await until('three deliveries', () => sandbox.state.deliveries.length >= 3 || undefined);
		// Every copy is acknowledged (so the service stops retrying) ...
		expect(sandbox.state.deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
		// ... but only one runs the workflow.
		await expectExecutionCount(before + 1);
		const [latest] = await executions();
		const item = nodeOutput(await rest.waitForExecution(latest.id), TRIGGER_NODE_NAME)[0] as any;
		expect(item).toMatchObject({
			event: 'VOUCHER_UPDATED',
			data: { serialNumber: voucher.serial, balance: 1234.5 },
		});

		// A redelivery later, after that execution finished, starts none either.
		sandbox.state.deliveries.length = 0;
		sandbox.configure({ webhooks: [{ url: webhookUrl, secret: SECRET }] });
		sandbox.emitVoucherUpdate(voucher.serial, 1234.5);
		await until('the redelivery', () => sandbox.state.deliveries.length >= 1 || undefined);
		expect(sandbox.state.deliveries[0].status).toBe(200);
		await expectExecutionCount(before + 1);
	});

	it('a delivery signed with another secret gets 401 and starts no execution', async () => {
		const before = (await executions()).length;
		sandbox.state.deliveries.length = 0;
		const voucher = sandbox.state.vouchers.get('SBX-ACTIVE-0001')!;
		sandbox.configure({ webhooks: [{ url: webhookUrl, secret: 'whsec_someone_else' }] });
		sandbox.emitVoucherUpdate(voucher.serial, 999);
		await until('the delivery', () => sandbox.state.deliveries.length >= 1 || undefined);
		expect(sandbox.state.deliveries.map((d) => [d.status, d.outcome])).toEqual([[401, 'rejected']]);

		// Straight at the URL: no signature, and a right signature over other bytes.
		const body = JSON.stringify({ type: 'VOUCHER_UPDATED', data: { serialNumber: 1, balance: 1 } });
		const unsigned = await fetch(webhookUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body,
		});
		expect(unsigned.status).toBe(401);
		const tampered = await fetch(webhookUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json', signature: sign(SECRET, body) },
			body: body.replace('"balance":1', '"balance":2'),
		});
		expect(tampered.status).toBe(401);
		await expectExecutionCount(before);
	});
});

describe("action node: Webhook → Verify Signature behind n8n's own Webhook node", () => {
	let rest: N8nRest;
	let workflowId: string;
	const url = () => `${n8nUrl()}/webhook/e2e-verify-signature`;

	beforeAll(async () => {
		rest = await ownerClient();
		const webhook = await rest.createCredential(
			'Voucher webhooks (e2e verify)',
			WEBHOOK_CREDENTIAL,
			{
				secret: SECRET,
			},
		);
		workflowId = (await rest.createWorkflow(loadWorkflow('webhook-verify-signature', { webhook })))
			.id;
		await rest.activateWorkflow(workflowId);
		await rest.waitForWebhook(url());
	});
	afterAll(async () => {
		if (workflowId) await rest.deactivateWorkflow(workflowId).catch(() => {});
	});

	// Deliberately not compact JSON: the check must cover the bytes as sent.
	const body =
		'{ "type": "ORDER_UPDATED",\n  "data": {"orderNumber": "ORD-1", "reference": "r-1", "status": "CANCELED"} }';

	it('accepts the exact bytes signed with the secret and hands on the parsed event', async () => {
		const res = await fetch(url(), {
			method: 'POST',
			headers: { 'content-type': 'application/json', signature: sign(SECRET, body) },
			body,
		});
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({
			valid: true,
			event: {
				type: 'ORDER_UPDATED',
				data: { orderNumber: 'ORD-1', reference: 'r-1', status: 'CANCELED' },
			},
		});
	});

	it('says valid: false for another secret or changed bytes', async () => {
		for (const [signature, sent] of [
			[sign('whsec_someone_else', body), body],
			[sign(SECRET, body), body.replace('CANCELED', 'COMPLETED')],
		]) {
			const res = await fetch(url(), {
				method: 'POST',
				headers: { 'content-type': 'application/json', signature },
				body: sent,
			});
			expect(res.status).toBe(200);
			expect(await res.json()).toEqual({ valid: false });
		}
	});
});
