// examples/trigger-once-with-your-database.json in queue mode: the trigger's
// deduplicationKey, enforced by a primary key in the user's own PostgreSQL.
// Even with the trigger's own suppression switched off, so that every copy
// runs, each event reaches "Handle the event" exactly once.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { readExample } from '../../real-n8n/examples.mts';
import { type N8nRest } from '../../real-n8n/rest.mts';
import { WEBHOOK_CREDENTIAL, postgresCredential } from '../../real-n8n/fixtures.mts';
import { pgClient, type PgClient } from '../../real-n8n/services.mts';
import { ownerClient, postEvent, settledExecutions, webhookUrls } from '../e2e/n8nUnderTest.mts';

const SECRET = 'whsec_queue_own_db';
const EVENTS = 10;
const COPIES = 5;

describe('queue mode: deduplicationKey enforced by your own database', () => {
	let rest: N8nRest;
	let db: PgClient;
	let workflowId: string;
	let path: string;

	beforeAll(async () => {
		rest = await ownerClient();
		db = pgClient(inject('postgres'));
		await db.connect();
		await db.query(
			'CREATE TABLE voucher_events (deduplication_key text PRIMARY KEY, event text NOT NULL, data jsonb NOT NULL, received_at timestamptz NOT NULL DEFAULT now())',
		);
		const webhook = await rest.createCredential('Voucher webhooks (own db)', WEBHOOK_CREDENTIAL, {
			secret: SECRET,
		});
		const postgres = await postgresCredential(
			rest,
			inject('postgres'),
			'Your PostgreSQL (queue suite)',
		);
		const wf = readExample('trigger-once-with-your-database.json');
		for (const node of wf.nodes) {
			if (node.credentials?.voucherServiceWebhookApi)
				node.credentials.voucherServiceWebhookApi = webhook;
			if (node.credentials?.postgres) node.credentials.postgres = postgres;
			// Every copy runs: only the database keeps the event from being handled twice.
			if (node.type.endsWith('voucherServiceTrigger')) node.parameters.suppressDuplicates = false;
		}
		path = `${wf.nodes.find((n) => n.webhookId)!.webhookId as string}/webhook`;
		workflowId = (await rest.createWorkflow(wf)).id;
		await rest.activateWorkflow(workflowId);
		for (const base of webhookUrls()) await rest.waitForWebhook(`${base}/webhook/${path}`);
	});
	afterAll(async () => {
		if (workflowId) await rest.deactivateWorkflow(workflowId).catch(() => {});
		await db?.end();
	});

	it('each event, delivered five times at once over both webhook processes, is handled once', async () => {
		const serials = Array.from({ length: EVENTS }, (_, i) => 8_000_000 + i);
		const statuses = await Promise.all(
			serials.flatMap((serialNumber) => {
				const body = JSON.stringify({
					type: 'VOUCHER_UPDATED',
					data: { serialNumber, balance: 100 },
				});
				return Array.from({ length: COPIES }, (_, copy) => {
					const bases = webhookUrls();
					return postEvent(`${bases[copy % bases.length]}/webhook/${path}`, body, SECRET);
				});
			}),
		);
		expect(statuses.every((s) => s === 200)).toBe(true);

		const executions = await settledExecutions(rest, workflowId, EVENTS * COPIES);
		expect(executions).toHaveLength(EVENTS * COPIES);
		const handled: number[] = [];
		for (const summary of executions) {
			const ex = await rest.getExecution(summary.id);
			expect(ex.status).toBe('success');
			for (const { json } of ex.data.resultData.runData['Handle the event']?.[0]?.data?.main?.[0] ??
				[])
				handled.push((json.data as { serialNumber: number }).serialNumber);
		}
		expect(handled.sort((a, b) => a - b)).toEqual(serials);
		const { rows } = await db.query('SELECT deduplication_key FROM voucher_events ORDER BY 1');
		expect(rows.map((r) => r.deduplication_key)).toEqual(
			serials.map((s) => JSON.stringify(['VOUCHER_UPDATED', s, 100])).sort(),
		);
	});
});
