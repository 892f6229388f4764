import type { IDataObject, INode, INodeProperties, NodeOperationError } from 'n8n-workflow';

import { operationError } from '../transport/errors';

/*
 * Option values as users send them: from the node's own controls, or from an expression or a
 * spreadsheet column, where a number may come as text and a boolean as TRUE. A value that
 * cannot mean what the option takes is an error naming the item and the option, before
 * anything is sent: never a default or a nearest value in its place.
 */

/** The one error of an option's value, naming the item, the option and the value given. */
export function invalidOption(
	node: INode,
	itemIndex: number,
	label: string,
	value: unknown,
	rule: string,
): NodeOperationError {
	return operationError(node, `Item ${itemIndex}: the option "${label}" must be ${rule}`, {
		itemIndex,
		description: `It is ${JSON.stringify(String(value)).slice(0, 60)}. Nothing was sent.`,
	});
}

/**
 * A number option as given: a number, or numeric text from an expression; undefined when
 * not set. Anything else is NaN, which the caller refuses by name.
 */
export function optionNumber(value: unknown): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'number') return value;
	if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
	return Number.NaN;
}

/**
 * true or false, as a boolean or as text in any case with spaces around (a sheet's TRUE).
 * Nothing else is taken for either: not 1, "yes" or an empty cell, since a Dry Run read as
 * off buys, and one read as on buys nothing the user meant to.
 */
export function readBoolean(
	node: INode,
	itemIndex: number,
	label: string,
	value: unknown,
): boolean {
	if (typeof value === 'boolean') return value;
	const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
	if (text === 'true' || text === 'false') return text === 'true';
	throw invalidOption(node, itemIndex, label, value, 'true or false');
}

/**
 * A boolean option of an Options collection: the fallback when it was not added, else read as
 * readBoolean reads it. Added, an expression that gives nothing (a column the item lacks) is
 * refused like any other value that is not true or false.
 */
export function booleanOption(
	node: INode,
	itemIndex: number,
	options: IDataObject,
	option: INodeProperties,
	fallback = option.default === true,
): boolean {
	if (!Object.prototype.hasOwnProperty.call(options, option.name)) return fallback;
	return readBoolean(node, itemIndex, option.displayName, options[option.name]);
}
