import { beforeEach, describe, expect, it } from 'vitest';

import { campaignParameters } from '../campaignParameters.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../voucherNodeRunner.mts';

/*
 * The service publishes no rate limit, so the node has to find one. The sandbox answers
 * 429 (Retry-After: 1) over PER_SECOND requests per second; a 2,000-row run at the
 * default Maximum Concurrency must back off and still place every order exactly once.
 */
const PER_SECOND = 100;
const ROWS = 2000;

const sandbox = await sandboxForThisFile({ rateLimitPerSecond: PER_SECOND });
beforeEach(() => sandbox.configure({ rateLimit: null, acceptDuplicateReferences: false }));

const createEach = {
	resource: 'order',
	operation: 'create',
	reference: '={{ $json.reference }}',
	productCode: 'VCH-INSTANT',
	amount: 100,
	quantity: 1,
};
const rowsOf = (count: number, prefix: string) =>
	Array.from({ length: count }, (_, i) => ({ reference: `${prefix}-${i}` }));
const debits = () => sandbox.state.ledger.filter((entry) => entry.kind === 'debit');

describe('adaptive concurrency against a rate-limited service', () => {
	it(
		`places ${ROWS} orders with no failed row, backing off on 429`,
		{ timeout: 180_000 },
		async () => {
			const prefix = uniqueReference('rate');
			const items = rowsOf(ROWS, prefix);
			const started = performance.now();
			const result = await runVoucher(sandbox, createEach, { items });
			const seconds = (performance.now() - started) / 1000;

			expect(result.error).toBeUndefined();
			expect(result.json).toHaveLength(ROWS);
			expect(result.json.filter((json) => json.error)).toEqual([]);
			expect(new Set(result.json.map((json) => json.reference)).size).toBe(ROWS);
			expect(sandbox.state.orders.size).toBe(ROWS);

			const requests = apiRequests(sandbox);
			const refused = requests.filter((entry) => entry.status === 429).length;
			const accepted = requests.length - refused;
			expect(refused).toBeGreaterThan(0);
			// The token bucket admits at most one second's burst above the rate.
			expect(accepted).toBeLessThanOrEqual(PER_SECOND * (seconds + 1));
			// Backing off must not collapse the pace: well above a quarter of the limit.
			expect(accepted / seconds).toBeGreaterThan(PER_SECOND / 4);
		},
	);

	it('resends a refused create without a look-up, and buys each row once from a service that accepts a used Reference', async () => {
		sandbox.configure({
			rateLimit: { kind: 'fixedWindow', requests: 10, seconds: 1, signal: 'none' },
			acceptDuplicateReferences: true,
		});
		const items = rowsOf(30, uniqueReference('window'));
		const result = await runVoucher(sandbox, createEach, { items, continueOnFail: true });

		expect(result.json.filter((json) => json.error)).toEqual([]);
		expect(result.json.map((json) => json.reference)).toEqual(items.map((item) => item.reference));
		// A 429 is refused before processing: no look-up is paid for it, and nothing is bought twice.
		expect(apiRequests(sandbox, 'GET')).toEqual([]);
		expect(apiRequests(sandbox).some((entry) => entry.status === 429)).toBe(true);
		expect(
			debits()
				.map((entry) => entry.reference)
				.sort(),
		).toEqual(items.map((item) => item.reference).sort());
	});

	it('paces a campaign: its look-ups and creates share one pace, none of them fails', async () => {
		sandbox.configure({
			rateLimit: { kind: 'fixedWindow', requests: 20, seconds: 1, signal: 'xRateLimit' },
		});
		const base = uniqueReference('camp');
		const rows = Array.from({ length: 30 }, (_, i) => ({
			firstName: `First${i}`,
			lastName: `Last${i}`,
			email: `row${i}@example.com`,
		}));
		const result = await runVoucher(sandbox, campaignParameters(base, { recipientsPerOrder: 1 }), {
			items: rows,
			continueOnFail: true,
		});

		expect(result.json.filter((json) => json.error)).toEqual([]);
		expect(debits()).toHaveLength(30);
		const requests = apiRequests(sandbox);
		// Reset and Remaining are on every answer: after the opening request, nothing is refused.
		expect(requests.filter((entry) => entry.status === 429)).toEqual([]);
		expect(requests.length).toBeGreaterThan(60); // the wallet, 32 look-ups, 30 creates
	});

	it('paces two executions at once on one account as one: a window that tells what it has left is spent once, none refused', async () => {
		sandbox.configure({
			rateLimit: { kind: 'fixedWindow', requests: 20, seconds: 1, signal: 'xRateLimit' },
		});
		const runs = await Promise.all(
			['a', 'b'].map((run) =>
				runVoucher(sandbox, createEach, { items: rowsOf(40, uniqueReference(run)) }),
			),
		);

		for (const run of runs) expect(run.json.filter((json) => json.error)).toEqual([]);
		expect(debits()).toHaveLength(80);
		// Each pacing apart spent what the window told it had left, and so did the other.
		expect(apiRequests(sandbox).filter((entry) => entry.status === 429)).toEqual([]);
	});
});
