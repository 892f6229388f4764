import type { INodeProperties } from 'n8n-workflow';

import type { VoucherOperation } from '../operation';
import * as create from './create.operation';
import * as createForRecipients from './createForRecipients.operation';
import * as get from './get.operation';
import * as getCampaign from './getCampaign.operation';

export const operations: Record<string, VoucherOperation> = {
	create,
	createForRecipients,
	get,
	getCampaign,
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['order'] } },
	default: 'create',
	options: [
		{
			name: 'Create',
			value: 'create',
			action: 'Create a download order',
			description: 'Buy vouchers whose codes and PINs come back to the workflow (a download order)',
		},
		{
			name: 'Create for Recipients',
			value: 'createForRecipients',
			action: 'Create an order for recipients',
			description: 'Buy one voucher per recipient, each delivered to the recipient by e-mail',
		},
		{
			name: 'Get',
			value: 'get',
			action: 'Get an order',
			description: 'Read an order, its status and vouchers by its reference',
		},
		{
			name: 'Get Campaign',
			value: 'getCampaign',
			action: 'Get a campaign report',
			description:
				'Read every order of a campaign by its base reference: one item per voucher with its recipient and delivery status. Buys nothing.',
		},
	],
};
