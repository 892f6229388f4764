// One event, two ways in (issue 42): the same signed bytes sent to the Voucher Service Trigger and
// to n8n's Webhook node → Verify Signature give the same event, field by field: type and statuses
// in the spec's case, decimal text as its number, a serial past 2^53 as its every digit, and a
// field the spec does not type (amount) as it was signed (docs/trigger.md, docs/api.md).
import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { sign } from '../../sandbox/server.mts';
import {
	loadWorkflow,
	ownerClient,
	postEvent,
	publishedTrigger,
	settledExecutions,
	webhookUrls,
} from './n8nUnderTest.mts';

const SECRET = 'whsec_e2e_same_event';
const TRIGGER_NODE_NAME = 'Voucher Service Trigger';

describe('the same event through the trigger and through Webhook → Verify Signature', () => {
	let rest: N8nRest;
	let triggerWorkflowId: string;
	let verifyWorkflowId: string;
	let triggerUrl: string;
	let verifyUrl: string;

	beforeAll(async () => {
		rest = await ownerClient();
		const trigger = await publishedTrigger(rest, 'E2E: same event, trigger', SECRET);
		triggerWorkflowId = trigger.id;
		triggerUrl = trigger.urls[0];
		// A path of its own, so it never meets trigger.e2e's copy of this workflow.
		const verify = loadWorkflow('webhook-verify-signature', { webhook: trigger.credential });
		const path = `e2e-same-event-${randomUUID()}`;
		verify.nodes[0].webhookId = randomUUID();
		verify.nodes[0].parameters.path = path;
		verify.name = `E2E: same event, verify ${path}`;
		verifyUrl = `${webhookUrls()[0]}/webhook/${path}`;
		verifyWorkflowId = (await rest.createWorkflow(verify)).id;
		await rest.activateWorkflow(verifyWorkflowId);
		await rest.waitForWebhook(verifyUrl);
	});
	afterAll(async () => {
		for (const id of [triggerWorkflowId, verifyWorkflowId])
			if (id) await rest.deactivateWorkflow(id).catch(() => {});
	});

	/** The trigger's items of the executions that ran "Received". */
	async function triggered(count: number): Promise<Array<Record<string, any>>> {
		const out = [];
		for (const summary of await settledExecutions(rest, triggerWorkflowId, count)) {
			const ex = await rest.getExecution(summary.id);
			expect(ex.status).toBe('success');
			if (ex.data.resultData.runData.Received) out.push(...nodeOutput(ex, TRIGGER_NODE_NAME));
		}
		return out;
	}

	async function verified(body: string): Promise<Record<string, any>> {
		const res = await fetch(verifyUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json', signature: sign(SECRET, body) },
			body,
		});
		expect(res.status).toBe(200);
		return (await res.json()) as Record<string, any>;
	}

	// Bytes as a service in another dialect writes them: lower case, numbers as text, a bare long.
	const orderNumber = `ORD-${Date.now()}`;
	const orderEvent =
		'{"type":"order_updated","data":{"orderNumber":"' +
		orderNumber +
		'","reference":"r-same-1","status":"completed","amount":"30000.00","vouchers":[' +
		'{"code":"SAME-CODE-1","pin":"1234","serial":1234567890130000161,"value":"30000.00",' +
		'"expiryDate":"2030-01-31T23:59:59","status":"active"}]}}';
	const voucherEvent =
		'{"type":"VOUCHER_UPDATED","data":{"orderNumber":' +
		String(Date.now()) +
		',"voucherCode":"SAME****0002","serialNumber":"1234567890130000162","balance":"1500.50",' +
		'"email":"ada@example.com"}}';

	it('gives both the same type, statuses, decimals and serials', async () => {
		const fromVerify = [await verified(orderEvent), await verified(voucherEvent)];
		expect(await postEvent(triggerUrl, orderEvent, SECRET)).toBe(200);
		expect(await postEvent(triggerUrl, voucherEvent, SECRET)).toBe(200);
		const fromTrigger = await triggered(2);
		expect(fromTrigger).toHaveLength(2);

		expect(fromVerify.map((v) => v.valid)).toEqual([true, true]);
		const byType = (type: string) => fromTrigger.find((item) => item.event === type);
		for (const { event } of fromVerify) {
			expect(byType(event.type)?.data, event.type).toEqual(event.data);
		}
		// And what both read, to the field.
		expect(fromVerify[0].event).toEqual({
			type: 'ORDER_UPDATED',
			data: {
				orderNumber,
				reference: 'r-same-1',
				status: 'COMPLETED',
				amount: '30000.00',
				vouchers: [
					{
						code: 'SAME-CODE-1',
						pin: '1234',
						serial: '1234567890130000161',
						value: 30000,
						expiryDate: '2030-01-31T23:59:59',
						status: 'ACTIVE',
					},
				],
			},
		});
		expect(fromVerify[1].event).toEqual({
			type: 'VOUCHER_UPDATED',
			data: {
				orderNumber: expect.stringMatching(/^\d+$/),
				voucherCode: 'SAME****0002',
				serialNumber: '1234567890130000162',
				balance: 1500.5,
				email: 'ada@example.com',
			},
		});
	});
});
