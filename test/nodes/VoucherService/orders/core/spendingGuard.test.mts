/**
 * The spending guard (Maximum Order Total, the node's and the credential's) fails closed, reads
 * its limits strictly, and applies to each order of a campaign.
 */
import { describe, expect, it } from 'vitest';

import { campaignSandboxForThisFile, atAmount, hints, sheet } from '../../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, expectEveryRowHeldOnce } = await campaignSandboxForThisFile();

describe('the spending guard fails closed', () => {
	it('a Maximum Order Total that is not a number (an expression giving "5,000") refuses, it does not turn the guard off', async () => {
		// 3 × 2,000 = 6,000 NGN in one order, above the 5,000 the user meant.
		const run = await runCampaign(uniqueReference('guard-node'), atAmount(sheet(3), 2000), {
			maxOrderTotal: '={{ "5,000" }}',
		});
		expect(run.posts).toBe(0);
		expect(run.error?.message).toMatch(/Maximum Order Total/);
	});

	it('the same on Create', async () => {
		const run = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference: uniqueReference('guard-create'),
			productCode: 'VCH-INSTANT',
			amount: 2000,
			quantity: 3,
			options: { maxOrderTotal: '={{ "NGN 5000" }}' },
		});
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
		expect(run.error?.message).toMatch(/Maximum Order Total/);
	});

	it("a credential limit that is not a number refuses too, whatever the node's limit", async () => {
		// A credential field filled from an expression or a variable that is not set right.
		const run = await runCampaign(
			uniqueReference('guard-cred'),
			atAmount(sheet(3), 2000),
			{},
			{ credential: { maxOrderTotal: '5,000' as unknown as number } },
		);
		expect(run.posts).toBe(0);
		expect(run.error).toBeDefined();
	});
});

const hintOf = (run: Awaited<ReturnType<typeof runVoucher>>) => hints(run)[0]?.message;

describe('spending limits, read strictly', () => {
	it("names the credential's limit when that is the one that is not a number, and sends nothing", async () => {
		const run = await runCampaign(
			uniqueReference('guard-named'),
			sheet(2),
			{ maxOrderTotal: 100_000 },
			{ credential: { maxOrderTotal: 'NGN 5000' as unknown as number } },
		);
		expect(run.posts + run.gets + run.walletReads).toBe(0);
		expect(run.error?.message).toBe(
			`Item 0: the credential's "Maximum Order Total (NGN)" is not a number of 0 or more`,
		);
	});

	it('takes numeric text as a limit, and only empty or 0 as no limit', async () => {
		const rows = atAmount(sheet(3), 2000);
		const limited = await runCampaign(uniqueReference('guard-text'), rows, {
			maxOrderTotal: '={{ "5000" }}',
		});
		expect(limited.posts).toBe(0);
		expect(limited.error?.message).toMatch(
			/^Item 0: not bought: order .*-1 of 3 recipients would be refused: order total NGN 6,000\.00 is above the maximum order total of NGN 5,000\.00/,
		);
		const unlimited = await runCampaign(
			uniqueReference('guard-empty'),
			rows,
			{ maxOrderTotal: '={{ "" }}' },
			{ credential: { maxOrderTotal: 0 } },
		);
		expect(unlimited.error).toBeUndefined();
		expect(unlimited.posts).toBe(1);
	});

	it('applies Maximum Order Total to each order of a campaign, not to the campaign', async () => {
		// Two orders of 2 × 1,000 NGN: each within 2,000, together 4,000 (Dry Run shows that total).
		const base = uniqueReference('guard-per-order');
		const rows = atAmount(sheet(4), 1000);
		const options = { maxOrderTotal: 2000, recipientsPerOrder: 2 };
		const dry = await runCampaign(base, rows, { ...options, dryRun: true });
		expect(hintOf(dry)).toMatch(/buy 4 vouchers in 2 new orders for NGN 4,000\.00/);
		const run = await runCampaign(base, rows, options);
		expect(run.error).toBeUndefined();
		expect(run.posts).toBe(2);
		expectEveryRowHeldOnce(base, rows);
	});
});
