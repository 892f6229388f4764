/**
 * Service → Check behind a gateway that says "not now" (nginx's limit_req refuses with 503 and
 * an HTML page, no Retry-After): someone waits for the check, so it gives up after the short
 * patience and reports what it saw, and counts a gateway's refusals as it counts 429s.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { CheckItem } from '../../../../nodes/VoucherService/serviceCheck/types';
import { apiRequests, runVoucher, sandboxForThisFile } from '../voucherNodeRunner.mts';

// Both patiences cut to a test's length, the short one still shorter: each message names its own.
// The short one still outlasts three refusals before any admission: the pacing's probes after
// them go out about 1, 2.6 and 5.2 s after the first (pacingActions.ts).
vi.mock('../../../../nodes/VoucherService/transport/retry', async (original) => ({
	...(await original<typeof import('../../../../nodes/VoucherService/transport/retry')>()),
	REFUSAL_PATIENCE_MS: 12_000,
	INTERACTIVE_PATIENCE_MS: 8_000,
}));

const sandbox = await sandboxForThisFile();
afterEach(() => sandbox.configure({ faults: {} }));

async function runCheck() {
	const run = await runVoucher(sandbox, { resource: 'service', operation: 'check' });
	expect(run.error).toBeUndefined();
	return Object.fromEntries(run.json.map((item) => [item.check, item])) as Record<
		string,
		CheckItem
	>;
}

describe('Service → Check behind a gateway that refuses every request', () => {
	it('HTTP 503: the keys check fails after the short patience, saying so; the rest not tried', async () => {
		sandbox.configure({ faults: { gateway: { status: 503 } } });
		const byName = await runCheck();

		const refused = apiRequests(sandbox);
		expect(refused.length).toBeGreaterThan(1);
		expect(refused.every((entry) => entry.status === 503)).toBe(true);
		expect(byName['Keys and base URL']).toMatchObject({ result: 'failed' });
		expect(byName['Keys and base URL'].seen).toContain(
			'the voucher service (or a gateway in front of it) refused every request for 8 seconds (HTTP 503, unavailable)',
		);
		expect(byName['Keys and base URL'].whatThePackageDoes).toContain(
			'for up to 12 seconds without an admission (8 seconds for this check and the Template dropdown)',
		);
		for (const name of ['NGN wallet', 'Unknown order', 'Templates', 'Countries'])
			expect(byName[name].seen, name).toMatch(/^Not tried/);
		expect(byName['Rate limits']).toMatchObject({ result: 'warning' });
		expect(byName['Rate limits'].seen).toMatch(
			new RegExp(
				`^${refused.length} of ${refused.length} answers were refusals: ${refused.length} HTTP 503\\.`,
			),
		);
		expect(byName['Error bodies']).toMatchObject({ result: 'ok' });
	});
});

describe('Service → Check behind a gateway that refuses a few requests', () => {
	it.each([502, 503, 504] as const)(
		'HTTP %i three times: every read answered, the refusals counted as rate limits',
		async (status) => {
			sandbox.configure({ faults: { gateway: { status, count: 3 } } });
			const byName = await runCheck();

			for (const name of ['Keys and base URL', 'NGN wallet', 'Unknown order', 'Templates'])
				expect(byName[name].result, `${name}: ${byName[name].seen}`).toBe('ok');
			expect(byName['Rate limits']).toMatchObject({ result: 'warning' });
			expect(byName['Rate limits'].seen).toMatch(
				new RegExp(
					`^3 of ${apiRequests(sandbox).length} answers were refusals: 3 HTTP ${status}\\. No rate-limit header`,
				),
			);
			expect(byName['Rate limits'].whatThePackageDoes).toMatch(
				/^Slows down when the service refuses \(429; a gateway's 502, 503 or 504 is paced the same\)/,
			);
		},
	);
});
