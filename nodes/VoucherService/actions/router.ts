import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { VoucherApiClient } from '../transport/client';
import { asNodeError } from '../transport/errors';
import { mapWithConcurrency } from '../shared/concurrency';
import { errorItem } from '../shared/errorItem';
import { maxConcurrencyOf } from '../shared/fields';
import * as country from './country';
import * as order from './order';
import * as template from './template';
import type { VoucherOperation } from './types';
import * as voucher from './voucher';
import * as wallet from './wallet';
import * as webhook from './webhook';

const resources: Record<
	string,
	{ operations: Record<string, VoucherOperation>; operationField: INodeProperties }
> = { order, voucher, wallet, country, template, webhook };

export const resourceField: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	default: 'order',
	options: [
		{ name: 'Country', value: 'country' },
		{ name: 'Order', value: 'order' },
		{ name: 'Template', value: 'template' },
		{ name: 'Voucher', value: 'voucher' },
		{ name: 'Wallet', value: 'wallet' },
		{ name: 'Webhook', value: 'webhook' },
	],
};

export const operationProperties: INodeProperties[] = Object.values(resources).flatMap(
	({ operationField, operations }) => [
		operationField,
		...Object.values(operations).flatMap((operation) => operation.description),
	],
);

/** Runs the chosen operation for every input item, paired, in input order, with bounded concurrency. */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = resources[resource]?.operations[operationName];
	if (!operation || items.length === 0) return [[]];

	// Workers take items up to the user's maximum; the client's pacing decides how many of
	// their requests are really in flight.
	const maxConcurrency = maxConcurrencyOf(this.getNodeParameter('options', 0, {}) as IDataObject);
	const client = new VoucherApiClient(this, maxConcurrency);
	const whole = await operation.executeAll?.call(this, client);
	if (whole) return [whole];

	const perItem = await mapWithConcurrency(items.length, maxConcurrency, async (itemIndex) => {
		try {
			const results = await operation.execute.call(this, client, itemIndex);
			return results.map((json) => ({ json, pairedItem: { item: itemIndex } }));
		} catch (error) {
			if (!this.continueOnFail()) throw asNodeError(this.getNode(), error);
			return [errorItem(this.getNode(), error, itemIndex)];
		}
	});
	return [perItem.flat()];
}
