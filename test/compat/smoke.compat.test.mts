// The smoke suite of the compatibility matrix, once per n8n version that compatSetup.mts
// started (real-n8n/versions.mts): the packed package loads, the credential test passes, a
// download order, a campaign of 5 rows run twice, Service → Check, the trigger at node
// version 2 (signed, unsigned, the same event three times, no Content-Type), and the Dry Run
// hint, in a workflow and with the node as a tool of n8n's AI Agent (fake OpenAI model, see
// test/e2e/fakeOpenAi.mts).
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';

import {
	linearWorkflow,
	sheetRows,
	MANUAL_START,
	N8nRest,
	nodeOutput,
	type Execution,
	type WorkflowJson,
} from '../../real-n8n/rest.mts';
import {
	ACTION_NODE,
	ACTION_TOOL_NODE,
	API_CREDENTIAL,
	TRIGGER_NODE,
	WEBHOOK_CREDENTIAL,
	sandboxApiCredential,
	until,
} from '../../real-n8n/fixtures.mts';
import { versionFacts } from '../../real-n8n/versions.mts';
import { sign, startSandbox, type Sandbox } from '../../sandbox/server.mts';
import {
	FAKE_MODEL_ID,
	startFakeOpenAi,
	toolResults,
	type FakeOpenAi,
} from '../e2e/fakeOpenAi.mts';
import { postEvent, settledExecutions, uniqueTriggerWorkflow } from '../e2e/n8nUnderTest.mts';

type Credential = { id: string; name: string };
type Hinted = { hints?: Array<{ message: string }> };

const SECRET = 'whsec_compat';
const DRY_RUN_HINT =
	/^Dry run, nothing was bought: a real run would buy 2 vouchers in 1 new order for NGN 3,000\.00\.$/;

/** Lines of n8n's log that say a node type or our package could not be used. */
const LOAD_PROBLEM =
	/Unrecognized node type|Unrecognized credential type|n8n-nodes-voucher-service.*(error|fail)|(error|fail).*n8n-nodes-voucher-service|Package subpath/i;

const instances = inject('compatInstances');

function orderNode(name: string, credential: Credential, parameters: Record<string, unknown>) {
	return {
		name,
		type: ACTION_NODE,
		typeVersion: 1,
		parameters: {
			resource: 'order',
			operation: 'create',
			productCode: 'VCH-INSTANT',
			amount: 1500,
			quantity: 2,
			...parameters,
		},
		credentials: { [API_CREDENTIAL]: credential },
	};
}

function campaignWorkflow(name: string, reference: string, credential: Credential): WorkflowJson {
	const rows = Array.from({ length: 5 }, (_, i) => ({
		firstName: `First${i}`,
		lastName: `Last${i}`,
		email: `compat${i}@example.com`,
		amount: 1000,
	}));
	return linearWorkflow(name, [
		MANUAL_START,
		...sheetRows(rows),
		{
			name: 'Campaign',
			type: ACTION_NODE,
			typeVersion: 1,
			parameters: {
				resource: 'order',
				operation: 'createForRecipients',
				recipientsSource: 'inputItems',
				reference,
				productCode: 'VCH-INSTANT',
				amount: '={{ $json.amount }}',
				templateId: 1,
				options: { recipientsPerOrder: 2 },
			},
			credentials: { [API_CREDENTIAL]: credential },
		},
	]);
}

describe.each(instances)('n8n $version on Node $node', (instance) => {
	const facts = versionFacts(instance.id);
	let rest: N8nRest;
	let sandbox: Sandbox;
	let api: Credential;

	const posts = () => sandbox.state.requests.filter((r) => r.method === 'POST');
	const logProblems = () =>
		readFileSync(instance.logFile, 'utf8')
			.split('\n')
			.filter((line) => LOAD_PROBLEM.test(line));
	async function run(workflow: WorkflowJson): Promise<Execution> {
		const { id } = await rest.createWorkflow(workflow);
		const ex = await rest.runWorkflow(id, MANUAL_START.name, 120_000);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		return ex;
	}

	beforeAll(async () => {
		rest = new N8nRest(instance.url, instance.id);
		rest.cookie = instance.ownerCookie;
		sandbox = await startSandbox({ port: 0 });
		api = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (compat)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	beforeEach(() => sandbox.reset());

	it('loads the package: both nodes and both credentials, no node type unrecognised', async () => {
		const nodeTypes: Array<{ name: string }> = await rest.request('GET', '/types/nodes.json');
		const ours = nodeTypes
			.map((t) => t.name)
			.filter((n) => n.startsWith('n8n-nodes-voucher-service.'));
		const expected = [ACTION_NODE, TRIGGER_NODE];
		if (facts.agentNodes) expected.push(ACTION_TOOL_NODE);
		expect(ours.sort()).toEqual(expected.sort());
		const credentialTypes: Array<{ name: string }> = await rest.request(
			'GET',
			'/types/credentials.json',
		);
		expect(credentialTypes.map((c) => c.name)).toEqual(
			expect.arrayContaining([API_CREDENTIAL, WEBHOOK_CREDENTIAL]),
		);
		expect(logProblems()).toEqual([]);
	});

	// A saved credential, as n8n 1.85 tests only those (403 Forbidden for one not saved).
	it('passes the credential test (GET /v2/transactions/wallets with the sandbox keys)', async () => {
		const data = {
			baseUrl: sandbox.url,
			publicKey: sandbox.keys.publicKey,
			secretKey: sandbox.keys.secretKey,
		};
		const result = await rest.testCredential(API_CREDENTIAL, data, api.id, api.name);
		expect(result.status, result.message).toBe('OK');
		expect(sandbox.state.requests.map((r) => [r.method, r.path, r.status])).toEqual([
			['GET', '/v2/transactions/wallets', 200],
		]);
	});

	it('places a download order', async () => {
		const reference = `compat-dl-${instance.version}-${Date.now()}`;
		const ex = await run(
			linearWorkflow(`Compat download order ${reference}`, [
				MANUAL_START,
				orderNode('Order', api, { reference }),
			]),
		);
		const [order] = nodeOutput(ex, 'Order');
		expect(order).toMatchObject({ reference, status: 'COMPLETED' });
		expect(posts()).toHaveLength(1);
		expect(sandbox.state.orders.get(reference)?.vouchers).toHaveLength(2);
	});

	it('runs a campaign of 5 rows twice: the second run buys nothing', async () => {
		const reference = `compat-campaign-${instance.version}-${Date.now()}`;
		const first = await run(campaignWorkflow(`Compat campaign ${reference}`, reference, api));
		expect(nodeOutput(first, 'Campaign')).toHaveLength(5);
		const emails = posts().flatMap((r) =>
			(r.body as { recipients: Array<{ email: string }> }).recipients.map((p) => p.email),
		);
		expect(emails.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `compat${i}@example.com`));

		const before = posts().length;
		const second = await run(
			campaignWorkflow(`Compat campaign again ${reference}`, reference, api),
		);
		expect(posts()).toHaveLength(before);
		const rows = nodeOutput(second, 'Campaign');
		expect(rows).toHaveLength(5);
		expect(rows.every((row) => row.alreadyExisted === true)).toBe(true);
	});

	describe('the trigger at its production URL', () => {
		let workflowId: string;
		let url: string;
		/** Executions in which the node after the trigger ran. */
		async function received(atLeast: number): Promise<number> {
			let count = 0;
			for (const summary of await settledExecutions(rest, workflowId, atLeast)) {
				const ex = await rest.getExecution(summary.id);
				expect(ex.status).toBe('success');
				if (ex.data.resultData.runData.Received) count++;
			}
			return count;
		}

		beforeAll(async () => {
			const webhook = await rest.createCredential('Voucher webhooks (compat)', WEBHOOK_CREDENTIAL, {
				secret: SECRET,
			});
			const wf = uniqueTriggerWorkflow(webhook, `Compat trigger ${instance.version}`);
			url = `${instance.url}/webhook/${wf.nodes[0].webhookId as string}/webhook`;
			workflowId = (await rest.createWorkflow(wf)).id;
			await rest.activateWorkflow(workflowId);
			await rest.waitForWebhook(url);
		});
		afterAll(async () => {
			if (workflowId) await rest.deactivateWorkflow(workflowId).catch(() => {});
		});

		it('a signed event starts one execution; unsigned or wrongly signed, 401 and none', async () => {
			const voucher = sandbox.state.vouchers.get('SBX-ACTIVE-0001')!;
			sandbox.configure({ webhooks: [{ url, secret: SECRET }] });
			sandbox.emitVoucherUpdate(voucher.serial, 111);
			await until('the delivery', () => sandbox.state.deliveries.length >= 1 || undefined);
			expect(sandbox.state.deliveries.map((d) => d.status)).toEqual([200]);
			expect(await received(1)).toBe(1);

			// Another event, sent by hand. The trigger sets no body, so n8n answers its default
			// response data, the literal text "firstEntryJson" (1.85.3, 1.123.81 and 2.41.1 alike).
			const event = JSON.parse(sandbox.state.deliveries[0].body);
			event.data.balance = 112;
			const body = JSON.stringify(event);
			const res = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', signature: sign(SECRET, body) },
				body,
			});
			expect(res.status).toBe(200);
			expect(await res.text()).toBe('firstEntryJson');
			expect(await received(2)).toBe(2);

			expect(await postEvent(url, body)).toBe(401);
			expect(await postEvent(url, body, 'whsec_wrong')).toBe(401);
			expect(await received(2)).toBe(2);
		});

		it('the same event delivered 3 times starts one execution', async () => {
			const voucher = sandbox.state.vouchers.get('SBX-ACTIVE-0001')!;
			sandbox.configure({ webhooks: [{ url, secret: SECRET, duplicates: 3 }] });
			sandbox.emitVoucherUpdate(voucher.serial, 222);
			await until('3 copies', () => sandbox.state.deliveries.length >= 3 || undefined);
			expect(sandbox.state.deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
			expect(await received(3)).toBe(3);
		});

		// At node version 2 this n8n reads no body it does not parse; the node reads it.
		it('a signed event without a Content-Type starts one execution', async () => {
			const body = JSON.stringify({
				type: 'VOUCHER_UPDATED',
				data: { serialNumber: 5, balance: 333 },
			});
			const res = await fetch(url, {
				method: 'POST',
				headers: { signature: sign(SECRET, body) },
				body: new TextEncoder().encode(body), // bytes: fetch sends no Content-Type
			});
			expect(res.status).toBe(200);
			await res.arrayBuffer();
			expect(await received(4)).toBe(4);
		});
	});

	it('Service → Check: every check ok, and keys the service refuses as failed items', async () => {
		const wrong = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (compat wrong)', {
			secretKey: 'sk_wrong_compat',
		});
		// Each runs once: the second gets the first's eight items.
		const check = (name: string, credential: Credential) => ({
			name,
			type: ACTION_NODE,
			typeVersion: 1,
			executeOnce: true,
			parameters: { resource: 'service', operation: 'check' },
			credentials: { [API_CREDENTIAL]: credential },
		});
		const ex = await run(
			linearWorkflow(`Compat check ${instance.version} ${Date.now()}`, [
				MANUAL_START,
				check('Check', api),
				check('Check wrong keys', wrong),
			]),
		);
		const good = nodeOutput(ex, 'Check');
		expect(good).toHaveLength(8);
		for (const item of good) expect(item.result, `${item.check}: ${item.seen}`).toBe('ok');
		const refused = nodeOutput(ex, 'Check wrong keys');
		expect(refused).toHaveLength(8);
		expect(refused[0]).toMatchObject({ check: 'Keys and base URL', result: 'failed' });
		expect(posts()).toEqual([]);
	});

	it('a dry run buys nothing and shows what a real run would buy above the output', async () => {
		const reference = `compat-dry-${instance.version}-${Date.now()}`;
		const ex = await run(
			linearWorkflow(`Compat dry run ${reference}`, [
				MANUAL_START,
				orderNode('Order', api, { reference, options: { dryRun: true } }),
			]),
		);
		expect(nodeOutput(ex, 'Order')[0]).toMatchObject({ dryRun: true, wouldBuy: true });
		expect(posts()).toEqual([]);
		const hints = (ex.data.resultData.runData.Order[0] as Hinted).hints ?? [];
		expect(hints.map((h) => h.message)).toEqual([expect.stringMatching(DRY_RUN_HINT)]);
	});

	describe.runIf(facts.agentNodes)('as a tool of the AI Agent', () => {
		const agentNodes = facts.agentNodes!;
		let model: FakeOpenAi;
		let modelCredential: Credential;
		beforeAll(async () => {
			model = await startFakeOpenAi();
			modelCredential = await rest.createCredential('Fake OpenAI (compat)', 'openAiApi', {
				apiKey: 'sk-fake-model',
				url: model.url,
			});
		});
		afterAll(async () => {
			await model?.close();
		});

		it('a dry run through the tool buys nothing, tells the model so, and keeps the hint where the version can', async () => {
			const reference = `compat-agent-dry-${instance.version}-${Date.now()}`;
			model.script([{ callTool: { reference } }, { answer: 'Checked.' }]);
			const workflow: WorkflowJson = {
				name: `Compat agent dry run ${reference}`,
				nodes: [
					{ ...MANUAL_START, position: [0, 0] },
					{
						name: 'AI Agent',
						type: '@n8n/n8n-nodes-langchain.agent',
						typeVersion: agentNodes.agent,
						position: [220, 0],
						parameters: {
							...agentNodes.agentParameters,
							promptType: 'define',
							text: 'Check a purchase.',
							options: {},
						},
					},
					{
						name: 'Model',
						type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
						typeVersion: agentNodes.model,
						position: [220, 200],
						parameters: {
							model: { __rl: true, mode: 'id', value: FAKE_MODEL_ID },
							...agentNodes.modelParameters,
							options: {},
						},
						credentials: { openAiApi: modelCredential },
					},
					{
						...orderNode('Buy vouchers', api, {
							reference: "={{ $fromAI('reference', 'A new unique order reference', 'string') }}",
							options: { dryRun: true },
						}),
						type: ACTION_TOOL_NODE,
						position: [440, 200],
					},
				],
				connections: {
					[MANUAL_START.name]: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
					Model: { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
					'Buy vouchers': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
				},
				settings: { executionOrder: 'v1' },
			};
			const ex = await run(workflow);
			expect(nodeOutput(ex, 'AI Agent')[0].output).toBe('Checked.');
			expect(model.requests).toHaveLength(2);
			const told = toolResults(model.requests[1]).join('\n');
			expect(told).toContain('"dryRun":true');
			expect(told).toContain('"wouldBuy":true');
			expect(posts()).toEqual([]);
			const toolRun = ex.data.resultData.runData['Buy vouchers'][0] as Hinted;
			const hints = (toolRun.hints ?? []).map((h) => h.message);
			if (agentNodes.toolHints) expect(hints).toEqual([expect.stringMatching(DRY_RUN_HINT)]);
			else expect(hints).toEqual([]);
		});
	});

	it("n8n's log names no unrecognised node type after every workflow above ran", () => {
		expect(logProblems()).toEqual([]);
	});
});
