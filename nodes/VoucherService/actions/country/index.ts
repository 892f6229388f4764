import type { INodeProperties } from 'n8n-workflow';

import type { VoucherOperation } from '../types';
import * as getAll from './getAll.operation';

export const operations: Record<string, VoucherOperation> = { getAll };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['country'] } },
	default: 'getAll',
	options: [
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many countries',
			description: 'Countries the service supports',
		},
	],
};
