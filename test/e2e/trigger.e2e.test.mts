// The trigger in a real n8n: an active (published) workflow receives the
// sandbox's signed webhook deliveries at its production URL. In queue mode
// (test/queue) the URLs are the webhook processes', used in turn, and
// executions run on workers. "One execution" is one in which the node after
// the trigger ("Received") ran: a copy that reached a second webhook process
// may start an execution that the trigger ends without items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { sign, startSandbox, type Sandbox } from '../../sandbox/server.mts';
import {
	WEBHOOK_CREDENTIAL,
	loadWorkflow,
	rawWorkflow,
	ownerClient,
	postEvent,
	publishedTrigger,
	type PublishedTrigger,
	sandboxApiCredential,
	settledExecutions,
	triggerPath,
	until,
	webhookUrls,
} from './n8nUnderTest.mts';

const SECRET = 'whsec_e2e_right';
const TRIGGER_NODE_NAME = 'Voucher Service Trigger';

describe('trigger node in n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let triggerWorkflowId: string;
	let webhookPath: string;
	let slowWorkflowId: string;
	const urls = () => webhookUrls().map((base) => `${base}/webhook/${webhookPath}`);

	/** The trigger's items of every execution in which "Received" ran, newest first. */
	async function events(atLeast = 0): Promise<Array<Record<string, any>>> {
		const out = [];
		for (const summary of await settledExecutions(rest, triggerWorkflowId, atLeast)) {
			const ex = await rest.getExecution(summary.id);
			expect(ex.status).toBe('success');
			if (ex.data.resultData.runData.Received) out.push(...nodeOutput(ex, TRIGGER_NODE_NAME));
		}
		return out;
	}

	/** Waits until executions settle, then counts those in which "Received" ran. */
	async function expectExecutionCount(n: number) {
		expect(await events(n)).toHaveLength(n);
	}

	beforeAll(async () => {
		rest = await ownerClient();
		const workflow = rawWorkflow('trigger-events');
		const webhookId = workflow.nodes.find((n) => n.name === TRIGGER_NODE_NAME)!.webhookId as string;
		webhookPath = triggerPath(webhookId);
		sandbox = await startSandbox({
			port: 0,
			processingDelayMs: 1000,
			webhooks: [{ url: urls()[0], secret: SECRET }],
		});
		const api = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e trigger)');
		const webhook = await rest.createCredential('Voucher webhooks (e2e)', WEBHOOK_CREDENTIAL, {
			secret: SECRET,
		});
		triggerWorkflowId = (await rest.createWorkflow(loadWorkflow('trigger-events', { webhook }))).id;
		await rest.activateWorkflow(triggerWorkflowId);
		for (const url of urls()) await rest.waitForWebhook(url);
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
		const received = await events(2);
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

	it('a VOUCHER_UPDATED delivery and its duplicates, to every webhook URL, start exactly one execution', async () => {
		const before = (await events()).length;
		sandbox.state.deliveries.length = 0;
		const voucher = sandbox.state.vouchers.get('SBX-ACTIVE-0001')!;
		const copies = 3 * urls().length;
		sandbox.configure({
			webhooks: urls().map((url) => ({ url, secret: SECRET, duplicates: 3 })),
		});
		sandbox.emitVoucherUpdate(voucher.serial, 1234.5);
		await until('every copy', () => sandbox.state.deliveries.length >= copies || undefined);
		// Every copy is acknowledged (so the service stops retrying) ...
		expect(sandbox.state.deliveries.map((d) => d.status)).toEqual(Array(copies).fill(200));
		// ... but only one runs the workflow.
		await expectExecutionCount(before + 1);
		const [item] = (await events()) as any[];
		expect(item).toMatchObject({
			event: 'VOUCHER_UPDATED',
			data: { serialNumber: voucher.serial, balance: 1234.5 },
			deduplicationKey: JSON.stringify(['VOUCHER_UPDATED', voucher.serial, 1234.5]),
		});

		// A redelivery later, after that execution finished, starts none either.
		sandbox.state.deliveries.length = 0;
		sandbox.configure({ webhooks: [{ url: urls().at(-1)!, secret: SECRET }] });
		sandbox.emitVoucherUpdate(voucher.serial, 1234.5);
		await until('the redelivery', () => sandbox.state.deliveries.length >= 1 || undefined);
		expect(sandbox.state.deliveries[0].status).toBe(200);
		await expectExecutionCount(before + 1);
	});

	it('a delivery signed with another secret gets 401 at every webhook URL and starts no execution', async () => {
		const before = await settledExecutions(rest, triggerWorkflowId, 0);
		sandbox.state.deliveries.length = 0;
		const voucher = sandbox.state.vouchers.get('SBX-ACTIVE-0001')!;
		sandbox.configure({
			webhooks: urls().map((url) => ({ url, secret: 'whsec_someone_else' })),
		});
		sandbox.emitVoucherUpdate(voucher.serial, 999);
		await until(
			'the deliveries',
			() => sandbox.state.deliveries.length >= urls().length || undefined,
		);
		expect(sandbox.state.deliveries.map((d) => [d.status, d.outcome])).toEqual(
			urls().map(() => [401, 'rejected']),
		);

		// Straight at each URL: no signature, and a right signature over other bytes.
		const body = JSON.stringify({ type: 'VOUCHER_UPDATED', data: { serialNumber: 1, balance: 1 } });
		for (const url of urls()) {
			const unsigned = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body,
			});
			expect(unsigned.status).toBe(401);
			const tampered = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', signature: sign(SECRET, body) },
				body: body.replace('"balance":1', '"balance":2'),
			});
			expect(tampered.status).toBe(401);
			expect(await tampered.text()).not.toContain(SECRET);
		}
		// Not even an execution that ends early: refusals start none.
		expect(await settledExecutions(rest, triggerWorkflowId, 0)).toHaveLength(before.length);
	});

	// Node version 2: n8n reads no body of a content type it does not parse; the node does.
	it('a signed delivery without a Content-Type, or with an unusual one, starts one execution', async () => {
		const before = (await events()).length;
		const types = [undefined, 'application/octet-stream', 'application/vnd.voucher+json'];
		let balance = 3000;
		for (const url of urls()) {
			for (const contentType of types) {
				const body = JSON.stringify({
					type: 'VOUCHER_UPDATED',
					data: { serialNumber: 4242, balance: ++balance },
				});
				const res = await fetch(url, {
					method: 'POST',
					// Bytes, not a string: fetch would otherwise send text/plain.
					headers: {
						signature: sign(SECRET, body),
						...(contentType === undefined ? {} : { 'content-type': contentType }),
					},
					body: new TextEncoder().encode(body),
				});
				expect(res.status, `${url} ${contentType ?? '(none)'}`).toBe(200);
				await res.arrayBuffer();
			}
		}
		const sent = urls().length * types.length;
		const received = await events(before + sent);
		expect(received).toHaveLength(before + sent);
		expect(
			received
				.slice(0, sent)
				.map((e) => e.data.balance)
				.sort(),
		).toEqual(Array.from({ length: sent }, (_, i) => 3001 + i));
	});
});

describe("action node: Webhook → Verify Signature behind n8n's own Webhook node", () => {
	let rest: N8nRest;
	let workflowId: string;
	const url = () => `${webhookUrls()[0]}/webhook/e2e-verify-signature`;

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

describe('a workflow saved with the trigger at node version 1', () => {
	let rest: N8nRest;
	let trigger: PublishedTrigger;

	beforeAll(async () => {
		rest = await ownerClient();
		trigger = await publishedTrigger(rest, 'E2E: trigger at version 1', SECRET, {
			typeVersion: 1,
		});
	});
	afterAll(async () => {
		if (trigger) await rest.deactivateWorkflow(trigger.id).catch(() => {});
	});

	it('still runs a signed event once, refuses an unsigned one, and suppresses its copies', async () => {
		const body = JSON.stringify({
			type: 'VOUCHER_UPDATED',
			data: { serialNumber: 11, balance: 7 },
		});
		const { urls } = trigger;
		expect(await postEvent(urls[0], body)).toBe(401);
		for (const url of urls) expect(await postEvent(url, body, SECRET)).toBe(200);
		expect(await postEvent(urls[0], body, SECRET)).toBe(200);
		const ran = [];
		for (const summary of await settledExecutions(rest, trigger.id, 1)) {
			const ex = await rest.getExecution(summary.id);
			expect(ex.status).toBe('success');
			if (ex.data.resultData.runData.Received) ran.push(...nodeOutput(ex, TRIGGER_NODE_NAME));
		}
		expect(ran).toEqual([expect.objectContaining({ data: { serialNumber: 11, balance: 7 } })]);
	});
});
