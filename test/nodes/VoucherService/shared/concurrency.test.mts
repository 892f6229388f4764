/**
 * Maximum Concurrency out of its range (1 to 32, whole) is an error naming the item and the
 * option, before anything is sent: never cut to the nearest value without a word.
 */
import { describe, expect, it } from 'vitest';
import type { INodeParameters } from 'n8n-workflow';

import { campaignParameters } from '../campaignParameters.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

const MESSAGE = 'Item 0: the option "Maximum Concurrency" must be a whole number from 1 to 32';

const create = (concurrency: unknown): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference: uniqueReference('conc'),
	productCode: 'VCH-INSTANT',
	amount: 1000,
	quantity: 1,
	options: { concurrency: concurrency as INodeParameters[string] },
});

const getStatus = (concurrency: unknown): INodeParameters => ({
	resource: 'voucher',
	operation: 'getStatus',
	voucherCode: 'SBX-ACTIVE-0001',
	options: { concurrency: concurrency as INodeParameters[string] },
});

describe('Maximum Concurrency out of range', () => {
	it.each([
		['0', 0, '"0"'],
		['33', 33, '"33"'],
		['2.5', 2.5, '"2.5"'],
		['-1', -1, '"-1"'],
		['100 from an expression', '={{ 100 }}', '"100"'],
		['text', '={{ "many" }}', '"many"'],
	])('%s on Create: an error naming the option, nothing sent', async (_what, value, shown) => {
		const run = await runVoucher(sandbox, create(value), { items: [{}, {}] });
		expect(run.error?.message).toBe(MESSAGE);
		expect(run.error?.description).toBe(`It is ${shown}. Nothing was sent.`);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('33 on Get Status: the same error, nothing read', async () => {
		const run = await runVoucher(sandbox, getStatus(33));
		expect(run.error?.message).toBe(MESSAGE);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('64 on a campaign: the same error, nothing sent', async () => {
		const run = await runVoucher(
			sandbox,
			campaignParameters(uniqueReference('conc-campaign'), { concurrency: '={{ 64 }}' }),
			{ items: [{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' }] },
		);
		expect(run.error?.message).toBe(MESSAGE);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});
});

describe('Maximum Concurrency in range', () => {
	it.each([
		['1', 1],
		['32', 32],
		['"8" from an expression', '={{ "8" }}'],
		['not set', undefined],
	])('%s: the run goes on', async (_what, value) => {
		const run = await runVoucher(sandbox, getStatus(value), { items: [{}, {}] });
		expect(run.error).toBeUndefined();
		expect(run.json.map((item) => item.status)).toEqual(['ACTIVE', 'ACTIVE']);
	});
});
