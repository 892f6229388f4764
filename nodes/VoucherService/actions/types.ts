import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { VoucherApiClient } from '../transport/client';

/** What one operation file provides: its fields and how it turns one input item into output. */
export interface VoucherOperation {
	description: INodeProperties[];
	execute(
		this: IExecuteFunctions,
		client: VoucherApiClient,
		itemIndex: number,
	): Promise<IDataObject[]>;
}
