// The action node as a tool of n8n's own AI Agent (agent 3.1, OpenAI Chat Model 1.3 with
// the Chat Completions API), in a real n8n, against the sandbox. The model is a local fake
// that calls the tool with scripted arguments and keeps every request, so the tests read
// exactly what n8n sent the model provider: the tool's results.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { MANUAL_START, nodeOutput, type N8nRest, type WorkflowJson } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { issuedSecrets, leakedSecrets } from '../support/secrets.mts';
import { FAKE_MODEL_ID, startFakeOpenAi, toolResults, type FakeOpenAi } from './fakeOpenAi.mts';
import {
	ACTION_TOOL_NODE,
	API_CREDENTIAL,
	ownerClient,
	sandboxApiCredential,
} from './n8nUnderTest.mts';

const AGENT = 'AI Agent';
const MODEL = 'OpenAI Chat Model';
const TOOL = 'Buy vouchers';
const PIN = '7391';

type Credential = { id: string; name: string };

const fromAI = (name: string, description: string, type: string) =>
	`={{ $fromAI('${name}', '${description}', '${type}') }}`;

/** Manual start → AI Agent, with the fake model and our node, filled by the model, as its tool. */
function agentWorkflow(
	name: string,
	credentials: { model: Credential; voucher: Credential },
	toolParameters: Record<string, unknown> = {},
): WorkflowJson {
	return {
		name,
		nodes: [
			{ ...MANUAL_START, position: [0, 0] },
			{
				name: AGENT,
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: 3.1,
				position: [220, 0],
				parameters: { promptType: 'define', text: 'Buy two 1,000 NGN vouchers.', options: {} },
			},
			{
				name: MODEL,
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.3,
				position: [220, 200],
				parameters: {
					model: { __rl: true, mode: 'id', value: FAKE_MODEL_ID },
					responsesApiEnabled: false,
					options: {},
				},
				credentials: { openAiApi: credentials.model },
			},
			{
				name: TOOL,
				type: ACTION_TOOL_NODE,
				typeVersion: 1,
				position: [440, 200],
				parameters: {
					resource: 'order',
					operation: 'create',
					reference: fromAI('reference', 'A new unique order reference', 'string'),
					productCode: fromAI('productCode', 'The product code, e.g. VCH-INSTANT', 'string'),
					amount: fromAI('amount', 'Naira per voucher', 'number'),
					quantity: fromAI('quantity', 'How many vouchers', 'number'),
					additionalFields: { pin: PIN },
					...toolParameters,
				},
				credentials: { [API_CREDENTIAL]: credentials.voucher },
			},
		],
		connections: {
			[MANUAL_START.name]: { main: [[{ node: AGENT, type: 'main', index: 0 }]] },
			[MODEL]: { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] },
			[TOOL]: { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

describe("the action node as an AI Agent's tool in n8n", () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let model: FakeOpenAi;
	const credentials = {} as { model: Credential; voucher: Credential };

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0 });
		model = await startFakeOpenAi();
		credentials.voucher = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e agent)', {
			maxOrderTotal: 5000,
		});
		credentials.model = await rest.createCredential('Fake OpenAI (e2e agent)', 'openAiApi', {
			apiKey: 'sk-fake-model',
			url: model.url,
		});
	});
	afterAll(async () => {
		await sandbox?.close();
		await model?.close();
	});
	beforeEach(() => {
		sandbox.reset();
		model.requests.length = 0;
	});

	/** Runs the agent once with the model's replies scripted; the execution must succeed. */
	async function runAgent(name: string, toolParameters: Record<string, unknown> = {}) {
		const { id } = await rest.createWorkflow(agentWorkflow(name, credentials, toolParameters));
		const ex = await rest.runWorkflow(id, MANUAL_START.name, 120_000);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		return ex;
	}

	const posts = () => sandbox.state.requests.filter((r) => r.method === 'POST');
	const lastToolResult = (requestIndex: number) =>
		toolResults(model.requests[requestIndex]).at(-1)!;

	it('buys with the model’s arguments within the spending guard, and tells the model why a dearer order was refused', async () => {
		const dear = `agent-dear-${Date.now()}`;
		const reference = `agent-buy-${Date.now()}`;
		const order = { productCode: 'VCH-INSTANT', quantity: 2 };
		model.script([
			{ callTool: { ...order, reference: dear, amount: 3000 } },
			{ callTool: { ...order, reference, amount: 1000 } },
			{ answer: 'I bought two vouchers.' },
		]);
		const ex = await runAgent('Agent buys vouchers');

		// The model offered our node as a tool with the $fromAI() arguments, and was asked 3 times.
		expect(model.requests).toHaveLength(3);
		const offered = model.requests[0].tools?.map((tool) => tool.function.name);
		expect(offered).toEqual(['Buy_vouchers']);
		expect(model.requests[0].tools?.[0].function.parameters).toMatchObject({
			properties: {
				reference: { type: 'string' },
				productCode: { type: 'string' },
				amount: { type: 'number' },
				quantity: { type: 'number' },
			},
		});

		// 6,000 NGN is above the credential's 5,000: nothing sent, and the model learns why.
		expect(lastToolResult(1)).toContain(
			'Item 0: order total NGN 6,000.00 is above the maximum order total of NGN 5,000.00',
		);
		expect(sandbox.state.orders.has(dear)).toBe(false);

		// 2,000 NGN is bought, exactly as the model asked.
		expect(posts().map((r) => r.body)).toEqual([{ ...order, reference, amount: 1000, pin: PIN }]);
		const bought = lastToolResult(2);
		const serials = sandbox.state.orders.get(reference)!.vouchers.map((v) => v.serial);
		expect(serials).toHaveLength(2);
		for (const serial of serials) expect(bought).toContain(String(serial));
		expect(bought).toContain(reference);
		expect(bought).toContain('COMPLETED');

		// The model was sent no code or PIN, and was told that they were withheld.
		const sentToModel = model.requests.map((request) => request.messages);
		expect(leakedSecrets(sentToModel, issuedSecrets(sandbox, [reference]))).toEqual([]);
		expect(bought).toContain('codesWithheld');
		expect(bought).toContain('Order → Get');
		expect(nodeOutput(ex, AGENT)[0].output).toBe('I bought two vouchers.');
	});

	it('buys once when the model repeats a purchase whose Reference is derived from the run', async () => {
		const purchase = { purchase: 'gift-1', productCode: 'VCH-INSTANT', amount: 1000, quantity: 1 };
		model.script([{ callTool: purchase }, { callTool: purchase }, { answer: 'Bought once.' }]);
		const ex = await runAgent('Agent repeats a purchase', {
			reference:
				"=agent-{{ $execution.id }}-{{ $fromAI('purchase', 'A short name for this purchase; the same name when you retry it', 'string') }}",
		});

		const reference = `agent-${ex.id}-gift-1`;
		expect(posts().map((r) => (r.body as { reference: string }).reference)).toEqual([
			reference,
			reference,
		]);
		expect(sandbox.state.orders.size).toBe(1);
		expect(lastToolResult(1)).toContain('"alreadyExisted":false');
		expect(lastToolResult(2)).toContain('"alreadyExisted":true');
	});

	it('gives the model the codes and PINs when "Give Codes to the AI Agent" is on', async () => {
		const reference = `agent-opt-in-${Date.now()}`;
		model.script([
			{ callTool: { reference, productCode: 'VCH-INSTANT', amount: 1000, quantity: 2 } },
			{ answer: 'Here are your codes.' },
		]);
		await runAgent('Agent receives codes', { giveCodesToAgent: true });

		expect(model.requests).toHaveLength(2);
		const secrets = issuedSecrets(sandbox, [reference]);
		expect(secrets).toHaveLength(4);
		expect(leakedSecrets(lastToolResult(1), secrets)).toEqual(secrets);
		expect(lastToolResult(1)).not.toContain('codesWithheld');
	});
});
