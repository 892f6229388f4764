/** A campaign's dry run shows each row's amount in Naira, as entered, though rows hold kobo. */
import { describe, expect, it } from 'vitest';

import { campaignParameters } from '../../campaignParameters.mts';
import { runVoucher, sandboxForThisFile, uniqueReference } from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile({}, { resetBeforeEach: false });

const person = (i: number, amount: number) => ({
	firstName: `F${i}`,
	lastName: `L${i}`,
	email: `p${i}@example.com`,
	amount,
});

describe('Dry Run of a campaign', () => {
	it('shows the amount of rows it would buy and of rows already held', async () => {
		const base = uniqueReference('dry');
		const parameters = (dryRun: boolean) =>
			campaignParameters(base, { dryRun }, { amount: '={{ $json.amount }}' });
		await runVoucher(sandbox, parameters(false), { items: [person(0, 19.99)] });
		const rows = [person(0, 19.99), person(1, 0.1), person(2, 1234567.89)];
		const run = await runVoucher(sandbox, parameters(true), { items: rows });
		expect(run.json.map(({ amount, wouldBuy }) => [amount, wouldBuy])).toEqual([
			[19.99, false],
			[0.1, true],
			[1234567.89, true],
		]);
	});
});
