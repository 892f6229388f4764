import type { IDataObject, INode } from 'n8n-workflow';

import { operationError } from './errors';

/*
 * An answer's `data` checked against the shape the spec documents before anything is made of
 * it: a list read as zero items, or a list spread into an object, would be output as if the
 * service had said so. The errors say what came back in shape only: a value could be a
 * voucher's code or a key the service echoes.
 */

/**
 * Field names shown only when they are short camelCase words, as every name in the spec is: a
 * key (`sk_…`, base64) has digits or signs, so an echoed one never shows.
 */
const FIELD_NAME = /^[a-z][A-Za-z]{0,19}$/;

/** What a value is, without any of its content but the names of an object's fields. */
function shapeOf(value: unknown): string {
	if (value === undefined) return 'missing';
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return 'text';
	if (typeof value === 'number') return 'a number';
	if (typeof value === 'boolean') return 'true or false';
	if (typeof value !== 'object') return typeof value;
	const keys = Object.keys(value);
	const shown = keys.filter((key) => FIELD_NAME.test(key)).slice(0, 5);
	if (keys.length === 0) return 'an empty object';
	return `an object (fields: ${[...shown, ...(shown.length < keys.length ? ['…'] : [])].join(', ')})`;
}

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

function shapeError(
	node: INode,
	itemIndex: number | undefined,
	message: string,
	documented: string,
) {
	const said = `the voucher service's ${message}`;
	// A dropdown's read has no item.
	const full =
		itemIndex === undefined
			? said.charAt(0).toUpperCase() + said.slice(1)
			: `Item ${itemIndex}: ${said}`;
	return operationError(node, full, {
		itemIndex,
		description: `The API documents ${documented}. Nothing was made of this answer, so that it is never taken for something it did not say.`,
	});
}

/** `data` as the list of objects the spec documents, or an error naming the item and its shape. */
export function listData(
	node: INode,
	data: unknown,
	what: string,
	itemIndex?: number,
): IDataObject[] {
	const documented = 'a list of objects';
	if (!Array.isArray(data))
		throw shapeError(
			node,
			itemIndex,
			`${what} is not a list: its data is ${shapeOf(data)}`,
			documented,
		);
	const odd = data.findIndex((element) => !isObject(element));
	if (odd >= 0)
		throw shapeError(
			node,
			itemIndex,
			`${what} is not a list of objects: element ${odd + 1} is ${shapeOf(data[odd])}`,
			documented,
		);
	return data as IDataObject[];
}

/** `data` as the object the spec documents, or an error naming the item and its shape. */
export function objectData(
	node: INode,
	data: unknown,
	what: string,
	itemIndex?: number,
): IDataObject {
	if (isObject(data)) return data;
	throw shapeError(
		node,
		itemIndex,
		`${what} is not an object: its data is ${shapeOf(data)}`,
		'an object',
	);
}
