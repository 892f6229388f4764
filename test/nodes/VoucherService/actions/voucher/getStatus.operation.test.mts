/**
 * Voucher → Get Status outputs the status record the spec documents, an object; any other
 * `data` is an error naming the item and what came back in shape only. The voucher code is
 * bearer value, so it is never in that error.
 */
import { describe, expect, it } from 'vitest';

import {
	cannedServiceForThisFile,
	NO_DATA,
	runVoucher,
	sandboxForThisFile,
} from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();
const canned = await cannedServiceForThisFile();

const CODE = 'SBX-ACTIVE-0001';
const getStatus = { resource: 'voucher', operation: 'getStatus', voucherCode: CODE };

describe('Get Status: data that is not an object', () => {
	it.each([
		['a list', [{ status: 'ACTIVE' }], 'a list'],
		['text', 'ACTIVE', 'text'],
		['null', null, 'null'],
		['no data', NO_DATA, 'missing'],
		['a number', 0, 'a number'],
	])('%s: an error naming the item and the shape, nothing output', async (_what, data, shape) => {
		canned.answerWith(data);
		const run = await runVoucher(sandbox, getStatus, { credential: { baseUrl: canned.url } });
		expect(run.error?.message).toBe(
			`Item 0: the voucher service's voucher status is not an object: its data is ${shape}`,
		);
		expect(run.json).toEqual([]);
		expect(`${run.error?.message} ${run.error?.description}`).not.toContain(CODE);
		expect(canned.requests.map((request) => request.path)).toEqual([`/v2/vouchers/status/${CODE}`]);
	});

	it('under continueOnFail: an error item paired with its item, and the next item still read', async () => {
		canned.answerWith(['ACTIVE']);
		const run = await runVoucher(sandbox, getStatus, {
			items: [{}, {}],
			credential: { baseUrl: canned.url },
			continueOnFail: true,
		});
		expect(run.main.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(run.json[1].error).toBe(
			"Item 1: the voucher service's voucher status is not an object: its data is a list",
		);
	});
});

describe('Get Status: the status record', () => {
	it('is output as the service sends it', async () => {
		const run = await runVoucher(sandbox, getStatus);
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([expect.objectContaining({ status: 'ACTIVE' })]);
	});
});
