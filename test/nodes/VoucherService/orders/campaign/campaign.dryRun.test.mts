/**
 * Dry Run: what it reports is what the real run then buys and spends.
 */
import { describe, expect, it } from 'vitest';

import { campaignSandboxForThisFile, hints, sheet } from '../../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, expectEveryRowHeldOnce } = await campaignSandboxForThisFile();

describe('Dry Run', () => {
	it('sends no create, and its totals equal what the real run then spends, to the kobo', async () => {
		const base = uniqueReference('dry');
		const rows = sheet(30).map((row, i) => ({ ...row, amount: i % 2 ? 1234.56 : 0.1 }));
		await runCampaign(base, rows.slice(0, 10), { recipientsPerOrder: 4 });
		const dry = await runCampaign(base, rows, { recipientsPerOrder: 4, dryRun: true });
		expect(dry.posts).toBe(0);
		expect(dry.json.slice(0, 10).every((row) => row.dryRun && row.wouldBuy === false)).toBe(true);
		dry.json.slice(10).forEach((row, i) => {
			expect(row).toMatchObject({ dryRun: true, wouldBuy: true, amount: rows[10 + i].amount });
			expect(row.reference).toMatch(new RegExp(`^${base}-\\d+$`));
		});
		const [hint] = hints(dry);
		const match = /buy 20 vouchers in (\d+) new orders for NGN ([\d,]+\.\d\d)/.exec(
			hint?.message ?? '',
		);
		expect(match, hint?.message).not.toBeNull();

		const spentBefore = sandbox.state.ledger.at(-1)!.balanceAfterKobo;
		const real = await runCampaign(base, rows, { recipientsPerOrder: 4 });
		const spentKobo = spentBefore - sandbox.state.ledger.at(-1)!.balanceAfterKobo;
		expect(spentKobo).toBe(Number(match![2].replace(/[,.]/g, '')));
		expect(real.posts).toBe(Number(match![1]));
		// Each row would have gone to the reference the dry run named.
		real.json.slice(10).forEach((row, i) => expect(row.reference).toBe(dry.json[10 + i].reference));
		expectEveryRowHeldOnce(base, rows);
	});

	it('on Create: looks the reference up, sends no create, and totals the new orders', async () => {
		const existing = uniqueReference('dry-one');
		await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference: existing,
			productCode: 'VCH-INSTANT',
			amount: 5,
			quantity: 1,
		});
		const fresh = uniqueReference('dry-two');
		const dry = await runVoucher(
			sandbox,
			{
				resource: 'order',
				operation: 'create',
				reference: '={{ $json.ref }}',
				productCode: 'VCH-INSTANT',
				amount: '={{ $json.amount }}',
				quantity: '={{ $json.quantity }}',
				options: { dryRun: true },
			},
			{
				items: [
					{ ref: existing, amount: 5, quantity: 1 },
					{ ref: fresh, amount: 2.5, quantity: 3 },
				],
			},
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
		expect(dry.json).toEqual([
			expect.objectContaining({
				dryRun: true,
				wouldBuy: false,
				alreadyExisted: true,
				reference: existing,
			}),
			expect.objectContaining({
				dryRun: true,
				wouldBuy: true,
				reference: fresh,
				amount: 2.5,
				vouchers: 3,
			}),
		]);
		expect(hints(dry)[0].message).toMatch(/buy 3 vouchers in 1 new order for NGN 7\.50/);
	});
});
