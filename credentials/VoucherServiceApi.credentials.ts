import type {
	IAuthenticateRuleResponseSuccessBody,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { API_CREDENTIAL } from '../nodes/serviceProtocol/credentials';

const NON_SUCCESS_MESSAGE =
	'The service did not answer with status code 00. Check the public key, the secret key and the base URL.';

/*
 * n8n's request-based credential test can only fail when a body field EQUALS a value.
 * "Fail unless statusCode is 00" is therefore spelled out as: fail when statusCode is
 * missing, null or not two characters long, or when either character is anything but "0".
 */
function failUnlessStatusCodeIsSuccess(): IAuthenticateRuleResponseSuccessBody[] {
	const rule = (key: string, value: unknown): IAuthenticateRuleResponseSuccessBody => ({
		type: 'responseSuccessBody',
		properties: { key, value, message: NON_SUCCESS_MESSAGE },
	});
	const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter(
		(char) => char !== '0',
	);
	const wrongLengths = [0, 1, 3, 4, 5, 6, 7, 8];
	return [
		rule('statusCode', undefined),
		rule('statusCode', null),
		...wrongLengths.map((length) => rule('statusCode.length', length)),
		...printable.map((char) => rule('statusCode[0]', char)),
		...printable.map((char) => rule('statusCode[1]', char)),
	];
}

export class VoucherServiceApi implements ICredentialType {
	name = API_CREDENTIAL;

	displayName = 'Voucher Service API';

	icon: Icon = {
		light: 'file:voucherService.svg',
		dark: 'file:voucherService.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-voucher-service/n8n-nodes-voucher-service#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://vouchers.example.com',
			hint: 'The service documentation does not publish a base URL: copy it from your business dashboard, without /v2.',
		},
		{
			displayName: 'Public Key',
			name: 'publicKey',
			type: 'string',
			required: true,
			default: '',
			hint: 'Shown in the business dashboard next to the secret key',
		},
		{
			displayName: 'Secret Key',
			name: 'secretKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			hint: 'Generated or refreshed in the business dashboard. This is not the webhook secret.',
		},
		{
			displayName: 'Maximum Order Total (NGN)',
			name: 'maxOrderTotal',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0, numberPrecision: 2 },
			description:
				'Refuse any order whose total (amount × vouchers) is above this many Naira, before anything is sent. Applies to every node that uses this credential. 0 means no limit.',
		},
	];

	/*
	 * Basic auth with publicKey:secretKey. A function rather than ={{$credentials...}}
	 * expressions: n8n evaluates those in its expression sandbox on every request, which
	 * cost about 8 ms per order in the benchmark.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			auth: { username: String(credentials.publicKey), password: String(credentials.secretKey) },
		};
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(new RegExp("/+$"), "")}}',
			url: '/v2/transactions/wallets',
			method: 'GET',
		},
		rules: failUnlessStatusCodeIsSuccess(),
	};
}
