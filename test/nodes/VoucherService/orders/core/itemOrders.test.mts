/** A dry run shows each order's amount in Naira, as entered, though the order holds it in kobo. */
import { describe, expect, it } from 'vitest';
import type { INodeParameters } from 'n8n-workflow';

import { runVoucher, sandboxForThisFile, uniqueReference } from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile({}, { resetBeforeEach: false });

const create = (reference: string, amount: number, dryRun: boolean): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference,
	productCode: 'VCH-INSTANT',
	amount,
	quantity: 3,
	options: { dryRun },
});

describe('Dry Run of Create', () => {
	it.each([19.99, 0.1, 90071992547409.9])('shows amount %s as entered', async (amount) => {
		const reference = uniqueReference('dry');
		const run = await runVoucher(sandbox, create(reference, amount, true));
		expect(run.json).toEqual([{ dryRun: true, reference, amount, vouchers: 3, wouldBuy: true }]);
	});

	it('shows it for an order that exists already too', async () => {
		const reference = uniqueReference('dry');
		await runVoucher(sandbox, create(reference, 19.99, false));
		const run = await runVoucher(sandbox, create(reference, 19.99, true));
		expect(run.json[0]).toMatchObject({ amount: 19.99, wouldBuy: false, alreadyExisted: true });
	});
});
