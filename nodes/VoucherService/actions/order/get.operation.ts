import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { operationError } from '../../transport/errors';
import { outputModeField, readOptionsField, readOrderOutput, referenceField } from '../fields';
import { orderLookupSchema, validate } from '../../shared/validation';
import { orderItems } from '../../orders/output';
import { executionParameters } from '../../shared/parameters';
import { findOrder } from '../../orders/lookup';

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['get'] } },
	[referenceField('The reference the order was created with'), outputModeField, readOptionsField],
);

export async function execute(
	this: IExecuteFunctions,
	client: VoucherApiClient,
	itemIndex: number,
): Promise<IDataObject[]> {
	const parameters = executionParameters(this);
	const { node, get } = parameters;
	const { reference } = validate(
		orderLookupSchema,
		{ reference: get('reference', itemIndex) },
		node,
		itemIndex,
	);
	const order = await findOrder(client, reference, itemIndex);
	if (!order) {
		throw operationError(node, `Order ${reference} not found`, {
			itemIndex,
			description: 'The service has no order with this reference (status code 04, or HTTP 404).',
		});
	}
	return orderItems({ order }, readOrderOutput(parameters, itemIndex));
}
