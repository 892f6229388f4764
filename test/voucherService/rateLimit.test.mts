import { describe, expect, it } from 'vitest';

import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from './voucherNodeRunner.mts';

/*
 * The service publishes no rate limit, so the node has to find one. The sandbox answers
 * 429 (Retry-After: 1) over PER_SECOND requests per second; a 2,000-row run at the
 * default Maximum Concurrency must back off and still place every order exactly once.
 */
const PER_SECOND = 100;
const ROWS = 2000;

const sandbox = await sandboxForThisFile({ rateLimitPerSecond: PER_SECOND });

describe('adaptive concurrency against a rate-limited service', () => {
	it(
		`places ${ROWS} orders with no failed row, backing off on 429`,
		{ timeout: 180_000 },
		async () => {
			const prefix = uniqueReference('rate');
			const items = Array.from({ length: ROWS }, (_, i) => ({ reference: `${prefix}-${i}` }));
			const started = performance.now();
			const result = await runVoucher(
				sandbox,
				{
					resource: 'order',
					operation: 'create',
					reference: '={{ $json.reference }}',
					productCode: 'VCH-INSTANT',
					amount: 100,
					quantity: 1,
				},
				{ items },
			);
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
});
