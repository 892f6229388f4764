import type { INodeProperties } from 'n8n-workflow';

import type { VoucherOperation } from '../operation';
import * as check from './check.operation';

export const operations: Record<string, VoucherOperation> = {
	check: {
		description: check.description,
		// Its own client, so the answers it reports are only its own.
		async execute(this, _client, itemIndex) {
			return await check.execute.call(this, itemIndex);
		},
	},
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['service'] } },
	default: 'check',
	options: [
		{
			name: 'Check',
			value: 'check',
			action: 'Check the connection and test how the service answers',
			description:
				'Before going live: reads the wallets, templates, countries and an order that cannot exist, and outputs one item per check with what was seen and what the node will do about it. Buys nothing.',
		},
	],
};
