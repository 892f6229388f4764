/**
 * Options and columns a campaign cannot use: an error naming the item and the option or
 * column, and nothing sent.
 */
import { describe, expect, it } from 'vitest';

import {
	campaignSandboxForThisFile,
	DISCOVERY_MISSES,
	PROCESSING_DELAY_MS,
	sheet,
} from '../../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign } = await campaignSandboxForThisFile();

describe('options given by expressions are checked, and errors name them', () => {
	it('Recipients per Order that is not a number: an error naming the option, nothing sent', async () => {
		const run = await runCampaign(uniqueReference('per-nan'), sheet(3), {
			recipientsPerOrder: '={{ "ten" }}',
		});
		expect(run.posts).toBe(0);
		// Today: "Cannot read properties of undefined (reading 'itemIndex')".
		expect(run.error?.message).toMatch(/Recipients per Order/);
	});

	it('Wait Timeout that is not a number: an error naming the option, not a poll loop without pause', async () => {
		const base = uniqueReference('wait-nan');
		const slow = { extra: { productCode: 'VCH-SLOW-COMPLETED' } };
		// The earlier orders stay PROCESSING until the test is done, however slow the machine.
		sandbox.configure({ processingDelayMs: 600_000 });
		try {
			await runCampaign(base, sheet(2), {}, slow);
			// NaN ms would mean no pause between polls: this run would send Get Order again and
			// again while they are PROCESSING.
			const run = await runCampaign(base, sheet(2), { waitTimeoutSeconds: '={{ "2 min" }}' }, slow);
			expect(run.gets).toBeLessThan(DISCOVERY_MISSES + 10);
			expect(run.error?.message).toMatch(/Wait Timeout/);
		} finally {
			sandbox.configure({ processingDelayMs: PROCESSING_DELAY_MS });
		}
	});
});

describe('options that are not whole or positive numbers', () => {
	it.each([0, 2.5, -1])(
		'Recipients per Order %s: an error naming it, nothing sent',
		async (value) => {
			const run = await runCampaign(uniqueReference('per-bad'), sheet(2), {
				recipientsPerOrder: value,
			});
			expect(run.posts + run.gets + run.walletReads).toBe(0);
			expect(run.error?.message).toBe(
				'Item 0: the option "Recipients per Order" must be a whole number of 1 or more',
			);
		},
	);

	it('Wait Timeout 0 on Create: an error naming the item and the option, nothing sent', async () => {
		const run = await runVoucher(
			sandbox,
			{
				resource: 'order',
				operation: 'create',
				reference: '={{ $json.reference }}',
				productCode: 'VCH-SLOW-COMPLETED',
				amount: 1000,
				quantity: 1,
				options: { waitForCompletion: true, waitTimeoutSeconds: '={{ $json.wait }}' },
			},
			{
				items: [
					{ reference: uniqueReference('wait-ok'), wait: 5 },
					{ reference: uniqueReference('wait-0'), wait: 0 },
				],
			},
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
		expect(run.error?.message).toBe(
			'Item 1: the option "Wait Timeout (Seconds)" must be a number of 1 or more',
		);
	});
});

describe('a recipient column that is not in the input', () => {
	it('Item 3: column "E-mail" not found in the input item, and nothing is sent', async () => {
		const rows = sheet(4).map(({ email, ...rest }, index) =>
			index === 3 ? rest : { ...rest, 'E-mail': email },
		);
		const run = await runCampaign(
			uniqueReference('column'),
			rows,
			{},
			{
				extra: { emailField: 'E-mail' },
			},
		);
		expect(run.posts + run.gets + run.walletReads).toBe(0);
		expect(run.error?.message).toBe('Item 3: column "E-mail" not found in the input item');
		expect(run.error?.description).toMatch(
			/"Email Column" names it\. The item's columns are: firstName, lastName, amount\./,
		);
	});
});
