import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { secretProblem } from './signature';

/*
 * The service has no endpoint that knows webhook secrets, so the test can only check that
 * the value is plausible. Both nodes use the webhook credential, so both offer this test.
 */
export async function voucherServiceWebhookSecretTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const problem = secretProblem(credential.data?.secret);
	if (problem !== undefined) return { status: 'Error', message: problem };
	return {
		status: 'OK',
		message:
			'The secret is well formed. Only a signed delivery from the service proves it is the right one.',
	};
}
