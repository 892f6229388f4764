import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { VoucherApiClient } from '../../transport/client';
import { INTERACTIVE_PATIENCE_MS } from '../../transport/retry';
import { runServiceCheck } from '../../serviceCheck/serviceCheck';

export const description = updateDisplayOptions(
	{ show: { resource: ['service'], operation: ['check'] } },
	[],
);

/**
 * One output item per check. The router's client is not used: the check listens to every
 * answer of its own client, its reads go one at a time, and someone is waiting for the answer.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await runServiceCheck(new VoucherApiClient(this, 1, INTERACTIVE_PATIENCE_MS), itemIndex);
}
