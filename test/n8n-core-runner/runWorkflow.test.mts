/**
 * Proves runWorkflow runs nodes the way n8n does: real WorkflowExecute, real
 * expression engine, real credential authentication, real HTTP to a local server.
 * The credential and node types below are test-only, not the package's.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	NodeConnectionTypes,
	NodeOperationError,
	type IAuthenticateGeneric,
	type ICredentialType,
	type IExecuteFunctions,
	type ILoadOptionsFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
	activeExpressionEngine,
	chain,
	disposeN8nRuntime,
	itemsNode,
	nodeCredentialsFor,
	runLoadOptions,
	runNode,
	runWorkflow,
	type RunNodeOptions,
	startNode,
	workflowNode,
} from '../../n8n-core-runner/runWorkflow.mts';

class TestEchoApi implements ICredentialType {
	name = 'testEchoApi';
	displayName = 'Test Echo API';
	properties: ICredentialType['properties'] = [
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
		{ displayName: 'Public Key', name: 'publicKey', type: 'string', default: '' },
		{
			displayName: 'Secret Key',
			name: 'secretKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
	];
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			auth: { username: '={{$credentials.publicKey}}', password: '={{$credentials.secretKey}}' },
		},
	};
}

const credentialsDescription: INodeTypeDescription['credentials'] = [
	{ name: 'testEchoApi', required: true },
];

/** Programmatic node: one authenticated GET per item, the pattern our real nodes use. */
class TestEcho implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Echo',
		name: 'testEcho',
		group: ['transform'],
		version: 1,
		description: 'Calls the echo server',
		defaults: { name: 'Test Echo' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsDescription,
		properties: [
			{ displayName: 'Path', name: 'path', type: 'string', default: '/echo' },
			{ displayName: 'Email', name: 'email', type: 'string', default: '' },
		],
	};

	methods = {
		loadOptions: {
			async getWallets(this: ILoadOptionsFunctions) {
				const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('testEchoApi');
				const res = (await this.helpers.httpRequestWithAuthentication.call(this, 'testEchoApi', {
					method: 'GET',
					url: `${baseUrl}/wallets`,
					qs: { email: this.getCurrentNodeParameter('email') as string },
					json: true,
				})) as { wallets: Array<{ id: string; label: string }>; authorization: string };
				return res.wallets.map((w) => ({ name: `${w.label} (${res.authorization})`, value: w.id }));
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('testEchoApi');
		for (let i = 0; i < this.getInputData().length; i++) {
			try {
				const email = this.getNodeParameter('email', i) as string;
				if (email === 'invalid') {
					throw new NodeOperationError(this.getNode(), `Email "${email}" is invalid`, {
						itemIndex: i,
					});
				}
				const response = await this.helpers.httpRequestWithAuthentication.call(
					this,
					'testEchoApi',
					{
						method: 'GET',
						url: baseUrl + (this.getNodeParameter('path', i) as string),
						qs: { email },
						json: true,
					},
				);
				out.push({ json: response, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				// Already a NodeOperationError/NodeApiError; rethrown unchanged so the test sees n8n's own.
				throw error;
			}
		}
		return [out];
	}
}

/** Declarative node: n8n's RoutingNode builds the request from requestDefaults/routing. */
class TestEchoDeclarative implements INodeType {
	description: INodeTypeDescription = {
		...new TestEcho().description,
		name: 'testEchoDeclarative',
		requestDefaults: { baseURL: '={{$credentials.baseUrl}}', json: true },
		properties: [
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				default: '',
				routing: { request: { method: 'GET', url: '/echo', qs: { email: '={{$value}}' } } },
			},
		],
	};
}

const credentialTypes = [new TestEchoApi()];
let server: Server;
let baseUrl: string;
let requests: IncomingMessage[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		requests.push(req);
		const url = new URL(req.url ?? '/', 'http://localhost');
		const send = (status: number, body: object) =>
			res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
		if (url.pathname === '/echo') {
			send(200, { authorization: req.headers.authorization, email: url.searchParams.get('email') });
		} else if (url.pathname === '/wallets') {
			send(200, {
				authorization: req.headers.authorization,
				wallets: [{ id: 'w1', label: 'Main' }],
			});
		} else {
			send(500, { message: 'upstream exploded' });
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
	await disposeN8nRuntime();
});

beforeEach(() => {
	requests = [];
});

const credentials = () => ({
	testEchoApi: { baseUrl, publicKey: 'pk_test', secretKey: 's3cret:with-colon' },
});
const expectedBasic = `Basic ${Buffer.from('pk_test:s3cret:with-colon').toString('base64')}`;
/** Runs the TestEcho node with working credentials; tests override what they vary. */
const runEcho = (opts: Partial<RunNodeOptions>) =>
	runNode({
		nodeType: new TestEcho(),
		credentialTypes,
		credentials: credentials(),
		parameters: { email: '={{ $json.email }}' },
		...opts,
	});
const threeItems = [
	{ email: 'a@example.com' },
	{ email: 'b@example.com' },
	{ email: 'c@example.com' },
];

describe('runNode with a programmatic node', () => {
	it('evaluates expressions in the isolate engine n8n 2.41 uses by default', async () => {
		const { items } = await runEcho({ inputItems: [{ email: 'x@example.com' }] });

		expect(items[0][0].json.email).toBe('x@example.com');
		expect(activeExpressionEngine()).toBe('vm');
	});

	it('sends real Basic auth from the generic authenticate, one request per item, paired', async () => {
		const { items, error } = await runEcho({
			inputItems: threeItems,
		});

		expect(error).toBeUndefined();
		expect(requests.map((r) => r.headers.authorization)).toEqual([
			expectedBasic,
			expectedBasic,
			expectedBasic,
		]);
		expect(items).toHaveLength(1);
		expect(items[0].map((item) => item.json)).toEqual(
			threeItems.map(({ email }) => ({ authorization: expectedBasic, email })),
		);
		expect(items[0].map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});

	it('with continueOnFail, a thrown NodeOperationError becomes an error item and the rest still run', async () => {
		const { items, error } = await runEcho({
			inputItems: [{ email: 'a@example.com' }, { email: 'invalid' }, { email: 'c@example.com' }],
			continueOnFail: true,
		});

		expect(error).toBeUndefined();
		expect(items[0].map((item) => item.json.error ?? item.json.email)).toEqual([
			'a@example.com',
			'Email "invalid" is invalid',
			'c@example.com',
		]);
		expect(items[0][1].pairedItem).toEqual({ item: 1 });
	});

	it('with onError "continueErrorOutput", WorkflowExecute routes error items to the error output', async () => {
		const { items, error } = await runEcho({
			inputItems: [{ email: 'a@example.com' }, { email: 'invalid' }],
			onError: 'continueErrorOutput',
		});

		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect(items[0].map((item) => item.json.email)).toEqual(['a@example.com']);
		expect(items[1].map((item) => item.json.error)).toEqual(['Email "invalid" is invalid']);
		expect(items[1][0].pairedItem).toEqual({ item: 1 });
	});

	it('without continueOnFail, the run fails with the thrown error and the node gives no output', async () => {
		const { items, error, run } = await runEcho({
			inputItems: [{ email: 'a@example.com' }, { email: 'invalid' }],
		});

		// n8n keeps a plain copy of the error in the run (class lost, `name` kept).
		expect(error).toMatchObject({
			name: 'NodeOperationError',
			message: 'Email "invalid" is invalid',
		});
		expect(run.status).toBe('error');
		expect(run.data.resultData.lastNodeExecuted).toBe('Node under test');
		expect(items).toEqual([]);
	});

	it('an HTTP 500 surfaces as the NodeApiError httpRequestWithAuthentication throws', async () => {
		const { error } = await runEcho({
			parameters: { path: '/explode' },
		});

		expect(error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '500',
			message: 'The service was not able to process your request',
			description: 'upstream exploded',
		});
		expect(requests[0].headers.authorization).toBe(expectedBasic);
	});
});

describe('runNode with a declarative node', () => {
	it('resolves requestDefaults.baseURL from $credentials and authenticates through RoutingNode', async () => {
		const { items, error } = await runNode({
			nodeType: new TestEchoDeclarative(),
			credentialTypes,
			credentials: credentials(),
			parameters: { email: '={{ $json.email }}' },
			inputItems: threeItems.slice(0, 2),
		});

		expect(error).toBeUndefined();
		expect(items[0].map((item) => item.json)).toEqual([
			{ authorization: expectedBasic, email: 'a@example.com' },
			{ authorization: expectedBasic, email: 'b@example.com' },
		]);
	});
});

describe('runWorkflow', () => {
	it('runs a hand-built workflow and reports execution order', async () => {
		const start = startNode();
		const items = itemsNode([{ email: 'x@example.com' }]);
		const echo = workflowNode(
			'Echo',
			'testEcho',
			{ email: '={{ $json.email }}' },
			{
				credentials: nodeCredentialsFor(['testEchoApi']),
			},
		);

		const result = await runWorkflow({
			nodeTypes: { testEcho: new TestEcho() },
			credentialTypes,
			credentials: credentials(),
			nodes: [start, items, echo],
			connections: chain('Start', 'Items', 'Echo'),
		});

		expect(result.error).toBeUndefined();
		expect(result.executedNodes).toEqual(['Start', 'Items', 'Echo']);
		expect(result.outputOf('Echo')[0].json).toEqual({
			authorization: expectedBasic,
			email: 'x@example.com',
		});
	});
});

describe('runLoadOptions', () => {
	it('calls loadOptions with a real LoadOptionsContext (credentials, current parameters, auth)', async () => {
		const options = await runLoadOptions({
			nodeType: new TestEcho(),
			methodName: 'getWallets',
			credentialTypes,
			credentials: credentials(),
			parameters: { email: 'a@example.com' },
		});

		expect(options).toEqual([{ name: `Main (${expectedBasic})`, value: 'w1' }]);
		expect(new URL(requests[0].url ?? '', baseUrl).searchParams.get('email')).toBe('a@example.com');
	});
});
