/**
 * One execution of the VoucherService node, from its router down, with a light stand-in for
 * n8n's IExecuteFunctions: the simulator runs hundreds of thousands of them, and n8n-core's
 * WorkflowExecute costs about 160 ms per execution here and its HTTP helper about 16 ms per
 * request (measured; issue 39), where this costs a few milliseconds for a whole campaign.
 *
 * What stands in for n8n, and how closely:
 * - parameters: the node's defaults filled by n8n-workflow's own NodeHelpers.getNodeParameters;
 *   an expression may only be a field reference `={{ $json.x }}` (the node reads those itself);
 * - HTTP: real requests on loopback with the credential type's own `authenticate`, answered as
 *   n8n's axios helper answers them (a body that parses as JSON is parsed, any status returned,
 *   socket errors thrown with their code);
 * - continueOnFail, getInputData, getNode, getCredentials, addExecutionHints.
 *
 * Every request is logged with the execution's id, and tells it to the sandbox (`x-sandbox-client`),
 * whose log then says which execution's create made each order. An execution can be killed, as a process
 * dying: its `kill.after`-th request reaches the service and its answer is lost, nothing after
 * it is sent, and the execution ends there once the requests already sent are answered (what
 * the dead process would still have done is never run). A runaway execution (one that looks
 * up more than `maxOrderReads` orders, or sends MAX_REQUESTS requests) is cut off the same way,
 * so a node without a bound on its reads still ends.
 */
import { request as httpRequest, Agent } from 'node:http';

import { NodeApiError, NodeHelpers } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	NodeExecutionHint,
} from 'n8n-workflow';

import { VoucherServiceApi } from '../../credentials/VoucherServiceApi.credentials';
import { VoucherService } from '../../nodes/VoucherService/VoucherService.node';

const nodeType = new VoucherService();
const credentialType = new VoucherServiceApi();
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One request as the execution sent it, and what came back (status null: no answer). */
export interface SentRequest {
	execution: string;
	method: string;
	path: string;
	body: IDataObject | undefined;
	status: number | null;
	answer: unknown;
	/** Sent after the execution died (never reached the service). */
	unsent: boolean;
}

export interface ExecutionSpec {
	id: string;
	parameters: INodeParameters;
	items: IDataObject[];
	credential: ICredentialDataDecryptedObject;
	continueOnFail: boolean;
	/** The process dies right after sending its `after`-th request. */
	kill?: { after: number };
	/** Distinct orders looked up after which the execution counts as a runaway and is cut off. */
	maxOrderReads: number;
}

export interface ExecutionResult {
	output?: INodeExecutionData[];
	error?: Error;
	hints: NodeExecutionHint[];
	requests: SentRequest[];
	killed: boolean;
	runaway: boolean;
}

/*
 * Executions at once in one n8n process share their pace (sharedPaces.ts), and so do the
 * simulator's, as one process. A killed execution stands for a process that dies: its pace dies
 * with it, where here its requests would stay unanswered in the one the others pace by, holding
 * them for a minute at each turn. So it paces alone, on a spelling of the base URL of its own
 * ("/." segments, which the URL drops) that keys a pace of its own.
 */
let alone = 0;
/** Spellings come round again after this many, each then long idle (see sharedPaces.IDLE_MS). */
const SPELLINGS = 1_000;
const aloneOn = (credential: ICredentialDataDecryptedObject) => {
	alone = (alone % SPELLINGS) + 1;
	return { ...credential, baseUrl: `${String(credential.baseUrl)}${'/.'.repeat(alone)}` };
};

/** Requests after which any execution is cut off: far above what a generated campaign needs. */
const MAX_REQUESTS = 100_000;

const ORDER_LOOKUP = /^\/v2\/orders\/(?!templates$)[^/]+$/;

const FIELD = /^=\{\{\s*\$json\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

function resolve(value: unknown, item: IDataObject): unknown {
	if (typeof value === 'string' && value.startsWith('=')) {
		const field = FIELD.exec(value);
		if (!field) throw new Error(`the simulator's context reads only $json fields, not ${value}`);
		return item[field[1]];
	}
	if (Array.isArray(value)) return value.map((v) => resolve(v, item));
	if (value !== null && typeof value === 'object')
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, item)]));
	return value;
}

function parameterAt(parameters: INodeParameters, name: string): unknown {
	return name.split('.').reduce<unknown>((value, key) => (value as IDataObject)?.[key], parameters);
}

/** The answer's body as n8n's axios helper gives it: parsed when it is JSON, else the text. */
function bodyOf(text: string, encoding: unknown): unknown {
	if (encoding === 'arraybuffer') return Buffer.from(text);
	if ((encoding !== undefined && encoding !== 'json') || text === '') return text;
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

function send(
	options: IHttpRequestOptions,
	headers: Record<string, string>,
): Promise<{ statusCode: number; headers: IDataObject; body: unknown }> {
	const body =
		options.body === undefined || options.method === 'GET'
			? undefined
			: JSON.stringify(options.body);
	return new Promise((resolveAnswer, reject) => {
		const req = httpRequest(
			options.url,
			{
				method: options.method ?? 'GET',
				agent,
				headers: {
					accept: 'application/json',
					'user-agent': 'n8n',
					...(body === undefined ? {} : { 'content-type': 'application/json' }),
					...headers,
				},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('end', () =>
					resolveAnswer({
						statusCode: res.statusCode ?? 0,
						headers: res.headers as IDataObject,
						body: bodyOf(Buffer.concat(chunks).toString('utf8'), options.encoding),
					}),
				);
				res.on('error', reject);
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

/** Runs the node once over `spec.items`; never throws (the node's own error is returned). */
export async function runExecution(spec: ExecutionSpec): Promise<ExecutionResult> {
	const node: INode = {
		id: spec.id,
		name: 'Voucher Service',
		type: 'n8n-nodes-voucher-service.voucherService',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { voucherServiceApi: { id: 'sim', name: 'Simulator' } },
		continueOnFail: spec.continueOnFail,
	};
	node.parameters = NodeHelpers.getNodeParameters(
		nodeType.description.properties,
		spec.parameters,
		true,
		false,
		node,
		nodeType.description,
	) as INodeParameters;
	const items: INodeExecutionData[] = spec.items.map((json) => ({ json }));
	const result: ExecutionResult = { hints: [], requests: [], killed: false, runaway: false };
	let sent = 0;
	let inFlight = 0;
	const lookedUp = new Set<string>();
	let stop = () => {};
	const stopped = new Promise<void>((resolveStop) => (stop = resolveStop));
	const stopWhenQuiet = () => {
		if ((result.killed || result.runaway) && inFlight === 0) stop();
	};
	/** A request the dead process never sends: it never ends either. */
	const never = () => new Promise<never>(() => {});

	async function httpRequestWithAuthentication(
		_type: string,
		options: IHttpRequestOptions,
	): Promise<unknown> {
		const authed = await credentialType.authenticate(spec.credential, options);
		const { username, password } = authed.auth as { username: string; password: string };
		const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
		const path = new URL(options.url).pathname;
		const entry: SentRequest = {
			execution: spec.id,
			method: options.method ?? 'GET',
			path,
			body: options.body as IDataObject | undefined,
			status: null,
			answer: undefined,
			unsent: result.killed || result.runaway,
		};
		result.requests.push(entry);
		if (entry.unsent) return await never();
		sent++;
		if (entry.method === 'GET' && ORDER_LOOKUP.test(path)) lookedUp.add(path);
		if (sent > MAX_REQUESTS || lookedUp.size > spec.maxOrderReads) {
			result.runaway = true;
			entry.unsent = true;
			stopWhenQuiet();
			return await never();
		}
		// Dying right after this request is sent: whatever the execution starts next is never sent.
		const dies = spec.kill !== undefined && sent >= spec.kill.after;
		if (dies) result.killed = true;
		let answer;
		inFlight++;
		try {
			answer = await send(options, { authorization, 'x-sandbox-client': spec.id });
		} catch (error) {
			throw new NodeApiError(node, error as never);
		} finally {
			inFlight--;
			stopWhenQuiet();
		}
		if (result.killed) return await never();
		entry.status = answer.statusCode;
		entry.answer = answer.body;
		return answer;
	}

	const context = {
		getInputData: () => items,
		getNode: () => node,
		continueOnFail: () => spec.continueOnFail,
		getCredentials: async () => (spec.kill ? aloneOn(spec.credential) : spec.credential),
		addExecutionHints: (...hints: NodeExecutionHint[]) => result.hints.push(...hints),
		getNodeParameter(name: string, itemIndex: number, fallback?: unknown) {
			const raw = parameterAt(node.parameters, name);
			if (raw === undefined) return fallback;
			return resolve(raw, items[itemIndex]?.json ?? {});
		},
		helpers: { httpRequestWithAuthentication },
	} as unknown as IExecuteFunctions;

	const executed = (async () => {
		try {
			const [main] = await nodeType.execute!.call(context);
			result.output = main;
		} catch (error) {
			result.error = error as Error;
		}
	})();
	await Promise.race([executed, stopped]);
	return result;
}
