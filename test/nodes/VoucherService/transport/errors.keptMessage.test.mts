/**
 * n8n's error classes replace any message holding a Node.js error code (in any case) with
 * canned text. References here hold one each: "preexisting" holds EEXIST, "keeperman" EPERM,
 * "x-enoent" ENOENT. Every error must still name the item and the Reference.
 */
import type { INode } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { asNodeError, operationError } from '../../../../nodes/VoucherService/transport/errors';
import { atAmount, campaignSandboxForThisFile, sheet } from '../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../voucherNodeRunner.mts';

const { sandbox, runCampaign } = await campaignSandboxForThisFile();

/** Create, with Reference and Product Code read from each item. */
const create = (options = {}) => ({
	resource: 'order',
	operation: 'create',
	reference: '={{ $json.reference }}',
	productCode: '={{ $json.productCode }}',
	amount: 1000,
	quantity: 1,
	options,
});

/** A product the sandbox does not sell: the service refuses the create with code 05. */
const UNSOLD = 'VCH-NOPE';

describe('bad input, refused before sending', () => {
	it('a Reference shared by two items: refused, naming both items and the Reference; nothing sent', async () => {
		const reference = uniqueReference('preexisting');
		const item = { reference, productCode: 'VCH-INSTANT' };
		const run = await runVoucher(sandbox, create(), { items: [item, item] });
		expect(run.error?.message).toBe(
			`Item 1: reference "${reference}" is already used by item 0 of this run`,
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});

	it('a recipient column that is not in the input: named, nothing sent', async () => {
		const run = await runCampaign(
			uniqueReference('camp'),
			sheet(2),
			{},
			{
				extra: { emailField: 'x-enoent' },
			},
		);
		expect(run.posts + run.gets + run.walletReads).toBe(0);
		expect(run.error?.message).toBe('Item 0: column "x-enoent" not found in the input item');
	});
});

describe('the service refuses, or the order exists', () => {
	it('a refused create names the item and the Reference', async () => {
		const reference = uniqueReference('keeperman');
		const run = await runVoucher(sandbox, create(), {
			items: [{ reference, productCode: UNSOLD }],
		});
		expect(run.error?.message).toBe(
			`Item 0: the voucher service refused order "${reference}": Unknown product: ${UNSOLD} (code 05)`,
		);
	});

	it('If Reference Exists → Fail: "already exists", naming the item and the Reference', async () => {
		const reference = uniqueReference('preexisting');
		const items = [{ reference, productCode: 'VCH-INSTANT' }];
		expect((await runVoucher(sandbox, create(), { items })).error).toBeUndefined();
		const run = await runVoucher(sandbox, create({ ifReferenceExists: 'fail' }), { items });
		expect(run.error?.message).toBe(
			`Item 0: an order with reference "${reference}" already exists`,
		);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
	});

	it('Order → Get of a Reference the service does not know', async () => {
		const reference = uniqueReference('x-enoent');
		const run = await runVoucher(sandbox, { resource: 'order', operation: 'get', reference });
		expect(run.error?.message).toBe(`Order ${reference} not found`);
	});
});

describe('continueOnFail: the error items say the same', () => {
	it('Create: the refused item’s json.error names it and its Reference; the other is bought', async () => {
		const bought = uniqueReference('preexisting');
		const refused = uniqueReference('keeperman');
		const run = await runVoucher(sandbox, create(), {
			items: [
				{ reference: bought, productCode: 'VCH-INSTANT' },
				{ reference: refused, productCode: UNSOLD },
			],
			continueOnFail: true,
		});
		expect(run.json[0]).toMatchObject({ reference: bought, status: 'COMPLETED' });
		expect(run.json[1].error).toBe(
			`Item 1: the voucher service refused order "${refused}": Unknown product: ${UNSOLD} (code 05)`,
		);
	});

	it("Campaign: every row of a refused order names its item and the order's Reference", async () => {
		const base = uniqueReference('keeperman');
		const run = await runCampaign(
			base,
			atAmount(sheet(2), 1000),
			{},
			{
				continueOnFail: true,
				extra: { productCode: UNSOLD },
			},
		);
		expect(run.json.map((json) => json.error)).toEqual(
			[0, 1].map(
				(item) =>
					`Item ${item}: not bought: order ${base}-1 failed: the voucher service refused order "${base}-1": Unknown product: ${UNSOLD} (code 05)`,
			),
		);
	});
});

describe('only our messages are kept', () => {
	const node: INode = {
		id: '1',
		name: 'Voucher Service',
		type: 'n8n-nodes-voucher-service.voucherService',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};

	it('a raw socket error keeps n8n’s plain words', () => {
		const raw = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
			code: 'ECONNREFUSED',
		});
		expect(asNodeError(node, raw).message).toBe(
			'The service refused the connection - perhaps it is offline',
		);
	});

	it('ours is kept, and not listed again as a former message', () => {
		const message = 'Item 0: order "preexisting-1" was not bought';
		const error = operationError(node, message, { itemIndex: 0 });
		expect(error.message).toBe(message);
		expect(error.messages).toEqual([]);
	});
});
