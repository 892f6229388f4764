import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { VoucherApiClient } from '../transport/client';

/** Templates for the Template dropdown: the client's own and the global ones. */
export async function getTemplates(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const client = new VoucherApiClient(this);
	const templates = await client.request<IDataObject[] | null>({
		method: 'GET',
		path: '/v2/orders/templates',
	});
	return (templates ?? [])
		.filter((template) => /^\d+$/.test(String(template.id)))
		.map((template) => ({
			name: `${String(template.name ?? 'Template')} (${String(template.id)})`,
			// The list gives ids as strings; the order body needs an int32.
			value: Number(template.id),
			description: template.screenshotUrl
				? `Preview: ${String(template.screenshotUrl)}`
				: undefined,
		}));
}
