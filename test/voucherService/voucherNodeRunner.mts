/**
 * Runs the VoucherService node inside a real n8n-core workflow against the sandbox.
 * Each test file starts its own sandbox so request logs never mix.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeParameters,
} from 'n8n-workflow';
import { afterAll, beforeEach } from 'vitest';

import { VoucherServiceApi } from '../../credentials/VoucherServiceApi.credentials';
import { VoucherService } from '../../nodes/VoucherService/VoucherService.node';
import { startSandbox } from '../../sandbox/server.mts';
import type { Sandbox, SandboxOptions } from '../../sandbox/server.mts';
import { runNode } from '../support/runWorkflow.mts';

export const voucherNode = new VoucherService();

export interface CredentialOverrides {
	publicKey?: string;
	secretKey?: string;
	baseUrl?: string;
	maxOrderTotal?: number;
}

async function openSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	return await startSandbox({ processingDelayMs: 150, timeFactor: 0.0005, ...options });
}

/**
 * A sandbox for the calling test file: started at import, reset before each test (unless
 * the file wants its request log to accumulate), closed after the file.
 */
export async function sandboxForThisFile(
	options: SandboxOptions = {},
	{ resetBeforeEach = true } = {},
): Promise<Sandbox> {
	const sandbox = await openSandbox(options);
	afterAll(async () => await sandbox.close());
	if (resetBeforeEach) beforeEach(() => sandbox.reset());
	return sandbox;
}

export function credentialFor(
	sandbox: Sandbox,
	overrides: CredentialOverrides = {},
): ICredentialDataDecryptedObject {
	return { baseUrl: sandbox.url, ...sandbox.keys, maxOrderTotal: 0, ...overrides };
}

export interface RunVoucherOptions {
	items?: IDataObject[];
	credential?: CredentialOverrides;
	continueOnFail?: boolean;
	onError?: INode['onError'];
}

/** Runs one VoucherService node with these parameters and returns its outputs. */
export async function runVoucher(
	sandbox: Sandbox,
	parameters: INodeParameters,
	options: RunVoucherOptions = {},
) {
	const result = await runNode({
		nodeType: voucherNode,
		credentialTypes: [new VoucherServiceApi()],
		credentials: { voucherServiceApi: credentialFor(sandbox, options.credential) },
		parameters,
		inputItems: options.items,
		continueOnFail: options.continueOnFail,
		onError: options.onError,
	});
	const main = result.items[0] ?? [];
	return { ...result, main, json: main.map((item) => item.json) };
}

/** API requests the sandbox received (admin calls are not logged). */
export function apiRequests(sandbox: Sandbox, method?: string, pathPrefix = '/v2') {
	return sandbox.state.requests.filter(
		(entry) => entry.path.startsWith(pathPrefix) && (!method || entry.method === method),
	);
}

let referenceCounter = 0;
/** A reference no other test uses. */
export function uniqueReference(prefix = 'ref'): string {
	return `${prefix}-${process.pid}-${Date.now().toString(36)}-${++referenceCounter}`;
}

export const SECRET_KEY_MARKER = 'sk_test_sandbox';

/** Create for Recipients → From Input Items: a campaign under `base`, 1,000 NGN per row unless `extra` says otherwise. */
export const campaignParameters = (
	base: string,
	options: INodeParameters = {},
	extra: INodeParameters = {},
): INodeParameters => ({
	resource: 'order',
	operation: 'createForRecipients',
	recipientsSource: 'inputItems',
	reference: base,
	productCode: 'VCH-INSTANT',
	amount: 1000,
	templateId: 1,
	options,
	...extra,
});
