import { describe, expect, it, vi } from 'vitest';

import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../voucherNodeRunner.mts';

// The patience cut to a test's length; the production value is minutes.
vi.mock('../../../../nodes/VoucherService/transport/retry', async (original) => ({
	...(await original<typeof import('../../../../nodes/VoucherService/transport/retry')>()),
	RATE_LIMIT_PATIENCE_MS: 1_500,
}));

const sandbox = await sandboxForThisFile({ faults: { rateLimitRate: 1, retryAfterSeconds: 0 } });

describe('a service that never stops refusing', () => {
	it('gives up after the patience: the row says nothing was bought and is safe to re-run', async () => {
		const reference = uniqueReference('patience');
		const result = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 100,
			quantity: 1,
		});

		expect(result.error?.message).toBe(
			`Item 0: order "${reference}" was not bought: the voucher service is rate limiting (HTTP 429)`,
		);
		expect(result.error?.description).toMatch(
			/nothing was bought, and the row is safe to run again/,
		);
		// Resent all along (no attempt budget), never looked up: a 429 leaves nothing unknown.
		const requests = apiRequests(sandbox);
		expect(requests.length).toBeGreaterThan(2);
		expect(requests.every((entry) => entry.method === 'POST' && entry.status === 429)).toBe(true);
		expect(sandbox.state.orders.size).toBe(0);
	});

	it('gives up a read the same way, with the service’s refusal named', async () => {
		const result = await runVoucher(sandbox, { resource: 'wallet', operation: 'getAll' });
		expect(result.error?.message).toMatch(
			/refused every request for .* \(HTTP 429, rate limited\)/,
		);
	});
});
