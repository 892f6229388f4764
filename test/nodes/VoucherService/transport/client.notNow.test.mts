/**
 * Reads behind a gateway that says "not now": 429, 502, 503 or 504, with any body and no
 * Retry-After, is sent again within the patience, not within the counted budget of a 500.
 */
import { describe, expect, it, vi } from 'vitest';

import { apiRequests, runVoucher, sandboxForThisFile } from '../voucherNodeRunner.mts';

// The read budget cut to two attempts, so a storm longer than it stays two refusals short.
vi.mock('../../../../nodes/VoucherService/transport/retry', async (original) => {
	const retry = await original<typeof import('../../../../nodes/VoucherService/transport/retry')>();
	return { ...retry, READ_RETRY: { ...retry.READ_RETRY, attempts: 2 } };
});

const sandbox = await sandboxForThisFile();

const countries = { resource: 'country', operation: 'getAll' };

describe('a read refused by a gateway for less than the patience', () => {
	it.each([
		[503, 'html'],
		[503, 'text'],
		[503, 'json'],
		[502, 'html'],
		[504, 'html'],
		[429, 'html'],
	] as const)('HTTP %i with a %s body, three times: answered', async (status, body) => {
		sandbox.configure({ faults: { gateway: { status, body, count: 3 } } });
		try {
			const result = await runVoucher(sandbox, countries);

			expect(result.error).toBeUndefined();
			expect(result.json.length).toBeGreaterThan(0);
			expect(apiRequests(sandbox).map((entry) => entry.status)).toEqual([
				status,
				status,
				status,
				200,
			]);
		} finally {
			sandbox.configure({ faults: {} });
		}
	});
});

describe('a genuine 500', () => {
	it('keeps its counted retries and its message', async () => {
		sandbox.configure({ faults: { errorRate: 1 } });
		try {
			const result = await runVoucher(sandbox, countries);

			expect(result.error?.message).toBe('The voucher service had an internal error (HTTP 500)');
			expect(apiRequests(sandbox)).toHaveLength(2);
		} finally {
			sandbox.configure({ faults: {} });
		}
	});
});
