/**
 * A request carries its amount in kobo and sends it in Naira: the body on the wire must be the
 * one the user's amount always gave, field for field and in the same order.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { campaignParameters } from '../../campaignParameters.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile({}, { resetBeforeEach: false });

/** [amount as entered, the number the body sends] */
const AMOUNTS: Array<[number | string, string]> = [
	[0.01, '0.01'],
	[0.1, '0.1'],
	[1.1, '1.1'],
	[19.99, '19.99'],
	['2500.75', '2500.75'],
	[' 30000.00 ', '30000'],
	['={{ 0.5 + 0.25 }}', '0.75'],
	[123456789.12, '123456789.12'],
	[90071992547409.9, '90071992547409.9'],
];

const posts = () => apiRequests(sandbox, 'POST').map((post) => JSON.stringify(post.body));
const ada = { firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' };
const adaJson = JSON.stringify(ada);

/** Each way an amount is sent: [what, its parameters and input items, the body it must send]. */
const WAYS: Array<
	[
		string,
		(reference: string, amount: number | string) => [INodeParameters, IDataObject[]?],
		(reference: string, sent: string) => string,
	]
> = [
	[
		'Create',
		(reference, amount) => [
			{
				resource: 'order',
				operation: 'create',
				reference,
				productCode: 'VCH-INSTANT',
				amount,
				quantity: 2,
			},
		],
		(reference, sent) =>
			`{"reference":"${reference}","productCode":"VCH-INSTANT","amount":${sent},"quantity":2}`,
	],
	[
		'Create for Recipients',
		(reference, amount) => [
			{
				resource: 'order',
				operation: 'createForRecipients',
				reference,
				productCode: 'VCH-INSTANT',
				amount,
				templateId: 1,
				recipientsSource: 'manual',
				recipients: { recipient: [ada] },
			},
		],
		(reference, sent) =>
			`{"reference":"${reference}","productCode":"VCH-INSTANT","amount":${sent},"templateId":1,"recipients":[${adaJson}]}`,
	],
	[
		'a campaign row',
		(base, amount) => [campaignParameters(base, { checkWallet: false }, { amount }), [ada]],
		(base, sent) =>
			`{"productCode":"VCH-INSTANT","amount":${sent},"templateId":1,"reference":"${base}-1","recipients":[${adaJson}]}`,
	],
];

describe('the amount on the wire', () => {
	describe.each(WAYS)('%s', (_, parametersOf, bodyOf) => {
		it.each(AMOUNTS)('with %j sends %s', async (amount, sent) => {
			const reference = uniqueReference('wire');
			const [parameters, items] = parametersOf(reference, amount);
			await runVoucher(sandbox, parameters, { continueOnFail: true, items });
			expect(posts().at(-1)).toBe(bodyOf(reference, sent));
		});
	});

	it('sends nothing for an amount with more than two decimals', async () => {
		const before = posts().length;
		const parameters = campaignParameters(
			uniqueReference('wire'),
			{},
			{ amount: '={{ 0.07 * 100 }}' },
		);
		const run = await runVoucher(sandbox, parameters, { continueOnFail: true, items: [ada] });
		expect(run.json[0].error).toBe(
			'Item 0: invalid "amount": Amount must have at most 2 decimal places, not 7.000000000000001',
		);
		expect(posts().length).toBe(before);
	});
});
