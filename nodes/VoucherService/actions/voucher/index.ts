import type { INodeProperties } from 'n8n-workflow';

import type { VoucherOperation } from '../operation';
import * as getStatus from './getStatus.operation';

export const operations: Record<string, VoucherOperation> = { getStatus };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['voucher'] } },
	default: 'getStatus',
	options: [
		{
			name: 'Get Status',
			value: 'getStatus',
			action: 'Get the status of a voucher',
			description: "Read a voucher's status (e.g. ACTIVE, USED), value and expiry date by its code",
		},
	],
};
