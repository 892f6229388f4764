import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { API_CREDENTIAL } from '../../voucherServiceApi/credentials';
import type { OrderOutput } from '../orderTypes';
import { GIVE_CODES_PARAMETER, runsAsAgentTool } from './agentTool';
import { COUPON_CODE_PARAMETER } from './fields';

/** Whether a raw parameter value holds an expression anywhere (n8n marks one with a leading '='). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object')
		return Object.values(value).some(holdsExpression);
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
			if (Object.prototype.hasOwnProperty.call(node.parameters, name) && !holdsExpression(raw))
				constants.set(name, value);
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

/** The raw fields every create reads, before validation; `additional` holds the rest. */
export function readOrderFields(parameters: ExecutionParameters, itemIndex: number) {
	const additional = parameters.get('additionalFields', itemIndex, {}) as IDataObject;
	return {
		additional,
		fields: {
			reference: parameters.get('reference', itemIndex),
			productCode: parameters.get('productCode', itemIndex),
			amount: parameters.get('amount', itemIndex),
			couponCode: additional[COUPON_CODE_PARAMETER],
		},
	};
}

/** How an item's order is output: its Output mode, and whether codes stay away from an AI agent. */
export function readOrderOutput(parameters: ExecutionParameters, itemIndex: number): OrderOutput {
	return {
		mode: parameters.get('outputMode', itemIndex, 'order') as OrderOutput['mode'],
		withholdCodes:
			runsAsAgentTool(parameters.node) &&
			parameters.get(GIVE_CODES_PARAMETER, itemIndex, false) !== true,
	};
}

/** The credential's spending limit as stored (checked per item with the options). Read once per run. */
export async function readCredentialLimit(context: IExecuteFunctions): Promise<unknown> {
	const credential = await context.getCredentials(API_CREDENTIAL);
	return credential.maxOrderTotal;
}
