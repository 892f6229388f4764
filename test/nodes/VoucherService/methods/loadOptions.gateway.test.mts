/**
 * The Template dropdown behind a gateway that refuses every request: someone waits with the
 * dropdown open, so it gives up after the short patience, saying why, while a run's read of
 * the same list keeps the full patience.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

import { runLoadOptions } from '../../../../n8n-core-runner/runWorkflow.mts';
import { VoucherServiceApi } from '../../../../credentials/VoucherServiceApi.credentials';
import type { GatewayFault } from '../../../../sandbox/server.mts';
import {
	apiRequests,
	credentialFor,
	runVoucher,
	sandboxForThisFile,
	voucherNode,
} from '../voucherNodeRunner.mts';

// Both patiences cut to a test's length, the short one still shorter: each message names its own.
vi.mock('../../../../nodes/VoucherService/transport/retry', async (original) => ({
	...(await original<typeof import('../../../../nodes/VoucherService/transport/retry')>()),
	REFUSAL_PATIENCE_MS: 4_000,
	INTERACTIVE_PATIENCE_MS: 1_500,
}));

const sandbox = await sandboxForThisFile();
afterEach(() => sandbox.configure({ faults: {} }));

const behindGateway = (status: GatewayFault['status']) =>
	sandbox.configure({ faults: { gateway: { status } } });

const refusedFor = (period: string, status: string) =>
	`The voucher service (or a gateway in front of it) refused every request for ${period} (HTTP ${status})`;

describe('the Template dropdown behind a gateway that refuses every request', () => {
	it.each([
		[503, '503, unavailable'],
		[429, '429, rate limited'],
	] as const)(
		'HTTP %i with an HTML page: an error after the short patience, saying so',
		async (status, said) => {
			behindGateway(status);
			const dropdown = runLoadOptions({
				nodeType: voucherNode,
				methodName: 'getTemplates',
				credentialTypes: [new VoucherServiceApi()],
				credentials: { voucherServiceApi: credentialFor(sandbox) },
			});

			await expect(dropdown).rejects.toThrow(refusedFor('1.5 seconds', said));
			const requests = apiRequests(sandbox);
			// Sent again within the patience, and never answered but by the gateway.
			expect(requests.length).toBeGreaterThan(1);
			expect(requests.every((entry) => entry.status === status)).toBe(true);
		},
	);

	it('a run reading the same list keeps the full patience', async () => {
		behindGateway(503);
		const run = await runVoucher(sandbox, { resource: 'template', operation: 'getAll' });
		expect(run.error?.message).toBe(refusedFor('4 seconds', '503, unavailable'));
	});
});
