import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { API_CREDENTIAL } from '../../serviceProtocol/credentials';
import { runsAsAgentTool } from './agentTool';
import { COUPON_JSON_KEY } from './validation';

/** Whether a raw parameter value holds an expression anywhere (n8n marks one with a leading '='). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object')
		return Object.values(value).some(holdsExpression);
	return false;
}

/*
 * The field-reference fast path. n8n 2.x evaluates every expression in an isolate (its default
 * `vm` engine), which costs more per expression and item than all the rest of our per-item work
 * (bench/RESULTS.md). Most mapped fields are only `={{ $json.field }}`, whose value n8n takes straight
 * from the input item, so those are read from the item here, with the value n8n's getNodeParameter
 * would give (test/nodes/VoucherService/shared/parameters.test.mts runs both ways through n8n-core
 * under both engines and compares). Whatever is not certain to give that same value goes to
 * getNodeParameter as before: any other expression, and any value or path below that the engines
 * treat in their own way.
 */

/**
 * `={{ $json.a }}`, `={{ $json["a b"] }}`, `={{ $json['a'] }}` and chains of those, with spaces or
 * tabs inside the braces and nothing outside them. Identifiers are ASCII without `$`; a quoted key
 * holds no backslash (no escapes to decode), no brace (n8n splits templates at `{{` and `}}`) and
 * no line break (which ends a string literal).
 */
const FIELD_REFERENCE =
	/^=\{\{[ \t]*\$json((?:\.[A-Za-z_][A-Za-z0-9_]*|\["[^"\\{}\r\n\u2028\u2029]*"\]|\['[^'\\{}\r\n\u2028\u2029]*'\])+)[ \t]*\}\}$/;
const PATH_STEP = /\.([A-Za-z_][A-Za-z0-9_]*)|\["([^"]*)"\]|\['([^']*)'\]/g;
/** n8n refuses any expression text this matches, even inside a quoted key. */
const CONSTRUCTOR_ACCESS = /\.\s*constructor/;

/*
 * The names n8n 2.41's expression sandbox refuses (n8n-workflow's isSafeObjectProperty). Kept
 * here because n8n-workflow 1.83, in n8n 1.85, does not export that function: importing it
 * would break every read there. A name on this list always goes to getNodeParameter.
 */
const UNSAFE_NAMES = new Set([
	'__proto__',
	'prototype',
	'constructor',
	'getPrototypeOf',
	'setPrototypeOf',
	'getOwnPropertyDescriptor',
	'getOwnPropertyDescriptors',
	'defineProperty',
	'defineProperties',
	'mainModule',
	'binding',
	'_linkedBinding',
	'_load',
	'prepareStackTrace',
	'__lookupGetter__',
	'__lookupSetter__',
	'__defineGetter__',
	'__defineSetter__',
	'caller',
	'callee',
	'arguments',
	'getBuiltinModule',
	'dlopen',
	'execve',
	'loadEnvFile',
]);

/** The keys of a field reference, or undefined for any other parameter value. */
function fieldPathOf(raw: unknown): string[] | undefined {
	if (typeof raw !== 'string') return undefined;
	const match = FIELD_REFERENCE.exec(raw);
	if (!match || CONSTRUCTOR_ACCESS.test(raw)) return undefined;
	const path = Array.from(match[1].matchAll(PATH_STEP), (step) => step[1] ?? step[2] ?? step[3]);
	// n8n refuses its unsafe names (`__proto__`, `caller`...). A name an object inherits
	// (`toString`, `hasOwnProperty`...) is a function to the vm engine even when the item has its
	// own field of that name, and the legacy engine reads the item's: neither is a plain read.
	const plain = path.every((key) => !UNSAFE_NAMES.has(key) && !(key in Object.prototype));
	return plain ? path : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (value === null || typeof value !== 'object') return false;
	const prototype: unknown = Object.getPrototypeOf(value);
	return prototype === Object.prototype || prototype === null;
}

/**
 * Whether both engines give this value as it is: any primitive (-0, NaN and ±Infinity
 * included). The vm engine returns a copy of an object, array or date (and n8n then turns luxon
 * DateTimes inside it into strings) and undefined for a function.
 */
function isPassedAsIs(value: unknown): boolean {
	if (value === null) return true;
	const type = typeof value;
	return type !== 'object' && type !== 'function' && type !== 'symbol';
}

const NOT_READ = Symbol('not read');

/**
 * The value at `path` in the item's JSON, as n8n would give it, or NOT_READ. A missing last key
 * is `undefined` in n8n too. A step through anything but a plain object (missing, null, a string,
 * an array, a class instance) is left to n8n: those have properties of their own (`length`), and
 * the vm engine reads them through its own proxies.
 */
function readPath(json: unknown, path: readonly string[]): unknown {
	let value = json;
	for (const key of path) {
		if (!isPlainObject(value)) return NOT_READ;
		value = Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
	}
	return isPassedAsIs(value) ? value : NOT_READ;
}

/** What one node execution reads once instead of per item. */
export interface ExecutionParameters {
	/** The node, taken once: n8n-core deep-copies it on every getNode(). */
	readonly node: INode;
	/**
	 * getNodeParameter, except that a parameter set without any expression, which has the same
	 * value for every item, is read once, and that a top-level parameter that is only a reference
	 * to a field of the input item (`={{ $json.field }}`) is read from the item, with the value
	 * n8n would give. A value read once is shared by all items: never change it.
	 */
	get(name: string, itemIndex: number, fallback?: unknown): unknown;
}

const perExecution = new WeakMap<IExecuteFunctions, ExecutionParameters>();

function readOnce(context: IExecuteFunctions): ExecutionParameters {
	const node = context.getNode();
	const constants = new Map<string, unknown>();
	const fieldPaths = new Map<string, string[] | undefined>();
	const fieldPath = (name: string) => {
		if (!fieldPaths.has(name)) {
			const own = Object.prototype.hasOwnProperty.call(node.parameters, name);
			// As an AI agent's tool, n8n runs the node with the tool's arguments as its input while
			// `$json` still means the agent's item: there the input item is not what `$json` reads.
			const path = own && !runsAsAgentTool(node) ? fieldPathOf(node.parameters[name]) : undefined;
			fieldPaths.set(name, path);
		}
		return fieldPaths.get(name);
	};
	let items: ReturnType<IExecuteFunctions['getInputData']> | undefined;
	return {
		node,
		get(name, itemIndex, fallback) {
			if (constants.has(name)) return constants.get(name);
			const path = fieldPath(name);
			if (path) {
				items ??= context.getInputData();
				const item = items[itemIndex];
				const value = item ? readPath(item.json, path) : NOT_READ;
				if (value !== NOT_READ) return value;
			}
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

/** Name of the saved Coupon Code parameter; fixed, so saved workflows keep loading. */
export const COUPON_CODE_PARAMETER = 'couponCode';

/** The raw fields every create reads, before validation; `additional` holds the rest. */
export function readOrderFields(parameters: ExecutionParameters, itemIndex: number) {
	const additional = parameters.get('additionalFields', itemIndex, {}) as IDataObject;
	return {
		additional,
		fields: {
			reference: parameters.get('reference', itemIndex),
			productCode: parameters.get('productCode', itemIndex),
			amount: parameters.get('amount', itemIndex),
			[COUPON_JSON_KEY]: additional[COUPON_CODE_PARAMETER],
		},
	};
}

/** The credential's spending limit as stored (checked per item with the options). Read once per run. */
export async function readCredentialLimit(context: IExecuteFunctions): Promise<unknown> {
	const credential = await context.getCredentials(API_CREDENTIAL);
	return credential.maxOrderTotal;
}
