/**
 * Serials past 2^53 in the service's answers, sent as bare JSON numbers (the sandbox's
 * `serials: 'long'`): the client reads the body as text and every long integer exactly, so
 * Create and Get Order output the voucher's own serial, as its digits. A serial that fits a
 * number stays one.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import {
	apiRequests,
	cannedServiceForThisFile,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile({ dialect: { serials: 'long' } });
const canned = await cannedServiceForThisFile();

const download = (reference: string): INodeParameters => ({
	resource: 'order',
	operation: 'create',
	reference,
	productCode: 'VCH-INSTANT',
	amount: 1000,
	quantity: 2,
});

const serialsIn = (json: IDataObject) =>
	(json.vouchers as IDataObject[]).map((voucher) => voucher.serial);

/** The books' serials of the order under `reference`, as the node should show them. */
const bookedSerials = (reference: string) =>
	sandbox.state.orders
		.get(reference)!
		.vouchers.map(({ serial }) => (typeof serial === 'bigint' ? String(serial) : serial));

describe('a serial past 2^53 in an answer', () => {
	it('Create and Get Order output every digit of it, as text', async () => {
		const reference = uniqueReference('long');
		const created = await runVoucher(sandbox, download(reference));
		expect(created.error).toBeUndefined();
		// The sandbox's first long serials: as doubles, both are 1234567890130000128.
		expect(serialsIn(created.json[0])).toEqual(['1234567890130000161', '1234567890130000162']);
		expect(serialsIn(created.json[0])).toEqual(bookedSerials(reference));

		const read = await runVoucher(sandbox, { resource: 'order', operation: 'get', reference });
		expect(read.error).toBeUndefined();
		expect(serialsIn(read.json[0])).toEqual(bookedSerials(reference));
	});

	it('Create for Recipients outputs each recipient its own serial', async () => {
		const reference = uniqueReference('long-rc');
		const created = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'createForRecipients',
			recipientsSource: 'manual',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 500,
			templateId: 1,
			recipients: {
				recipient: [
					{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' },
					{ firstName: 'Femi', lastName: 'Bello', email: 'femi@example.com' },
				],
			},
		});
		expect(created.error).toBeUndefined();
		const shown = JSON.stringify(created.json);
		for (const serial of bookedSerials(reference)) {
			expect(serial).toMatch(/^\d{19}$/);
			expect(shown).toContain(`"serial":"${serial}"`);
		}
	});

	it('a serial that fits a number stays a number', async () => {
		sandbox.configure({ dialect: {} });
		try {
			const reference = uniqueReference('safe');
			const created = await runVoucher(sandbox, download(reference));
			expect(created.error).toBeUndefined();
			const serials = serialsIn(created.json[0]);
			expect(serials.map((serial) => typeof serial)).toEqual(['number', 'number']);
			expect(serials).toEqual(bookedSerials(reference));
		} finally {
			sandbox.configure({ dialect: { serials: 'long' } });
		}
	});
});

describe('requests, now that answers are read as text', () => {
	it('a create still sends its body as JSON and asks for JSON', async () => {
		const reference = uniqueReference('json');
		await runVoucher(sandbox, download(reference));
		const [create] = apiRequests(sandbox, 'POST');
		// The sandbox logs a body it could not parse as its text.
		expect(create.body).toMatchObject({ reference, quantity: 2 });

		canned.answerWith({ orderNumber: 'ORD-1', reference, status: 'PROCESSING' });
		const run = await runVoucher(sandbox, download(reference), {
			credential: { baseUrl: canned.url },
		});
		expect(run.error).toBeUndefined();
		const [post] = canned.requests.filter((request) => request.method === 'POST');
		expect(post.headers['content-type']).toMatch(/^application\/json/);
		expect(post.headers.accept).toMatch(/^application\/json/);
	});
});
