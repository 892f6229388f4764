import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listData } from '../transport/answerShape';
import type { VoucherApiClient } from '../transport/client';
import type { VoucherOperation } from './operation';

/** Wallets, countries and templates are plain lists: one output item per element. */
export function listOperation(resource: string, path: string): VoucherOperation {
	return {
		description: updateDisplayOptions(
			{ show: { resource: [resource], operation: ['getAll'] } },
			[],
		),
		async execute(client: VoucherApiClient, itemIndex: number) {
			const data = await client.request<unknown>({ method: 'GET', path, itemIndex });
			return listData(client.node, data, `${resource} list`, itemIndex);
		},
	};
}

/** The Operation dropdown of a list-only resource. */
export function listOperationField(
	resource: string,
	action: string,
	description: string,
): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		default: 'getAll',
		options: [{ name: 'Get Many', value: 'getAll', action, description }],
	};
}
