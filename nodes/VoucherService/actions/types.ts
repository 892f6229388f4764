import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { VoucherApiClient } from '../transport/client';

/** What one operation file provides: its fields and how it turns one input item into output. */
export interface VoucherOperation {
	description: INodeProperties[];
	execute(
		this: IExecuteFunctions,
		client: VoucherApiClient,
		itemIndex: number,
	): Promise<IDataObject[]>;
	/** For operations that treat all input items as one job; null means "run item by item". */
	executeAll?(
		this: IExecuteFunctions,
		client: VoucherApiClient,
	): Promise<INodeExecutionData[] | null>;
}
