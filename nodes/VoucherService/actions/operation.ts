import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ItemPlan, RunSettings } from '../plan';
import type { VoucherApiClient } from '../transport/client';

/** What one operation file provides: its fields, and either one item's work or a plan for all items. */
export interface VoucherOperation {
	description: INodeProperties[];
	execute?(
		this: IExecuteFunctions,
		client: VoucherApiClient,
		itemIndex: number,
	): Promise<IDataObject[]>;
	plan?(this: IExecuteFunctions, client: VoucherApiClient, run: RunSettings): Promise<ItemPlan>;
}
