/**
 * Serves the trigger over real HTTP the way n8n 2.41.1 does for a production webhook, so
 * the sandbox's signed deliveries reach `webhook()` as they would in n8n:
 * - the body parser keeps the exact bytes in `req.rawBody` and a parsed copy in `req.body`,
 *   at node version 1 always, at version 2 only for the content types n8n parses
 *   (webhook-helpers' parseRequestBody); otherwise the body is left for `req.readRawBody()`.
 *   A multipart body is consumed by n8n's form parser at either version;
 * - each request builds its own `Workflow` from the stored static data (LiveWebhooks);
 * - a delivery that starts an execution first goes through WorkflowRunner.run, which wraps
 *   the same static data object again (and so clears its change flag), then the
 *   execution reloads static data, runs the trigger's `execute()`, and stores static data
 *   if the execution changed it; finally LiveWebhooks stores the request's static data
 *   if it is still flagged as changed.
 * Static data lives as JSON, like the workflow row, so a "restart" is just a new host.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import {
	Workflow,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
	type IWebhookFunctions,
} from 'n8n-workflow';

export interface HostOptions {
	node: INodeType;
	/** undefined: no credential attached to the node. */
	secret: string | undefined;
	parameters?: IDataObject;
	/**
	 * The workflow row's static data and the node's processed_data row, shared between
	 * hosts to survive a "restart".
	 */
	db?: Database;
	/** How long the rest of the workflow runs: n8n saves static data only at the end. */
	workflowRunMs?: number;
	/**
	 * The rest of the workflow runs until this settles too: executions that overlap for
	 * certain, whatever the machine's speed (each loads static data as it starts).
	 */
	workflowRunsUntil?: Promise<void>;
	/**
	 * 'manual': the editor listening on the Test URL; n8n runs such requests in that mode.
	 * 'retry': a failed execution retried from the executions list (in n8n only execute()
	 * sees that mode).
	 */
	mode?: 'webhook' | 'manual' | 'retry';
	/** The trigger node's typeVersion in the workflow; 2 unless given. */
	typeVersion?: number;
	/** Replaces parts of what webhook() gets from n8n, e.g. a getCredentials that fails. */
	webhookContext?: Partial<Record<keyof IWebhookFunctions, unknown>>;
}

export interface Database {
	staticData: string | null;
	/** n8n's processed_data value for the trigger node: the recorded keys' hashes. */
	processed: string[] | null;
}

export interface WebhookHost {
	url: string;
	/** Items that left the trigger, one array per execution. */
	executions: IDataObject[][];
	answers: Array<{ status: number; body: string }>;
	/** What the node logged at warn level, message and metadata as one line each. */
	warnings: string[];
	db: Database;
	idle(): Promise<void>;
	close(): Promise<void>;
}

// Only the trigger's own code runs here, so no node type needs resolving.
export const nodeTypes = {
	getByName: () => undefined,
	getByNameAndVersion: () => undefined,
	getKnownTypes: () => ({}),
} as unknown as INodeTypes;
export const triggerNode: INode = {
	id: 'b2f0c7de-trigger',
	name: 'Voucher Service Trigger',
	type: 'n8n-nodes-voucher-service.voucherServiceTrigger',
	typeVersion: 2,
	position: [0, 0],
	parameters: {},
};

function parameterReader(node: INodeType, overrides: IDataObject) {
	const defaults = Object.fromEntries(
		node.description.properties.map((property) => [property.name, property.default]),
	);
	const parameters: IDataObject = { ...defaults, ...overrides };
	return (name: string, fallback?: unknown) => {
		const value = name
			.split('.')
			.reduce<unknown>((at, key) => (at as IDataObject)?.[key], parameters);
		if (value !== undefined) return value;
		if (fallback !== undefined) return fallback;
		throw new Error(`Could not get parameter "${name}"`);
	};
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/** What n8n 2.41.1 parses at a node version above 1; other bodies stay unread. */
function parsedAtVersion2(contentType: string): boolean {
	return (
		['application/json', 'text/plain', 'application/x-www-form-urlencoded'].some((type) =>
			contentType.startsWith(type),
		) ||
		contentType.endsWith('/xml') ||
		contentType.endsWith('+xml')
	);
}

/** n8n's body handling before webhook(): the request as the node gets it. */
async function n8nRequest(req: IncomingMessage, typeVersion: number) {
	const request = Object.assign(req, {
		rawBody: undefined as Buffer | undefined,
		body: {} as unknown,
		async readRawBody() {
			request.rawBody ??= await readBody(req);
		},
	});
	const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (contentType === 'multipart/form-data') {
		await readBody(req); // the form parser takes the stream and leaves no raw bytes
	} else if (typeVersion === 1 || parsedAtVersion2(contentType)) {
		await request.readRawBody();
		if (contentType === 'application/json') {
			try {
				request.body = JSON.parse(request.rawBody!.toString('utf8'));
			} catch {
				// n8n answers 422 itself; here the node judges the body, which tests its own check
			}
		}
	}
	return request;
}

/** The subset of express's Response that n8n hands to nodes and nodes use. */
function expressResponse(res: ServerResponse, answered: (status: number, body: string) => void) {
	const response = {
		status(code: number) {
			res.statusCode = code;
			return response;
		},
		send(body: string) {
			if (!res.writableEnded) {
				answered(res.statusCode, body);
				res.end(body);
			}
			return response;
		},
		json(body: unknown) {
			res.setHeader('content-type', 'application/json');
			return response.send(JSON.stringify(body));
		},
		end() {
			if (!res.writableEnded) response.send('');
			return response;
		},
	};
	return response;
}

export async function startWebhookHost(options: HostOptions): Promise<WebhookHost> {
	const db = options.db ?? { staticData: null, processed: null };
	const node: INode = {
		...triggerNode,
		typeVersion: options.typeVersion ?? triggerNode.typeVersion,
	};
	// Like n8n's DeduplicationHelper (entries mode): read the row, add, write it back, with
	// the database round trips in between where concurrent executions interleave.
	const checkProcessedAndRecord = async (keys: string[]) => {
		await sleep(1);
		const seen = [...(db.processed ?? [])];
		const fresh = keys.filter((key) => !seen.includes(key));
		await sleep(1);
		db.processed = [...seen, ...fresh];
		return { new: fresh, processed: keys.filter((key) => !fresh.includes(key)) };
	};
	const removeProcessed = async (keys: string[]) => {
		await sleep(1);
		const kept = (db.processed ?? []).filter((key) => !keys.includes(key));
		await sleep(1);
		db.processed = kept;
	};
	const getParameter = parameterReader(options.node, options.parameters ?? {});
	const executions: IDataObject[][] = [];
	const answers: WebhookHost['answers'] = [];
	const warnings: string[] = [];
	const ignore = () => undefined;
	const logger = {
		warn: (message: string, meta?: object) => warnings.push(`${message} ${JSON.stringify(meta)}`),
		error: ignore,
		info: ignore,
		debug: ignore,
	};
	const running = new Set<Promise<void>>();
	let executionCount = 0;
	const hostTag = randomUUID().slice(0, 8);

	const loadWorkflow = (staticData: IDataObject | null) =>
		new Workflow({
			id: 'wf-1',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: staticData ?? undefined,
		});
	const load = () => (db.staticData === null ? null : (JSON.parse(db.staticData) as IDataObject));
	const store = (workflow: Workflow) => {
		if (workflow.staticData.__dataChanged === true)
			db.staticData = JSON.stringify(workflow.staticData);
	};

	async function runExecution(items: INodeExecutionData[]): Promise<void> {
		// Unique across hosts, like n8n's execution ids in one database.
		const executionId = `${hostTag}-${++executionCount}`;
		const workflow = loadWorkflow(load());
		const context = {
			getInputData: () => items,
			getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
				getParameter(name, fallback),
			getWorkflowStaticData: (type: string) => workflow.getStaticData(type, node),
			getNode: () => node,
			getMode: () => options.mode ?? 'webhook',
			getExecutionId: () => executionId,
			helpers: { checkProcessedAndRecord, removeProcessed },
		} as unknown as IExecuteFunctions;
		const [output] = (await options.node.execute!.call(context)) as INodeExecutionData[][];
		executions.push(output.map((item) => item.json));
		await sleep(options.workflowRunMs ?? 100);
		await options.workflowRunsUntil;
		store(workflow);
	}

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const request = await n8nRequest(req, node.typeVersion);
		const response = expressResponse(res, (status, text) => answers.push({ status, body: text }));

		const staticData = load();
		const workflow = loadWorkflow(staticData);
		const context = {
			getRequestObject: () => request,
			getResponseObject: () => response,
			getHeaderData: () => req.headers,
			getBodyData: () => request.body,
			getNodeParameter: getParameter,
			getNode: () => node,
			getMode: () => options.mode ?? 'webhook',
			getWorkflow: () => ({ id: workflow.id, name: 'Vouchers', active: true }),
			getWorkflowStaticData: (type: string) => workflow.getStaticData(type, node),
			getCredentials: async (type: string) => {
				if (type !== 'voucherServiceWebhookApi' || options.secret === undefined) {
					throw new Error('Node does not have any credentials set');
				}
				return { secret: options.secret };
			},
			logger,
			helpers: {},
			...options.webhookContext,
		} as unknown as IWebhookFunctions;

		const result = await options.node.webhook!.call(context);
		if (result.workflowData) {
			loadWorkflow(staticData); // WorkflowRunner.run wraps the same object again
			const execution = runExecution(result.workflowData[0]);
			running.add(execution);
			void execution.finally(() => running.delete(execution));
			response.status(200).json({ message: 'Workflow was started' });
		} else if (!result.noWebhookResponse) {
			response.status(200).json(result.webhookResponse ?? { message: 'Webhook call received' });
		}
		store(workflow);
	}

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			answers.push({ status: 500, body: String(error) });
			if (!res.headersSent) res.writeHead(500).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}/webhook/voucher-service/webhook`,
		executions,
		answers,
		warnings,
		db,
		async idle() {
			await Promise.all([...running]);
		},
		async close() {
			await Promise.all([...running]);
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
