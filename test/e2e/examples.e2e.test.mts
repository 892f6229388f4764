// The example workflows users import (examples/) work in a real n8n, wired
// as `npm run dev` wires them: every node's parameters exist in its type's
// description as this n8n serves it to the editor, each manual example runs to
// success against the sandbox, the sandbox's events start the two
// webhook-driven ones, and no example buys twice when it is run again.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
	exampleFiles,
	findNodeType,
	importExamples,
	parameterProblems,
	preparedExample,
	productionWebhookUrl,
	readExample,
	type ImportedExample,
	type NodeTypeDescription,
} from '../../real-n8n/examples.mts';
import { nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import {
	ACTION_NODE,
	API_CREDENTIAL,
	WEBHOOK_CREDENTIAL,
	n8nUrl,
	ownerClient,
	postEvent,
	sandboxApiCredential,
	until,
} from './n8nUnderTest.mts';
import { inject } from 'vitest';

const SECRET = 'whsec_examples';
const MANUAL_TRIGGER = 'When clicking ‘Execute workflow’';

describe('example workflows', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let imported: ImportedExample[];
	let credentials: Record<string, { id: string; name: string }>;
	const extraWorkflows: string[] = [];
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
		credentials = {
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
		for (const id of extraWorkflows) await rest.deactivateWorkflow(id).catch(() => {});
		await sandbox?.close();
	});

	const hasManualTrigger = (file: string) =>
		readExample(file).nodes.some((n) => n.name === MANUAL_TRIGGER);
	/** The example's nodes, and those of the examples it runs as sub-workflows (by id). */
	const nodesRun = (file: string) => {
		const wf = readExample(file);
		const called = wf.nodes
			.filter((n) => n.type === 'n8n-nodes-base.executeWorkflow')
			.map((n) => (n.parameters.workflowId as { value: string }).value);
		const subWorkflows = exampleFiles()
			.map(readExample)
			.filter((sub) => called.includes(sub.id!));
		return [...wf.nodes, ...subWorkflows.flatMap((sub) => sub.nodes)];
	};
	/**
	 * Google Sheets cannot run here; the PostgreSQL and Data Table campaigns, which need their
	 * tables and their page's own id, run in campaignFromPostgres.e2e.test.mts and
	 * campaignFromDataTable.e2e.test.mts.
	 */
	const usesOwnService = (file: string) =>
		nodesRun(file).some((n) =>
			[
				'n8n-nodes-base.googleSheets',
				'n8n-nodes-base.postgres',
				'n8n-nodes-base.dataTable',
			].includes(n.type),
		);

	/** Every node type this n8n offers, with its parameters, as the editor loads them. */
	const nodeTypes = async (): Promise<NodeTypeDescription[]> =>
		await rest.request('GET', '/types/nodes.json');

	it('use only node types and versions this n8n has, and credentials of our types', async () => {
		const types = await nodeTypes();
		const versions = new Map<string, number[]>();
		for (const t of types)
			versions.set(t.name, [...(versions.get(t.name) ?? []), ...[t.version].flat()]);
		for (const file of exampleFiles()) {
			for (const node of readExample(file).nodes) {
				expect(versions.get(node.type), `${file}: ${node.type}`).toContain(node.typeVersion);
				// The user's own services: postgres (trigger-once-with-your-database.json), Google
				// Sheets (google-sheets-campaign.json) and SMTP (low-balance-alert.json).
				for (const type of Object.keys(node.credentials ?? {}))
					expect([
						API_CREDENTIAL,
						WEBHOOK_CREDENTIAL,
						'postgres',
						'googleSheetsOAuth2Api',
						'smtp',
					]).toContain(type);
			}
		}
	});

	it('set only parameters their node type has and shows, with valid options, also inside collections', async () => {
		const types = await nodeTypes();
		const problems: string[] = [];
		let checked = 0;
		for (const file of exampleFiles()) {
			for (const node of readExample(file).nodes) {
				const type = findNodeType(types, node.type, node.typeVersion)!;
				expect(type?.properties, `${file}: ${node.type}@${node.typeVersion}`).toBeDefined();
				for (const problem of parameterProblems(node, type))
					problems.push(`${file}: "${node.name}": ${problem}`);
				checked += Object.keys(node.parameters).length;
			}
		}
		expect(problems).toEqual([]);
		expect(checked).toBeGreaterThan(100);
	});

	it('the parameter check fails on a parameter, option or choice that does not exist, or is hidden', async () => {
		const types = await nodeTypes();
		const example = readExample('operations/order-create.json');
		const create = example.nodes.find((n) => n.name === 'Create download order')!;
		const type = findNodeType(types, create.type, create.typeVersion)!;
		expect(parameterProblems(create, type)).toEqual([]);
		const broken = (parameters: Record<string, unknown>) =>
			parameterProblems({ ...create, parameters: { ...create.parameters, ...parameters } }, type);
		expect(broken({ madeUpParameter: 1 })).toEqual(['madeUpParameter: no such parameter']);
		expect(broken({ additionalFields: { couponCode: 'X', madeUp: 1 } })).toEqual([
			'additionalFields.madeUp: no such option',
		]);
		// (and every field of Create is then hidden, so those are reported too)
		expect(broken({ operation: 'buyEverything' })).toContain(
			'operation: "buyEverything" is not one of its options',
		);
		// Recipients belong to Create for Recipients: hidden on Create.
		expect(broken({ recipientsSource: 'manual' })).toEqual([
			'recipientsSource: not shown for these settings (version 1)',
		]);
		const respond = readExample('operations/webhook-verify-signature.json').nodes.find(
			(n) => n.name === 'Answer 401',
		)!;
		const respondType = findNodeType(types, respond.type, respond.typeVersion)!;
		expect(
			parameterProblems(
				{ ...respond, parameters: { ...respond.parameters, options: { responseCod: 401 } } },
				respondType,
			),
		).toEqual(['options.responseCod: no such option']);
	});

	it('the examples that cannot run here (Google Sheets, e-mail, schedules) match their node types as this n8n describes them', async () => {
		const types = await nodeTypes();
		const external = [
			'n8n-nodes-base.googleSheets',
			'n8n-nodes-base.emailSend',
			'n8n-nodes-base.scheduleTrigger',
		];
		const checked: string[] = [];
		for (const file of exampleFiles())
			for (const node of readExample(file).nodes) {
				if (!external.includes(node.type)) continue;
				const type = findNodeType(types, node.type, node.typeVersion)!;
				expect(type, `${file}: ${node.type}@${node.typeVersion}`).toBeDefined();
				expect(parameterProblems(node, type), `${file}: "${node.name}"`).toEqual([]);
				checked.push(`${file}: ${node.name}`);
			}
		expect(checked.sort()).toEqual([
			'daily-campaign-growing-sheet.json: Every morning at 7',
			'google-sheets-campaign.json: Read the sheet',
			'google-sheets-campaign.json: Write the results to the same rows',
			'low-balance-alert.json: Every morning at 8',
			'low-balance-alert.json: Send the alert',
		]);

		// Results go back to the row they came from: matched by the row_number Google Sheets
		// gave the row when it was read, carried through the campaign by paired items.
		const sheets = readExample('google-sheets-campaign.json');
		const read = sheets.nodes.find((n) => n.name === 'Read the sheet')!;
		const write = sheets.nodes.find((n) => n.name === 'Write the results to the same rows')!;
		expect(read.parameters).toMatchObject({ resource: 'sheet', operation: 'read' });
		expect(write.parameters).toMatchObject({
			resource: 'sheet',
			operation: 'update',
			documentId: read.parameters.documentId,
			sheetName: read.parameters.sheetName,
		});
		const columns = write.parameters.columns as {
			value: Record<string, string>;
			matchingColumns: string[];
			schema: Array<{ id: string }>;
		};
		expect(columns.matchingColumns).toEqual(['row_number']);
		expect(columns.value.row_number).toBe("={{ $('Read the sheet').item.json.row_number }}");
		expect(Object.keys(columns.value).sort()).toEqual(columns.schema.map((c) => c.id).sort());
		const campaign = sheets.nodes.find((n) => n.type === ACTION_NODE)!;
		expect(campaign.onError).toBe('continueRegularOutput');
		expect(sheets.connections).toMatchObject({
			'Read the sheet': { main: [[{ node: campaign.name }]] },
			[campaign.name]: { main: [[{ node: write.name }]] },
		});

		// The alert: the wallet list, then the If's true branch (output 0) to the e-mail.
		const alert = readExample('low-balance-alert.json');
		expect(alert.nodes.find((n) => n.name === 'Wallets')!.parameters).toEqual({
			resource: 'wallet',
			operation: 'getAll',
		});
		expect(alert.connections['NGN below 100,000?']).toEqual({
			main: [[{ node: 'Send the alert', type: 'main', index: 0 }]],
		});
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
				'order:getCampaign',
				'service:check',
				'template:getAll',
				'voucher:getStatus',
				'wallet:getAll',
				'webhook:verifySignature',
			].sort(),
		);
	});

	const debits = () => sandbox.state.ledger.filter((e) => e.kind === 'debit').length;

	/** The README's first order, second step: the same workflow with Dry Run turned off. */
	const buyFirstOrder = async () => {
		const file = 'operations/order-create.json';
		const wf = preparedExample(file, { credentials, filesDir: inject('n8nFilesDir') });
		const create = wf.nodes.find((n) => n.name === 'Create download order')!;
		create.parameters = { ...create.parameters, options: { dryRun: false } };
		const { id } = await rest.createWorkflow({ ...wf, name: `${wf.name} (Dry Run off)` });
		return await rest.runWorkflow(id, MANUAL_TRIGGER);
	};

	it('every manual example runs to success', async () => {
		// order-get reads the order that order-create's second step buys, so order-create goes
		// first: as imported, a dry run that buys nothing; then with Dry Run off, one order. The
		// scheduled examples run in spreadsheet.e2e.test.mts and wallet.e2e.test.mts.
		const manual = imported
			.filter((w) => !w.webhookUrl && hasManualTrigger(w.file) && !usesOwnService(w.file))
			.sort(
				(a, b) =>
					Number(b.file.endsWith('order-create.json')) -
					Number(a.file.endsWith('order-create.json')),
			);
		for (const w of manual) {
			const before = debits();
			const ex = await runExample(w.file);
			expect(ex.status, `${w.file}: ${JSON.stringify(ex.data.resultData.error)}`).toBe('success');
			if (w.file !== 'operations/order-create.json') continue;
			expect(nodeOutput(ex, 'Create download order')[0]).toMatchObject({
				dryRun: true,
				reference: 'order-A-1000',
			});
			expect(debits()).toBe(before);
			const bought = await buyFirstOrder();
			expect(bought.status, JSON.stringify(bought.data.resultData.error)).toBe('success');
			expect(nodeOutput(bought, 'Create download order')[0]).toMatchObject({
				reference: 'order-A-1000',
			});
			expect(debits()).toBe(before + 1);
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
		// "every manual example" placed this order already; this run finds it and buys nothing.
		const ex = await runExample('place-order-that-completes-later.json');
		expect(ex.status).toBe('success');
		const [order] = nodeOutput(ex, 'Order that completes later');
		expect(order).toMatchObject({ reference: 'later-A-2000', alreadyExisted: true });
		const debits = sandbox.state.ledger.filter(
			(e) => e.kind === 'debit' && e.reference === order.reference,
		);
		expect(debits).toHaveLength(1);

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

	it('the Verify Signature example answers 200 to a signed event and 401 to a wrong or missing signature', async () => {
		const url = byFile('operations/webhook-verify-signature.json').webhookUrl!;
		const body = JSON.stringify({
			type: 'VOUCHER_UPDATED',
			data: { serialNumber: 7_000_000_009_001, balance: 10 },
		});
		expect(await postEvent(url, body, SECRET)).toBe(200);
		expect(await postEvent(url, body, 'whsec_not_the_secret')).toBe(401);
		expect(await postEvent(url, body)).toBe(401);
	});

	it('the own-database example routes an event without a deduplicationKey past the table', async () => {
		const wf = readExample('trigger-once-with-your-database.json');
		// No PostgreSQL in this suite (the queue suite has one): the database step becomes a
		// No Operation node of the same name, so what is checked is the routing by "Has a key?".
		wf.nodes = wf.nodes.map((n) => {
			if (n.name === 'Record the key')
				return {
					...n,
					type: 'n8n-nodes-base.noOp',
					typeVersion: 1,
					parameters: {},
					credentials: {},
				};
			if (n.credentials?.[WEBHOOK_CREDENTIAL])
				return {
					...n,
					webhookId: randomUUID(),
					credentials: { [WEBHOOK_CREDENTIAL]: credentials[WEBHOOK_CREDENTIAL] },
				};
			return n;
		});
		wf.name += ' (no database)';
		const { id } = await rest.createWorkflow(wf);
		const url = productionWebhookUrl(n8nUrl(), wf)!;
		await rest.activateWorkflow(id);
		extraWorkflows.push(id);
		await rest.waitForWebhook(url);
		const keyed = {
			type: 'VOUCHER_UPDATED',
			data: { serialNumber: 7_000_000_009_002, balance: 5 },
		};
		const keyless = { type: 'VOUCHER_UPDATED', data: { balance: 5 } };
		expect(await postEvent(url, JSON.stringify(keyed), SECRET)).toBe(200);
		expect(await postEvent(url, JSON.stringify(keyless), SECRET)).toBe(200);
		const routed = await until('both events to run', async () => {
			const summaries = await rest.listExecutions(id);
			if (summaries.length < 2) return undefined;
			const out: Record<string, unknown> = {};
			for (const summary of summaries) {
				const ex = await rest.waitForExecution(summary.id);
				const [trigger] = nodeOutput(ex, 'Voucher Service Trigger');
				const reached = ['Record the key', 'No key: check by hand'].filter(
					(node) => ex.data.resultData.runData[node],
				);
				out[JSON.stringify(trigger.deduplicationKey)] = reached;
			}
			return out;
		});
		expect(routed).toEqual({
			[JSON.stringify(JSON.stringify(['VOUCHER_UPDATED', 7_000_000_009_002, 5]))]: [
				'Record the key',
			],
			null: ['No key: check by hand'],
		});
	});

	it('re-running every create example buys nothing more', async () => {
		const before = debits();
		for (const file of [
			'operations/order-create.json',
			'operations/order-create-for-recipients.json',
			'place-order-that-completes-later.json',
			'campaign-from-csv.json',
			'sheet-round-trip.json',
		]) {
			const ex = await runExample(file);
			expect(ex.status, `${file}: ${JSON.stringify(ex.data.resultData.error)}`).toBe('success');
		}
		expect(debits()).toBe(before);
	});

	it('no example builds a reference from the clock or a random value', () => {
		for (const file of exampleFiles())
			for (const node of readExample(file).nodes)
				if (typeof node.parameters.reference === 'string')
					expect(node.parameters.reference, `${file}: ${node.name}`).not.toMatch(
						/\$now|\$today|Date\.now|new Date|Math\.random|\$execution\.id|randomUUID/,
					);
	});

	it('every sandbox-only value has a sticky note next to its node saying to change it', () => {
		const SANDBOX_ONLY = /VCH-[A-Z-]+|SBX-[A-Z]+-\d+|SAVE10/;
		for (const file of exampleFiles()) {
			const wf = readExample(file);
			const notes = wf.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote');
			for (const node of wf.nodes) {
				if (node.type !== ACTION_NODE) continue;
				const p = node.parameters;
				const sandboxValues = [
					...(JSON.stringify(p).match(new RegExp(SANDBOX_ONLY, 'g')) ?? []),
					...(p.templateId === 1 || p.templateId === 2 ? [`template ${String(p.templateId)}`] : []),
				];
				if (sandboxValues.length === 0) continue;
				const [x, y] = node.position as [number, number];
				const near = notes.filter((n) => {
					const [nx, ny] = n.position as [number, number];
					return Math.abs(nx - x) <= 400 && Math.abs(ny - y) <= 400;
				});
				const content = near.map((n) => String(n.parameters.content)).join('\n');
				expect(content, `${file}: "${node.name}"`).toMatch(/change/i);
				for (const value of sandboxValues)
					expect(content, `${file}: "${node.name}" ${value}`).toContain(
						value.startsWith('template ') ? value.replace('template ', 'template `') : value,
					);
			}
		}
	});
});
