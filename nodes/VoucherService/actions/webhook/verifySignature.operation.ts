import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { WEBHOOK_CREDENTIAL } from '../../../serviceProtocol/credentials';
import { openDelivery } from '../../../serviceProtocol/signature';
import { runsAsAgentTool, withoutCodes } from '../../shared/agentTool';

const show = { show: { resource: ['webhook'], operation: ['verifySignature'] } };

export const description: INodeProperties[] = [
	{
		displayName:
			'Turn on "Raw Body" in the Webhook node\'s options: the signature covers the exact bytes the service sent, and a body parsed and serialised again no longer matches',
		name: 'rawBodyNotice',
		type: 'notice',
		default: '',
		displayOptions: show,
	},
	{
		displayName: 'Raw Body Source',
		name: 'rawBodySource',
		type: 'options',
		noDataExpression: true,
		default: 'binary',
		options: [
			{
				name: 'Binary Property',
				value: 'binary',
				description: 'The exact bytes, as the Webhook node stores them with "Raw Body" on',
			},
			{
				name: 'Text',
				value: 'text',
				description: 'The body as text, encoded as UTF-8 before checking',
			},
		],
		displayOptions: show,
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the input binary field holding the raw body',
		displayOptions: { show: { ...show.show, rawBodySource: ['binary'] } },
	},
	{
		displayName: 'Raw Body',
		name: 'rawBodyText',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		description: 'The request body exactly as received',
		displayOptions: { show: { ...show.show, rawBodySource: ['text'] } },
	},
	{
		displayName: 'Signature',
		name: 'signature',
		type: 'string',
		default: '={{ $json.headers.signature }}',
		description: 'The value of the request\'s "signature" header',
		displayOptions: show,
	},
];

async function readRawBody(this: IExecuteFunctions, itemIndex: number): Promise<Buffer> {
	const source = this.getNodeParameter('rawBodySource', itemIndex) as string;
	if (source === 'text') {
		return Buffer.from(this.getNodeParameter('rawBodyText', itemIndex) as string, 'utf8');
	}
	const property = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
	this.helpers.assertBinaryData(itemIndex, property);
	return await this.helpers.getBinaryDataBuffer(itemIndex, property);
}

/** The event's data with its vouchers' codes and PINs left out, marked as withheld. */
function withoutVoucherCodes(data: IDataObject): IDataObject {
	if (!Array.isArray(data.vouchers)) return data;
	return {
		...data,
		vouchers: (data.vouchers as IDataObject[]).map(withoutCodes),
		codesWithheld: true,
	};
}

/**
 * `valid` says whether the signature matches; `event` is there only when it does and the
 * body is an event ({ type, data }), parsed from the verified bytes.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const rawBody = await readRawBody.call(this, itemIndex);
	const header = this.getNodeParameter('signature', itemIndex, '');
	const { secret } = await this.getCredentials(WEBHOOK_CREDENTIAL, itemIndex);
	const delivery = openDelivery(rawBody, header, secret);
	if (delivery.status === 'verified') {
		const { type, data } = delivery.event;
		// A download order's event carries voucher codes and PINs: an AI agent never gets them.
		if (runsAsAgentTool(this.getNode())) {
			return { valid: true, event: { type, data: withoutVoucherCodes(data as IDataObject) } };
		}
		return { valid: true, event: { type, data: data as IDataObject } };
	}
	return { valid: delivery.status === 'malformed' };
}
