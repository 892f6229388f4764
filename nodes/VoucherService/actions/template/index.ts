import type { INodeProperties } from 'n8n-workflow';

import type { VoucherOperation } from '../types';
import * as getAll from './getAll.operation';

export const operations: Record<string, VoucherOperation> = { getAll };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['template'] } },
	default: 'getAll',
	options: [
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many templates',
			description: "Delivery e-mail templates: your business's own and the global ones",
		},
	],
};
