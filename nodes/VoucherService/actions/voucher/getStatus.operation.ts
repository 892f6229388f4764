import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { voucherStatusPath } from '../../../serviceProtocol/api';
import { objectData } from '../../transport/answerShape';
import type { VoucherApiClient } from '../../transport/client';
import { readOptionsField } from '../fields';
import { executionParameters } from '../../shared/parameters';
import { lookupSchema, validate } from '../../shared/validation';

export const description = updateDisplayOptions(
	{ show: { resource: ['voucher'], operation: ['getStatus'] } },
	[
		{
			displayName: 'Voucher Code',
			name: 'voucherCode',
			type: 'string',
			required: true,
			default: '',
			description:
				'The code printed on the voucher. It is read only; nothing about the voucher changes.',
		},
		readOptionsField,
	],
);

export async function execute(
	this: IExecuteFunctions,
	client: VoucherApiClient,
	itemIndex: number,
): Promise<IDataObject[]> {
	const { node, get } = executionParameters(this);
	const { voucherCode } = validate(
		lookupSchema('voucherCode', 'Voucher code'),
		{ voucherCode: get('voucherCode', itemIndex) },
		node,
		itemIndex,
	);
	const data = await client.request<unknown>({
		method: 'GET',
		path: voucherStatusPath(voucherCode),
		itemIndex,
		notFoundMessage: 'Voucher not found',
	});
	return [{ ...objectData(client.node, data, 'voucher status', itemIndex) }];
}
