import type { IExecuteFunctions, INode } from 'n8n-workflow';

/** Whether a raw parameter value holds an expression anywhere (n8n marks one with a leading '='). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/** What one node execution reads once instead of per item. */
export interface ExecutionParameters {
	/** The node, taken once: n8n-core deep-copies it on every getNode(). */
	readonly node: INode;
	/**
	 * getNodeParameter, except that a parameter set without any expression, which has the same
	 * value for every item, is read once. That value is shared by all items: never change it.
	 */
	get(name: string, itemIndex: number, fallback?: unknown): unknown;
}

const perExecution = new WeakMap<IExecuteFunctions, ExecutionParameters>();

function readOnce(context: IExecuteFunctions): ExecutionParameters {
	const node = context.getNode();
	const constants = new Map<string, unknown>();
	return {
		node,
		get(name, itemIndex, fallback) {
			if (constants.has(name)) return constants.get(name);
			const value = context.getNodeParameter(name, itemIndex, fallback);
			// Only a parameter that is set: an absent one is the fallback, which may differ per call.
			const raw = node.parameters[name];
			if (Object.prototype.hasOwnProperty.call(node.parameters, name) && !holdsExpression(raw)) constants.set(name, value);
			return value;
		},
	};
}

/** The parameters of this execution: one per execute() call (n8n makes a new context for each). */
export function executionParameters(context: IExecuteFunctions): ExecutionParameters {
	let parameters = perExecution.get(context);
	if (!parameters) {
		parameters = readOnce(context);
		perExecution.set(context, parameters);
	}
	return parameters;
}
