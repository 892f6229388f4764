import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { TEMPLATES_PATH } from '../../serviceProtocol/api';
import { listData } from '../transport/answerShape';
import { VoucherApiClient } from '../transport/client';
import { INTERACTIVE_PATIENCE_MS } from '../transport/retry';
import { templateIdAsSent } from '../shared/validation';

function templateOption(template: IDataObject): INodePropertyOptions {
	const name = `${String(template.name ?? 'Template')} (${String(template.id)})`;
	const id = templateIdAsSent(template.id);
	if (id === undefined) {
		// Shown, not dropped, so a user looking for it learns why it cannot be chosen.
		return {
			name: `${name}: cannot be used`,
			value: String(template.id),
			disabled: true,
			description: 'Its ID is not a whole number, and an order takes a numeric template ID',
		};
	}
	return {
		name,
		value: id,
		description: template.screenshotUrl ? `Preview: ${String(template.screenshotUrl)}` : undefined,
	};
}

/** Templates for the Template dropdown: the client's own and the global ones. */
export async function getTemplates(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	// Someone waits with the dropdown open: a gateway's refusals end it in seconds, not minutes.
	const client = new VoucherApiClient(this, 1, INTERACTIVE_PATIENCE_MS);
	const data = await client.request<unknown>({ method: 'GET', path: TEMPLATES_PATH });
	// Not a list is an error the editor shows: "none found" would send the user to the dashboard.
	const templates = listData(client.node, data, 'template list');
	if (templates.length === 0) {
		return [
			{
				name: 'No Templates Found for This Account',
				value: '',
				disabled: true,
				description:
					'Add a template in your business dashboard, or enter a template ID by expression',
			},
		];
	}
	return templates.map(templateOption);
}
