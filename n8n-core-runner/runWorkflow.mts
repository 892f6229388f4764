/**
 * Runs real n8n workflows in-process with n8n-core's own WorkflowExecute.
 *
 * Why: a hand-made IExecuteFunctions mock only proves what we imagined n8n
 * does. Here parameters, expressions, credentials, pairedItem, continueOnFail
 * and onError all go through n8n-core 2.41.1 and n8n-workflow 2.41.0, and
 * `httpRequestWithAuthentication` sends a real HTTP request (point it at a
 * local server). Modelled on n8n's own NodeTestHarness
 * (packages/core/nodes-testing), minus its nock/JSON-fixture layer.
 *
 * Requires the vitest alias in n8n-core-runner/singleN8nWorkflow.mts (see n8nRuntime.mts).
 */
import { ExecutionLifecycleHooks, LoadOptionsContext, WorkflowExecute } from 'n8n-core';
import {
	NodeConnectionTypes,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	type ExecutionBaseError,
	type IConnections,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IDataObject,
	type INode,
	type INodeCredentials,
	type INodeExecutionData,
	type INodeParameters,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IVersionedNodeType,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { TestCredentialsHelper } from './credentialsHelper.mts';
import {
	FeederItems,
	FeederManualTrigger,
	ITEMS_NODE_TYPE,
	START_NODE_TYPE,
} from './feederNodes.mts';
import { PACKAGE_NAME, ensureN8nRuntime } from './n8nRuntime.mts';

export { disposeN8nRuntime, activeExpressionEngine } from './n8nRuntime.mts';

type AnyNodeType = INodeType | IVersionedNodeType;

/** The type name n8n registers a node of this package under: '<package>.<description.name>'. */
export function packageNodeTypeName(nodeType: AnyNodeType): string {
	return `${PACKAGE_NAME}.${nodeType.description.name}`;
}

export interface RunWorkflowOptions {
	/** Node types by the type name used in `nodes[].type`. Feeder types are added for you. */
	nodeTypes: Record<string, AnyNodeType>;
	credentialTypes?: ICredentialType[];
	/** Decrypted credential data by credential type name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	nodes: INode[];
	connections: IConnections;
	/** Name of the node to start from; defaults to the first feeder Start node. */
	startNodeName?: string;
	mode?: WorkflowExecuteMode;
}

export interface WorkflowResult {
	run: IRun;
	/**
	 * The execution's error if it failed. As in n8n, this is a plain copy of the
	 * thrown error (own fields plus message/stack), so assert on `name`,
	 * `message`, `description`, `httpCode`, not with instanceof.
	 */
	error?: ExecutionBaseError;
	/** Node names in the order WorkflowExecute finished them. */
	executedNodes: string[];
	/** Credential data after the run (preAuthentication may have refreshed tokens). */
	credentialsAfter: Record<string, ICredentialDataDecryptedObject>;
	/** Items one output of a node produced; [] if that output got nothing. */
	outputOf(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
}

const FEEDER_NODE_TYPES: Record<string, AnyNodeType> = {
	[START_NODE_TYPE]: new FeederManualTrigger(),
	[ITEMS_NODE_TYPE]: new FeederItems(),
};

/** The INodeTypes registry WorkflowExecute asks for node implementations. */
class TestNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, AnyNodeType>) {}

	getByName(name: string): AnyNodeType {
		const type = this.types[name];
		if (!type) throw new UnexpectedError(`Unknown node type "${name}" (pass it in nodeTypes)`);
		return type;
	}

	getByNameAndVersion(name: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(name), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** The version the editor puts on a freshly added node. */
function defaultVersionOf(nodeType: AnyNodeType): number {
	if ('nodeVersions' in nodeType) return nodeType.currentVersion;
	const { version, defaultVersion } = nodeType.description;
	return defaultVersion ?? (Array.isArray(version) ? Math.max(...version) : version);
}

let nodeIdCounter = 0;
/** An INode as the editor saves it (typeVersion 1 unless given in `extra`). */
export function workflowNode(
	name: string,
	type: string,
	parameters: INodeParameters = {},
	extra: Partial<INode> = {},
): INode {
	return {
		id: `test-node-${++nodeIdCounter}`,
		name,
		type,
		typeVersion: 1,
		position: [nodeIdCounter * 200, 0],
		parameters,
		...extra,
	};
}

/** The feeder Manual Trigger, to start a workflow from. */
export function startNode(name = 'Start'): INode {
	return workflowNode(name, START_NODE_TYPE);
}

/** A node emitting `items` as its output (each paired with the Start item). */
export function itemsNode(items: IDataObject[], name = 'Items'): INode {
	return workflowNode(name, ITEMS_NODE_TYPE, { items: JSON.stringify(items) });
}

/** Connects nodes in a straight line, main output 0 to main input 0. */
export function chain(...names: string[]): IConnections {
	const connections: IConnections = {};
	for (let i = 0; i < names.length - 1; i++) {
		connections[names[i]] = {
			[NodeConnectionTypes.Main]: [
				[{ node: names[i + 1], type: NodeConnectionTypes.Main, index: 0 }],
			],
		};
	}
	return connections;
}

/** Node credentials referencing each credential type, as a saved workflow would. */
export function nodeCredentialsFor(types: string[]): INodeCredentials {
	return Object.fromEntries(
		types.map((type) => [type, { id: `test-${type}`, name: `Test ${type}` }]),
	);
}

/**
 * The fields of IWorkflowExecuteAdditionalData that n8n-core reads during a
 * plain node run. The CLI fills these from the DB, config and task runners;
 * features needing those (sub-workflows, Code-node runners) fail loudly here.
 */
function additionalDataFor(
	credentialsHelper: TestCredentialsHelper,
	hooks?: ExecutionLifecycleHooks,
	executionId?: string,
): IWorkflowExecuteAdditionalData {
	const unsupported = (what: string) => async () => {
		throw new UnexpectedError(`${what} is not supported by runWorkflow`);
	};
	const base = 'http://localhost:5678/';
	return {
		credentialsHelper,
		hooks,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}form`,
		formWaitingBaseUrl: `${base}form-waiting`,
		formTestBaseUrl: `${base}form-test`,
		webhookBaseUrl: `${base}webhook`,
		webhookWaitingBaseUrl: `${base}webhook-waiting`,
		webhookTestBaseUrl: `${base}webhook-test`,
		mcpBaseUrl: `${base}mcp`,
		mcpTestBaseUrl: `${base}mcp-test`,
		variables: {},
		userId: 'test-user',
		logAiEvent: () => {},
		executeWorkflow: unsupported('Executing sub-workflows'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: unsupported('Task runners (Code node)'),
	} as unknown as IWorkflowExecuteAdditionalData;
}

let executionCounter = 0;

/** Executes a workflow the way "Execute workflow" does in the editor (manual mode). */
export async function runWorkflow(opts: RunWorkflowOptions): Promise<WorkflowResult> {
	await ensureN8nRuntime();
	const mode = opts.mode ?? 'manual';
	const nodeTypes = new TestNodeTypes({ ...FEEDER_NODE_TYPES, ...opts.nodeTypes });
	const credentialsHelper = new TestCredentialsHelper(
		opts.credentialTypes ?? [],
		opts.credentials ?? {},
	);
	const executionId = `test-execution-${++executionCounter}`;

	const workflowData = {
		id: 'test-workflow',
		name: 'Test workflow',
		active: false,
		isArchived: false,
		nodes: opts.nodes,
		connections: opts.connections,
		// 'v1' is the execution order of every workflow created since n8n 1.0.
		settings: { executionOrder: 'v1' },
		createdAt: new Date(),
		updatedAt: new Date(),
	} as IWorkflowBase;
	const workflow = new Workflow({ ...workflowData, nodeTypes });

	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	const executedNodes: string[] = [];
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		executedNodes.push(nodeName);
	});

	const startName = opts.startNodeName ?? opts.nodes.find((n) => n.type === START_NODE_TYPE)?.name;
	const start = startName ? workflow.getNode(startName) : undefined;
	if (!start) throw new UnexpectedError('No start node: add startNode() or pass startNodeName');

	const additionalData = additionalDataFor(credentialsHelper, hooks, executionId);
	const run = await new WorkflowExecute(additionalData, mode).run({ workflow, startNode: start });

	const { runData, error } = run.data.resultData;
	return {
		run,
		error,
		executedNodes,
		credentialsAfter: credentialsHelper.stored,
		outputOf(nodeName, outputIndex = 0, runIndex = 0) {
			const task = runData[nodeName]?.[runIndex];
			if (!task) throw new UnexpectedError(`Node "${nodeName}" did not run (run ${runIndex})`);
			return task.data?.[NodeConnectionTypes.Main]?.[outputIndex] ?? [];
		},
	};
}

export interface RunNodeOptions {
	nodeType: AnyNodeType;
	/** Type name in the workflow; defaults to packageNodeTypeName(nodeType), as n8n names it. */
	typeName?: string;
	typeVersion?: number;
	credentialTypes?: ICredentialType[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	parameters: INodeParameters;
	/** JSON of the items fed into the node; default one empty item, like a Manual Trigger. */
	inputItems?: IDataObject[];
	continueOnFail?: boolean;
	onError?: INode['onError'];
	alwaysOutputData?: boolean;
	/** Node name in the workflow (expressions like $('Items') see the other names). */
	name?: string;
}

export interface NodeResult {
	/** The node's output items, one array per output (error output last, if any). */
	items: INodeExecutionData[][];
	/** The execution's error when the node failed and did not continue. */
	error?: ExecutionBaseError;
	run: IRun;
	workflow: WorkflowResult;
}

/** Runs Start → Items(inputItems) → the node under test, and returns that node's outputs. */
export async function runNode(opts: RunNodeOptions): Promise<NodeResult> {
	const name = opts.name ?? 'Node under test';
	const typeName = opts.typeName ?? packageNodeTypeName(opts.nodeType);
	const nodeUnderTest = workflowNode(name, typeName, opts.parameters, {
		typeVersion: opts.typeVersion ?? defaultVersionOf(opts.nodeType),
		credentials: nodeCredentialsFor(Object.keys(opts.credentials ?? {})),
		...(opts.continueOnFail !== undefined && { continueOnFail: opts.continueOnFail }),
		...(opts.onError !== undefined && { onError: opts.onError }),
		...(opts.alwaysOutputData !== undefined && { alwaysOutputData: opts.alwaysOutputData }),
	});
	const start = startNode();
	const items = itemsNode(opts.inputItems ?? [{}]);

	const result = await runWorkflow({
		nodeTypes: { [typeName]: opts.nodeType },
		credentialTypes: opts.credentialTypes,
		credentials: opts.credentials,
		nodes: [start, items, nodeUnderTest],
		connections: chain(start.name, items.name, name),
	});
	const task = result.run.data.resultData.runData[name]?.[0];
	return {
		items: task?.data?.[NodeConnectionTypes.Main]?.map((output) => output ?? []) ?? [],
		error: result.error,
		run: result.run,
		workflow: result,
	};
}

export interface NodeMethodOptions {
	nodeType: AnyNodeType;
	typeName?: string;
	typeVersion?: number;
	credentialTypes?: ICredentialType[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** The node's current parameters as the editor would send them. */
	parameters?: INodeParameters;
	/** Parameter path the editor asks for, e.g. 'parameters.walletId'. */
	path?: string;
}

/**
 * Does what n8n CLI 2.41.1's DynamicNodeParametersService does for the
 * editor's dropdowns: a one-node workflow ('Temp-Node'), a LoadOptionsContext,
 * and the method called while the workflow holds an expression isolate.
 */
async function callNodeMethod<T>(
	opts: NodeMethodOptions,
	call: (context: LoadOptionsContext, type: INodeType) => Promise<T>,
): Promise<T> {
	await ensureN8nRuntime();
	const typeName = opts.typeName ?? packageNodeTypeName(opts.nodeType);
	const typeVersion = opts.typeVersion ?? defaultVersionOf(opts.nodeType);
	const nodeTypes = new TestNodeTypes({ [typeName]: opts.nodeType });
	const parameters = opts.parameters ?? {};
	const tempNode = workflowNode('Temp-Node', typeName, parameters, {
		typeVersion,
		credentials: nodeCredentialsFor(Object.keys(opts.credentials ?? {})),
	});
	const workflow = new Workflow({ nodes: [tempNode], connections: {}, active: false, nodeTypes });
	const additionalData = additionalDataFor(
		new TestCredentialsHelper(opts.credentialTypes ?? [], opts.credentials ?? {}),
	);
	additionalData.currentNodeParameters = parameters;
	const context = new LoadOptionsContext(
		workflow,
		workflow.nodes['Temp-Node'],
		additionalData,
		opts.path ?? '',
	);
	const type = nodeTypes.getByNameAndVersion(typeName, typeVersion);
	return await workflow.expression.withIsolate(async () => await call(context, type));
}

/** Calls `methods.loadOptions[methodName]` with n8n-core's real ILoadOptionsFunctions. */
export async function runLoadOptions(
	opts: NodeMethodOptions & { methodName: string },
): Promise<INodePropertyOptions[]> {
	return await callNodeMethod(opts, async (context, type) => {
		const method = type.methods?.loadOptions?.[opts.methodName];
		if (typeof method !== 'function')
			throw new UnexpectedError(`No loadOptions method "${opts.methodName}"`);
		return await method.call(context);
	});
}
