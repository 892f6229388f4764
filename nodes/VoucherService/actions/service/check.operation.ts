import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { VoucherApiClient } from '../../transport/client';
import { runServiceCheck } from '../../serviceCheck/serviceCheck';

export const description = updateDisplayOptions(
	{ show: { resource: ['service'], operation: ['check'] } },
	[],
);

/**
 * One output item per check. The router's client is not used: the check listens to every
 * answer of its own client, and its reads go one at a time.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await runServiceCheck(new VoucherApiClient(this), itemIndex);
}
