import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import { WEBHOOK_CREDENTIAL } from '../nodes/serviceProtocol/credentials';

export class VoucherServiceWebhookApi implements ICredentialType {
	name = WEBHOOK_CREDENTIAL;

	displayName = 'Voucher Service Webhook API';

	icon: Icon = {
		light: 'file:voucherService.svg',
		dark: 'file:voucherService.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-voucher-service/n8n-nodes-voucher-service#voucher-service-webhook-api';

	properties: INodeProperties[] = [
		{
			displayName: 'Webhook Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			hint: 'Shown in the business dashboard next to the webhook URL. Each webhook URL has its own secret; this is not the API secret key.',
		},
	];
}
