/**
 * Order → Get Campaign's Row IDs From and To, as the operation reads them per item: a bad
 * value, a missing end, a reversed range or one over the cap on blocks fails its item, naming
 * the item and the field, and nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';

import { GET_CAMPAIGN_BY_ROW_IDS } from '../../campaignRuns.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

/** Get Campaign over these items, each with its own base and Row IDs. */
async function report(items: IDataObject[], continueOnFail = false) {
	const before = apiRequests(sandbox).length;
	const result = await runVoucher(sandbox, GET_CAMPAIGN_BY_ROW_IDS, { items, continueOnFail });
	return { ...result, requests: apiRequests(sandbox).length - before };
}

const whole = (field: string, label: string, given: string) =>
	`invalid "${field}": ${label} must be a whole number of 0 or more, at most 30 digits, not ${given}`;

describe('Get Campaign refuses bad Row IDs before sending anything', () => {
	it.each([
		['From as text', { from: 'abc', to: 10 }, whole('rowIdsFrom', 'Row IDs From', '"abc"')],
		['To negative', { from: 0, to: -1 }, whole('rowIdsTo', 'Row IDs To', '-1')],
		['From a fraction', { from: 1.5, to: 10 }, whole('rowIdsFrom', 'Row IDs From', '1.5')],
		['To in words', { from: 0, to: 'ten' }, whole('rowIdsTo', 'Row IDs To', '"ten"')],
		// A number past 2^53 may already be another ID: a bigint comes as text, as for Row ID Column.
		[
			'To a bigint as a number',
			{ from: 0, to: 2 ** 53 },
			`invalid "rowIdsTo": Row IDs To was given the number ${2 ** 53}, past 2^53, whose digits were rounded before the node got them: give it as text to keep every digit`,
		],
		['From only', { from: 5 }, 'invalid "rowIdsTo": Row IDs To is required with Row IDs From'],
		['To only', { to: '5' }, 'invalid "rowIdsFrom": Row IDs From is required with Row IDs To'],
		[
			'From above To',
			{ from: 200, to: 100 },
			'invalid "rowIdsTo": Row IDs To (100) must not be below Row IDs From (200)',
		],
		[
			'From above To, as bigint text with leading zeros',
			{ from: '10000000000000000000', to: '0009999999999999999999' },
			'invalid "rowIdsTo": Row IDs To (9999999999999999999) must not be below Row IDs From (10000000000000000000)',
		],
		[
			'a range of more blocks than the cap',
			{ from: 0, to: 10 ** 15 },
			'invalid "rowIdsTo": Row IDs 0 to 1000000000000000 span 1,000,000,000,001 blocks of 1000 IDs, more than the 10,000 one item may read',
		],
	])('%s: the item fails, naming the field', async (_, range, message) => {
		const good = { base: uniqueReference('good'), from: 0, to: 99 };
		const bad = { base: uniqueReference('bad'), ...range };

		const strict = await report([good, bad]);
		expect(strict.error?.message).toBe(`Item 1: ${message}`);
		expect(strict.error?.description).toMatch(/Nothing was sent to the service\.$/);
		expect(strict.requests).toBe(0);

		// With continueOnFail, the good item is read (one block: a miss under its name and under
		// 0.3.0's, one for each of its ten blocks of 100), the bad one is its error.
		const lenient = await report([good, bad], true);
		expect(lenient.requests).toBe(11);
		expect(lenient.main).toHaveLength(1);
		expect(lenient.main[0].pairedItem).toEqual({ item: 1 });
		expect(String(lenient.json[0].error)).toBe(`Item 1: ${message}`);
	});

	it('blank Row IDs are not given: the campaign is reported as a whole sheet', async () => {
		const base = uniqueReference('blank');
		const run = await report([{ base, from: '', to: '  ' }, { base }]);
		expect(run.error).toBeUndefined();
		// Both items ask for the same whole-sheet campaign: read once, 32 misses.
		expect(run.requests).toBe(32);
	});
});
