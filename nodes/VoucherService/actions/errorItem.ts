import { NodeApiError } from 'n8n-workflow';
import type { INode, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../transport/errors';

/**
 * The item continueOnFail turns a failure into. `error` on the item is what lets n8n send
 * it to the error output when "On Error: Continue (using error output)" is chosen.
 */
export function errorItem(node: INode, error: unknown, itemIndex: number): INodeExecutionData {
	const nodeError = asNodeError(node, error);
	return {
		json: {
			error: nodeError.message,
			...(nodeError.description ? { description: nodeError.description } : {}),
			...(nodeError instanceof NodeApiError && nodeError.httpCode
				? { httpCode: nodeError.httpCode }
				: {}),
		},
		error: nodeError,
		pairedItem: { item: itemIndex },
	};
}
