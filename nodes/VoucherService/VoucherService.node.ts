import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { operationProperties, resourceField, route, subtitle } from './actions/router';
import { getTemplates } from './methods/loadOptions';
import { giveCodesToAgentField } from './actions/fields';
import { API_CREDENTIAL, WEBHOOK_CREDENTIAL } from '../serviceProtocol/credentials';
import { voucherServiceWebhookSecretTest } from '../serviceProtocol/webhookSecretCheck';

export class VoucherService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voucher Service',
		name: 'voucherService',
		icon: { light: 'file:voucherService.svg', dark: 'file:voucherService.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle,
		description:
			'Order gift-card vouchers priced in Naira, deliver them to recipients by e-mail, and read orders, voucher status, wallets, countries and templates',
		defaults: { name: 'Voucher Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: API_CREDENTIAL,
				required: true,
				displayOptions: { hide: { resource: ['webhook'] } },
			},
			{
				name: WEBHOOK_CREDENTIAL,
				required: true,
				testedBy: 'voucherServiceWebhookSecretTest',
				displayOptions: { show: { resource: ['webhook'] } },
			},
		],
		properties: [resourceField, ...operationProperties, giveCodesToAgentField],
	};

	methods = {
		loadOptions: { getTemplates },
		credentialTest: { voucherServiceWebhookSecretTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await route.call(this);
	}
}
