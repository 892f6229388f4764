import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INode,
	INodePropertyOptions,
	NodeExecutionHint,
	NodeOperationError,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { VoucherApiClient } from '../transport/client';
import { asNodeError, operationError } from '../transport/errors';
import { mapWithConcurrency, readConcurrency } from '../shared/concurrency';
import { errorItem } from './errorItem';
import { concurrencyOption } from './fields';
import { executionParameters } from '../shared/parameters';
import { runsAsAgentTool } from '../shared/agentTool';
import * as country from './country';
import * as order from './order';
import * as template from './template';
import * as service from './service';
import type { ItemOutcome, ItemPlan, RunSettings } from '../plan';
import type { VoucherOperation } from './operation';
import * as voucher from './voucher';
import * as wallet from './wallet';
import * as webhook from './webhook';

const resources: Record<
	string,
	{ operations: Record<string, VoucherOperation>; operationField: INodeProperties }
> = { order, voucher, wallet, country, template, webhook, service };

export const resourceField: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	default: 'order',
	options: [
		{ name: 'Country', value: 'country' },
		{ name: 'Order', value: 'order' },
		{ name: 'Service', value: 'service' },
		{ name: 'Template', value: 'template' },
		{ name: 'Voucher', value: 'voucher' },
		{ name: 'Wallet', value: 'wallet' },
		{ name: 'Webhook', value: 'webhook' },
	],
};

export const operationProperties: INodeProperties[] = Object.values(resources).flatMap(
	({ operationField, operations }) => [
		operationField,
		...Object.values(operations).flatMap((operation) => operation.description),
	],
);

/**
 * The canvas subtitle: the chosen operation's action, e.g. "Create an order for recipients",
 * from the same options the Operation dropdown shows.
 */
const actionsByOperation = Object.fromEntries(
	Object.entries(resources).flatMap(([resource, { operationField }]) =>
		(operationField.options ?? []).map((option) => [
			`${resource}:${String((option as INodePropertyOptions).value)}`,
			(option as INodePropertyOptions).action ?? (option as INodePropertyOptions).name,
		]),
	),
);

export const subtitle = `={{ ${JSON.stringify(actionsByOperation)}[$parameter["resource"] + ":" + $parameter["operation"]] }}`;

/** Every input item its own job: the plan of an operation that works item by item. */
function itemByItem(
	context: IExecuteFunctions,
	client: VoucherApiClient,
	operation: VoucherOperation,
): ItemPlan {
	const execute = operation.execute!;
	return {
		settled: [],
		jobs: context.getInputData().map((_, itemIndex) => ({
			itemIndexes: [itemIndex],
			run: async () => [{ itemIndex, json: await execute.call(context, client, itemIndex) }],
		})),
	};
}

/**
 * The one place where outcomes become output: successes paired to their item, failures
 * thrown, or with continueOnFail turned into error items (also paired).
 */
function outputOf(node: INode, run: RunSettings, outcome: ItemOutcome): INodeExecutionData[] {
	const { itemIndex } = outcome;
	if (!('error' in outcome)) {
		return outcome.json.map((json) => ({ json, pairedItem: { item: itemIndex } }));
	}
	if (!run.continueOnFail) throw thrownError(node, outcome.error, itemIndex);
	return [errorItem(node, outcome.error, itemIndex)];
}

/*
 * n8n wraps what a tool throws in a new NodeOperationError unless it already is one, and that
 * wrapping replaces a message holding a Node.js error code (a Reference "preexisting-1")
 * with its own words. So a tool throws its API errors as NodeOperationErrors with our words.
 */
function thrownError(
	node: INode,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	const nodeError = asNodeError(node, error);
	if (!(nodeError instanceof NodeApiError) || !runsAsAgentTool(node)) return nodeError;
	return operationError(node, nodeError.message, {
		itemIndex,
		description: nodeError.description ?? undefined,
	});
}

/** Hints above the output; n8n before 1.79, and before about 1.119 for an AI tool, has no way to show them. */
function showHints(context: IExecuteFunctions, hints: NodeExecutionHint[] | undefined): void {
	if (!hints?.length || typeof context.addExecutionHints !== 'function') return;
	context.addExecutionHints(...hints);
}

/** The operation the node is set to; a saved workflow can name one this version lacks. */
function chosenOperation(this: IExecuteFunctions): VoucherOperation {
	const has = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key);
	const resource = this.getNodeParameter('resource', 0) as string;
	if (!has(resources, resource))
		throw operationError(this.getNode(), `The resource "${resource}" is not supported`);
	const { operations } = resources[resource];
	const operation = this.getNodeParameter('operation', 0) as string;
	if (!has(operations, operation))
		throw operationError(
			this.getNode(),
			`The operation "${operation}" is not supported for the resource "${resource}"`,
		);
	return operations[operation];
}

/** Runs the chosen operation's plan: output paired and in input order, with bounded concurrency. */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (items.length === 0) return [[]];
	const operation = chosenOperation.call(this);

	// Workers take jobs up to the user's maximum; the client's pacing decides how many of
	// their requests are really in flight.
	const { node } = executionParameters(this);
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const run: RunSettings = {
		concurrency: readConcurrency(node, concurrencyOption.displayName, options.concurrency),
		continueOnFail: this.continueOnFail(),
	};
	const client = new VoucherApiClient(this, run.concurrency);
	const leavePacing = client.sharePacing();
	try {
		return await runPlan.call(this, operation, client, run, { items, node });
	} finally {
		leavePacing();
	}
}

async function runPlan(
	this: IExecuteFunctions,
	operation: VoucherOperation,
	client: VoucherApiClient,
	run: RunSettings,
	{ items, node }: { items: INodeExecutionData[]; node: INode },
): Promise<INodeExecutionData[][]> {
	const plan = operation.plan
		? await operation.plan.call(this, client, run)
		: itemByItem(this, client, operation);
	showHints(this, plan.hints);

	const output = items.map((): INodeExecutionData[] => []);
	const outcomes: ItemOutcome[] = [];
	const settle = (outcome: ItemOutcome) => {
		outcomes.push(outcome);
		output[outcome.itemIndex].push(...outputOf(node, run, outcome));
	};
	plan.settled.forEach(settle);
	await mapWithConcurrency(plan.jobs.length, run.concurrency, async (index) => {
		const job = plan.jobs[index];
		let outcomes: ItemOutcome[];
		try {
			outcomes = await job.run();
		} catch (error) {
			outcomes = job.itemIndexes.map((itemIndex) => ({ itemIndex, error }));
		}
		outcomes.forEach(settle);
	});
	if (plan.summarize) showHints(this, [plan.summarize(outcomes)]);
	return [output.flat()];
}
