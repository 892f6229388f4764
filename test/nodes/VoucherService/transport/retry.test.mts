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
	REFUSAL_PATIENCE_MS: 1_500,
}));

const sandbox = await sandboxForThisFile();

const create = (reference: string) => ({
	resource: 'order',
	operation: 'create',
	reference,
	productCode: 'VCH-INSTANT',
	amount: 100,
	quantity: 1,
});

const refusedForThePatience = (status: string) =>
	new RegExp(
		`the voucher service \\(or a gateway in front of it\\) refused every request for 1.5 seconds \\(HTTP ${status}\\)$`,
		'i',
	);

const safeToRunAgain = /the row is safe to run again with the same Reference/;

describe('a service that never stops refusing with 429', () => {
	const limited = () => sandbox.configure({ faults: { rateLimitRate: 1, retryAfterSeconds: 0 } });

	it('gives up after the patience: the row says nothing was bought and is safe to re-run', async () => {
		limited();
		const reference = uniqueReference('patience');
		const result = await runVoucher(sandbox, create(reference));

		expect(result.error?.message).toMatch(
			new RegExp(`^Item 0: order "${reference}" was not bought: `),
		);
		expect(result.error?.message).toMatch(refusedForThePatience('429, rate limited'));
		expect(result.error?.description).toMatch(/HTTP 429 is not processed/);
		expect(result.error?.description).toMatch(safeToRunAgain);
		// Resent all along (no attempt budget), never looked up: a 429 leaves nothing unknown.
		const requests = apiRequests(sandbox);
		expect(requests.length).toBeGreaterThan(2);
		expect(requests.every((entry) => entry.method === 'POST' && entry.status === 429)).toBe(true);
		expect(sandbox.state.orders.size).toBe(0);
	});

	it('gives up a read the same way, with the service’s refusal named', async () => {
		limited();
		const result = await runVoucher(sandbox, { resource: 'wallet', operation: 'getAll' });
		expect(result.error?.message).toMatch(refusedForThePatience('429, rate limited'));
	});
});

describe('a gateway that answers 503 for longer than the patience', () => {
	it('to every create, while reads pass: each refusal looked up, then "not bought", never sent forever', async () => {
		sandbox.configure({ faults: { gateway: { status: 503, method: 'POST' } } });
		const reference = uniqueReference('down-503');
		const result = await runVoucher(sandbox, create(reference));

		expect(result.error?.message).toMatch(
			new RegExp(`^Item 0: order "${reference}" was not bought: `),
		);
		expect(result.error?.message).toMatch(refusedForThePatience('503, unavailable'));
		expect(result.error?.description).toMatch(/A look-up found no order under this Reference/);
		expect(result.error?.description).toMatch(safeToRunAgain);
		const posts = apiRequests(sandbox, 'POST');
		expect(posts.length).toBeGreaterThan(1);
		expect(apiRequests(sandbox, 'GET').length).toBe(posts.length);
		expect(sandbox.state.orders.size).toBe(0);
	});

	it('to everything: the outcome of the first create is unknown, and the message says why', async () => {
		sandbox.configure({ faults: { gateway: { status: 503 } } });
		const reference = uniqueReference('all-503');
		const result = await runVoucher(sandbox, create(reference));

		expect(result.error?.message).toMatch(
			new RegExp(`^Item 0: whether order "${reference}" was bought is unknown: `),
		);
		expect(result.error?.message).toMatch(refusedForThePatience('503, unavailable'));
		expect(result.error?.message).not.toMatch(/internal error/);
		expect(result.error?.description).toMatch(/Run the workflow again with the same Reference/);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
	});

	it('to a read: it fails saying so, never "internal error"', async () => {
		sandbox.configure({ faults: { gateway: { status: 503 } } });
		const result = await runVoucher(sandbox, { resource: 'wallet', operation: 'getAll' });
		expect(result.error?.message).toMatch(refusedForThePatience('503, unavailable'));
	});
});
