import { NodeOperationError } from 'n8n-workflow';
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
import { DEFAULT_CONCURRENCY } from '../shared/fields';
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

/** The operation the node is set to; a saved workflow can name one this version lacks. */
function chosenOperation(this: IExecuteFunctions): VoucherOperation {
	const has = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key);
	const resource = this.getNodeParameter('resource', 0) as string;
	if (!has(resources, resource))
		throw new NodeOperationError(this.getNode(), `The resource "${resource}" is not supported`);
	const { operations } = resources[resource];
	const operation = this.getNodeParameter('operation', 0) as string;
	if (!has(operations, operation))
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" is not supported for the resource "${resource}"`,
		);
	return operations[operation];
}

/** Runs the chosen operation for every input item, paired, in input order, with bounded concurrency. */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (items.length === 0) return [[]];
	const operation = chosenOperation.call(this);

	const client = new VoucherApiClient(this);
	const whole = await operation.executeAll?.call(this, client);
	if (whole) return [whole];
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const concurrency = Number(options.concurrency ?? DEFAULT_CONCURRENCY);

	const perItem = await mapWithConcurrency(items.length, concurrency, async (itemIndex) => {
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
