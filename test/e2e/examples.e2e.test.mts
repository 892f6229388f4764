// The example workflows users import (examples/) work in a real n8n, wired
// as `npm run dev` wires them: each manual one runs to success against the
// sandbox, and the sandbox's events start the two webhook-driven ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
	exampleFiles,
	importExamples,
	productionWebhookUrl,
	readExample,
	type ImportedExample,
} from '../../real-n8n/examples.mts';
import { nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import {
	API_CREDENTIAL,
	WEBHOOK_CREDENTIAL,
	n8nUrl,
	ownerClient,
	sandboxApiCredential,
	until,
} from './helpers.mts';
import { inject } from 'vitest';

const SECRET = 'whsec_examples';
const MANUAL_TRIGGER = 'When clicking ‘Execute workflow’';

describe('example workflows', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let imported: ImportedExample[];
	const byFile = (file: string) => imported.find((w) => w.file === file)!;
	const runExample = (file: string) => rest.runWorkflow(byFile(file).id, MANUAL_TRIGGER);

	beforeAll(async () => {
		rest = await ownerClient();
		const webhookFiles = exampleFiles().filter((f) =>
			productionWebhookUrl(n8nUrl(), readExample(f)),
		);
		sandbox = await startSandbox({
			port: 0,
			processingDelayMs: 800,
			webhooks: webhookFiles.map((f) => ({
				url: productionWebhookUrl(n8nUrl(), readExample(f))!,
				secret: SECRET,
			})),
		});
		const credentials = {
			[API_CREDENTIAL]: await sandboxApiCredential(
				rest,
				sandbox,
				'Voucher Service account (examples)',
			),
			[WEBHOOK_CREDENTIAL]: await rest.createCredential(
				'Voucher Service webhook secret (examples)',
				WEBHOOK_CREDENTIAL,
				{
					secret: SECRET,
				},
			),
		};
		imported = await importExamples(rest, { credentials, filesDir: inject('n8nFilesDir') });
	});
	afterAll(async () => {
		for (const w of imported ?? [])
			if (w.active) await rest.deactivateWorkflow(w.id).catch(() => {});
		await sandbox?.close();
	});

	it('use only node types and versions this n8n has, and credentials of our types', async () => {
		const types: Array<{ name: string; version: number | number[] }> = await rest.request(
			'GET',
			'/types/nodes.json',
		);
		const versions = new Map<string, number[]>();
		for (const t of types)
			versions.set(t.name, [...(versions.get(t.name) ?? []), ...[t.version].flat()]);
		for (const file of exampleFiles()) {
			for (const node of readExample(file).nodes) {
				expect(versions.get(node.type), `${file}: ${node.type}`).toContain(node.typeVersion);
				// postgres: the user's own database, in trigger-once-with-your-database.json
				for (const type of Object.keys(node.credentials ?? {}))
					expect([API_CREDENTIAL, WEBHOOK_CREDENTIAL, 'postgres']).toContain(type);
			}
		}
	});

	it('one example per operation of the action node', () => {
		const ops = exampleFiles()
			.filter((f) => f.startsWith('operations/'))
			.flatMap((f) => readExample(f).nodes)
			.filter((n) => n.type === 'n8n-nodes-voucher-service.voucherService')
			.map((n) => `${n.parameters.resource}:${n.parameters.operation}`)
			.sort();
		expect(ops).toEqual(
			[
				'country:getAll',
				'order:create',
				'order:createForRecipients',
				'order:get',
				'template:getAll',
				'voucher:getStatus',
				'wallet:getAll',
				'webhook:verifySignature',
			].sort(),
		);
	});

	it('every manual example runs to success', async () => {
		// order-get reads the order that order-create makes, so order-create goes first.
		const manual = imported
			.filter((w) => !w.webhookUrl)
			.sort(
				(a, b) =>
					Number(b.file.endsWith('order-create.json')) -
					Number(a.file.endsWith('order-create.json')),
			);
		for (const w of manual) {
			const ex = await runExample(w.file);
			expect(ex.status, `${w.file}: ${JSON.stringify(ex.data.resultData.error)}`).toBe('success');
		}
	});

	it('the CSV campaign orders one voucher per row, grouped by amount, and is not bought twice on a re-run', async () => {
		// The previous test ran the campaign once already, so these are all re-runs.
		const campaignPosts = () =>
			sandbox.state.requests.filter(
				(r) =>
					r.method === 'POST' &&
					r.status === 200 &&
					String((r.body as { reference?: string }).reference).startsWith('welcome-campaign-'),
			);
		const first = await runExample('campaign-from-csv.json');
		expect(first.status, JSON.stringify(first.data.resultData.error)).toBe('success');
		expect(nodeOutput(first, 'Parse CSV')).toHaveLength(5);
		const posts = campaignPosts();
		const bodies = posts.map(
			(r) => r.body as { amount: number; templateId: number; recipients: Array<{ email: string }> },
		);
		expect(bodies.map((b) => [b.amount, b.recipients.length]).sort()).toEqual([
			[10000, 2],
			[5000, 3],
		]);
		expect(bodies.every((b) => b.templateId === 2)).toBe(true);
		const results = readFileSync(join(inject('n8nFilesDir'), 'campaign-results.csv'), 'utf8')
			.trim()
			.split('\n');
		expect(results[0]).toContain('voucherStatus');
		expect(results).toHaveLength(6);
		expect(results.slice(1).every((row) => row.includes('DELIVERED'))).toBe(true);

		const again = await runExample('campaign-from-csv.json');
		expect(again.status).toBe('success');
		expect(campaignPosts()).toHaveLength(2);
	});

	it('an order that completes later drives both webhook examples', async () => {
		const trigger = byFile('order-events-automation.json');
		const webhookNode = byFile('operations/webhook-verify-signature.json');
		const ex = await runExample('place-order-that-completes-later.json');
		expect(ex.status).toBe('success');
		const [order] = nodeOutput(ex, 'Order that completes later');
		expect(order.status).toBe('PROCESSING');

		// Earlier tests ran this example too; find the executions for this order.
		const executionFor = async (workflowId: string, node: string) => {
			for (const summary of await rest.listExecutions(workflowId)) {
				const ex = await rest.waitForExecution(summary.id);
				const out = ex.data.resultData.runData[node] ? nodeOutput(ex, node) : [];
				const ref = (i: Record<string, any>) => i.reference ?? i.event?.data?.reference;
				if (out.some((i) => ref(i) === order.reference)) return { ex, out };
			}
			return undefined;
		};
		const summary = await until('the trigger workflow to run', () =>
			executionFor(trigger.id, 'Summary'),
		);
		expect(summary.ex.status).toBe('success');
		expect(summary.out).toEqual([
			{ reference: order.reference, status: 'COMPLETED', vouchers: 1, delivered: 1 },
		]);

		const handled = await until('the Webhook-node workflow to run', () =>
			executionFor(webhookNode.id, 'Handle the event'),
		);
		expect(handled.out[0]).toMatchObject({
			valid: true,
			event: { type: 'ORDER_UPDATED', data: { reference: order.reference } },
		});
	});
});
