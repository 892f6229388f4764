import type { INodeProperties } from 'n8n-workflow';

import type { VoucherOperation } from '../operation';
import * as verifySignature from './verifySignature.operation';

export const operations: Record<string, VoucherOperation> = {
	verifySignature: {
		description: verifySignature.description,
		// Needs no API call, so the API client passed in is never used (nor its credential read).
		async execute(this, _client, itemIndex) {
			return [await verifySignature.execute.call(this, itemIndex)];
		},
	},
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['webhook'] } },
	default: 'verifySignature',
	options: [
		{
			name: 'Verify Signature',
			value: 'verifySignature',
			action: 'Verify a webhook signature',
			description:
				'Check that a delivery received by a Webhook node (Raw Body on) was signed by the service',
		},
	],
};
