/**
 * Runs the VoucherService node inside a real n8n-core workflow against the sandbox.
 * Each test file starts its own sandbox so request logs never mix.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

import { deepCopy } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	IExecuteFunctions,
	INodeParameters,
	INodeType,
} from 'n8n-workflow';
import { afterAll, beforeEach } from 'vitest';

import { VoucherServiceApi } from '../../../credentials/VoucherServiceApi.credentials';
import { VoucherServiceWebhookApi } from '../../../credentials/VoucherServiceWebhookApi.credentials';
import { VoucherService } from '../../../nodes/VoucherService/VoucherService.node';
import { startSandbox } from '../../../sandbox/server.mts';
import type { Sandbox, SandboxOptions } from '../../../sandbox/server.mts';
import { runNode } from '../../../n8n-core-runner/runWorkflow.mts';

export const voucherNode = new VoucherService();

/**
 * The node as n8n 2.41's NodeTypes hands it out for a type name ending in "Tool" (an AI
 * agent's tool): the same implementation, its description renamed with the "Tool" suffix,
 * which is what the '@tool' display option looks at.
 */
export const voucherToolNode: INodeType = Object.create(voucherNode, {
	description: {
		value: { ...deepCopy(voucherNode.description), name: `${voucherNode.description.name}Tool` },
	},
});

/** A node run with a context that lacks addExecutionHints, as n8n before about 1.119 gave a tool. */
function withoutExecutionHints(nodeType: INodeType): INodeType {
	return Object.create(nodeType, {
		execute: {
			value(this: IExecuteFunctions) {
				const context = new Proxy(this, {
					get: (target, key) =>
						key === 'addExecutionHints' ? undefined : Reflect.get(target, key),
				});
				return nodeType.execute!.call(context);
			},
		},
	});
}

/**
 * The node type, with the name of every getNodeParameter call of its executions pushed to
 * `calls`: which parameters the node asks n8n for (each a possible expression evaluation), and
 * how often.
 */
export function withParameterReads(nodeType: INodeType, calls: string[]): INodeType {
	return Object.create(nodeType, {
		execute: {
			value(this: IExecuteFunctions) {
				const getNodeParameter = (name: string, ...rest: unknown[]) => {
					calls.push(name);
					return (this.getNodeParameter as (...args: unknown[]) => unknown)(name, ...rest);
				};
				const context = new Proxy(this, {
					get: (target, key) =>
						key === 'getNodeParameter' ? getNodeParameter : Reflect.get(target, key),
				});
				return nodeType.execute!.call(context);
			},
		},
	});
}

export interface CredentialOverrides {
	publicKey?: string;
	secretKey?: string;
	baseUrl?: string;
	maxOrderTotal?: number;
}

async function openSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	return await startSandbox({ processingDelayMs: 150, timeFactor: 0.0005, ...options });
}

/**
 * A sandbox for the calling test file: started at import, reset before each test (unless
 * the file wants its request log to accumulate), closed after the file.
 */
export async function sandboxForThisFile(
	options: SandboxOptions = {},
	{ resetBeforeEach = true } = {},
): Promise<Sandbox> {
	const sandbox = await openSandbox(options);
	afterAll(async () => await sandbox.close());
	if (resetBeforeEach) beforeEach(() => sandbox.reset());
	return sandbox;
}

/** Set as a canned answer's data to leave `data` out of the envelope. */
export const NO_DATA = Symbol('no data');

/**
 * A stand-in for answers the sandbox never gives (a list that is not a list, say): every
 * request is answered HTTP 200 with a success envelope whose `data` the test sets. Point a run
 * at it with `credential: { baseUrl: canned.url }`. Started at import, closed after the file.
 */
export async function cannedServiceForThisFile() {
	let data: unknown = NO_DATA;
	const requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }> = [];
	const server = createServer((request, response) => {
		requests.push({
			method: request.method ?? '',
			path: request.url ?? '',
			headers: request.headers,
		});
		request.resume();
		const envelope = { statusCode: '00', message: 'Successful' };
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(JSON.stringify(data === NO_DATA ? envelope : { ...envelope, data }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	});
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		/** Every request since the last answerWith, oldest first. */
		requests,
		/** From now on every request is answered with this data; the request log starts again. */
		answerWith(value: unknown) {
			data = value;
			requests.length = 0;
		},
	};
}

export function credentialFor(
	sandbox: Sandbox,
	overrides: CredentialOverrides = {},
): ICredentialDataDecryptedObject {
	return { baseUrl: sandbox.url, ...sandbox.keys, maxOrderTotal: 0, ...overrides };
}

export interface RunVoucherOptions {
	items?: IDataObject[];
	credential?: CredentialOverrides;
	continueOnFail?: boolean;
	onError?: INode['onError'];
	/** Run as an AI agent's tool (type name with the "Tool" suffix). */
	asTool?: boolean;
	/** Run with a context that has no addExecutionHints. */
	withoutExecutionHints?: boolean;
	/** Receives the name of every getNodeParameter call of the run (withParameterReads). */
	parameterReads?: string[];
}

/** Runs one VoucherService node with these parameters and returns its outputs. */
export async function runVoucher(
	sandbox: Sandbox,
	parameters: INodeParameters,
	options: RunVoucherOptions = {},
) {
	let nodeType = options.asTool ? voucherToolNode : voucherNode;
	if (options.withoutExecutionHints) nodeType = withoutExecutionHints(nodeType);
	if (options.parameterReads) nodeType = withParameterReads(nodeType, options.parameterReads);
	const result = await runNode({
		nodeType,
		credentialTypes: [new VoucherServiceApi()],
		credentials: { voucherServiceApi: credentialFor(sandbox, options.credential) },
		parameters,
		inputItems: options.items,
		continueOnFail: options.continueOnFail,
		onError: options.onError,
	});
	const main = result.items[0] ?? [];
	return { ...result, main, json: main.map((item) => item.json) };
}

/**
 * Webhook → Verify Signature over each delivery's text and signature (the input items' `body`
 * and `signature`), with only the webhook credential set; the output items' JSON.
 */
export async function runVerifySignature(
	secret: string,
	deliveries: Array<{ body: string; signature?: string }>,
	asTool = false,
) {
	const result = await runNode({
		nodeType: asTool ? voucherToolNode : voucherNode,
		credentialTypes: [new VoucherServiceWebhookApi()],
		credentials: { voucherServiceWebhookApi: { secret } },
		parameters: {
			resource: 'webhook',
			operation: 'verifySignature',
			rawBodySource: 'text',
			rawBodyText: '={{ $json.body }}',
			signature: '={{ $json.signature }}',
		},
		inputItems: deliveries.map(({ body, signature }) => ({ body, signature })),
	});
	if (result.error) throw result.error;
	return result.items[0].map((item) => item.json);
}

/** API requests the sandbox received (admin calls are not logged). */
export function apiRequests(sandbox: Sandbox, method?: string, pathPrefix = '/v2') {
	return sandbox.state.requests.filter(
		(entry) => entry.path.startsWith(pathPrefix) && (!method || entry.method === method),
	);
}

let referenceCounter = 0;
/** A reference no other test uses. */
export function uniqueReference(prefix = 'ref'): string {
	return `${prefix}-${process.pid}-${Date.now().toString(36)}-${++referenceCounter}`;
}

export const SECRET_KEY_MARKER = 'sk_test_sandbox';
