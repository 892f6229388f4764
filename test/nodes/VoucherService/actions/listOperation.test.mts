/**
 * Wallet, Country and Template → Get Many against answers the spec does not give: a `data`
 * that is not a list of objects is an error naming the item and what came back, in shape
 * only, never taken for an empty list.
 */
import { describe, expect, it } from 'vitest';

import {
	cannedServiceForThisFile,
	NO_DATA,
	runVoucher,
	sandboxForThisFile,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();
const canned = await cannedServiceForThisFile();

/** Would be a secret in a real answer: it must never reach an error. */
const MARKER = 'sk_live_echoed';

const RESOURCES = ['wallet', 'country', 'template'];

/** [what the service sends as data, how the error describes it]. */
const NOT_LISTS: Array<[string, unknown, string]> = [
	[
		'a paged object',
		{ items: [{ id: 1 }], total: 1, [MARKER]: MARKER },
		'an object (fields: items, total, …)',
	],
	['null', null, 'null'],
	['no data', NO_DATA, 'missing'],
	['text', MARKER, 'text'],
	['a number', 3, 'a number'],
	['true', true, 'true or false'],
];

const getMany = (resource: string) => ({ resource, operation: 'getAll' });

describe('Get Many: data that is not a list', () => {
	it.each(RESOURCES.flatMap((resource) => NOT_LISTS.map((row) => [resource, ...row] as const)))(
		'%s, %s: an error naming the item and the shape, not zero items',
		async (resource, _what, data, shape) => {
			canned.answerWith(data);
			const run = await runVoucher(sandbox, getMany(resource), {
				items: [{}, {}],
				credential: { baseUrl: canned.url },
			});
			expect(run.error?.message).toBe(
				`Item 0: the voucher service's ${resource} list is not a list: its data is ${shape}`,
			);
			expect(run.json).toEqual([]);
			expect(`${run.error?.message} ${run.error?.description}`).not.toContain(MARKER);
		},
	);

	it('under continueOnFail: one error item per input item, paired', async () => {
		canned.answerWith({ countries: [] });
		const run = await runVoucher(sandbox, getMany('country'), {
			items: [{}, {}],
			credential: { baseUrl: canned.url },
			continueOnFail: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.main.map((item) => [item.json.error, item.pairedItem])).toEqual([
			[
				"Item 0: the voucher service's country list is not a list: its data is an object (fields: countries)",
				{ item: 0 },
			],
			[
				"Item 1: the voucher service's country list is not a list: its data is an object (fields: countries)",
				{ item: 1 },
			],
		]);
	});
});

describe('Get Many: a list whose elements are not objects', () => {
	it('names the first element that is not an object, by its place', async () => {
		canned.answerWith([{ code: 'NG', name: 'Nigeria' }, 'GH', null]);
		const run = await runVoucher(sandbox, getMany('country'), {
			credential: { baseUrl: canned.url },
		});
		expect(run.error?.message).toBe(
			"Item 0: the voucher service's country list is not a list of objects: element 2 is text",
		);
	});
});

describe('Get Many: lists as the spec gives them', () => {
	it('an empty list is zero items, without an error', async () => {
		canned.answerWith([]);
		const run = await runVoucher(sandbox, getMany('template'), {
			credential: { baseUrl: canned.url },
		});
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([]);
	});

	it("each element of the sandbox's list is one item, paired", async () => {
		const run = await runVoucher(sandbox, getMany('wallet'));
		expect(run.error).toBeUndefined();
		expect(run.json.map((wallet) => wallet.currency)).toEqual(['NGN', 'USD']);
		for (const item of run.main) expect(item.pairedItem).toEqual({ item: 0 });
	});
});
