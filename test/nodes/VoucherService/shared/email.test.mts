/**
 * E-mail addresses as mail systems take them: every address a mail system delivers on the
 * internet is sent, and only what cannot be one is refused, naming the item, the field and
 * why, with nothing sent. Quoted local parts, IP-address domains and addresses outside ASCII
 * are refused by choice (see nodes/VoucherService/shared/email.ts).
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';

import { campaignSandboxForThisFile } from '../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../voucherNodeRunner.mts';

const { sandbox, runCampaign } = await campaignSandboxForThisFile();

const local64 = 'a'.repeat(64);
const label63 = 'b'.repeat(63);
/** 254 characters in all, the most a mail path holds. */
const longest = `${local64}@${['c'.repeat(63), 'd'.repeat(63), 'e'.repeat(57)].join('.')}.com`;

const VALID = [
	'simple@example.com',
	'very.common@example.com',
	'x@example.com',
	'Ada.Obi@Example.COM',
	'long.email-address-with-hyphens@and.subdomains.example.com',
	'user.name+tag+sorting@example.com',
	"o'brien@example.ie",
	'name/surname@example.com',
	'customer/department=shipping@example.com',
	'mailhost!username@example.org',
	'user%example.com@example.org',
	'$A12345@example.com',
	'!def!xyz%abc@example.com',
	'_somename@example.com',
	'user-@example.org',
	"!#$%&'*+-/=?^_`{|}~@example.org",
	'{first}|{last}@example.com',
	'1234567890@example.com',
	'user@123.example.com',
	'info@xn--e1afmkfd.xn--p1ai',
	'user@example.xn--80ao21a',
	'user@sub-domain.example-site.ng',
	'a@b.co',
	`${local64}@example.com`,
	`user@${label63}.com`,
	longest,
];

const NOT_AN_ADDRESS = 'E-mail is not a valid e-mail address: ';

/** [address, why it is refused]. */
const INVALID: Array<[string, string]> = [
	['Abc.example.com', 'it has no @'],
	['A@b@c@example.com', 'it has more than one @'],
	['@example.com', 'nothing comes before the @'],
	['john@', 'nothing comes after the @'],
	['john doe@example.com', 'it holds a space'],
	['Ada Obi <ada@example.com>', 'it holds a space'],
	['ada@example.com,bola@example.com', 'it has more than one @'],
	[
		'john..doe@example.com',
		'the part before the @ starts or ends with a dot, or has two dots in a row',
	],
	[
		'.john@example.com',
		'the part before the @ starts or ends with a dot, or has two dots in a row',
	],
	[
		'john.@example.com',
		'the part before the @ starts or ends with a dot, or has two dots in a row',
	],
	['a(b)c@example.com', 'the part before the @ holds "(", which an address cannot hold unquoted'],
	[
		'just"not"right@example.com',
		'the part before the @ holds """, which an address cannot hold unquoted',
	],
	['john@example..com', 'the part after the @ starts or ends with a dot, or has two dots in a row'],
	['john@.example.com', 'the part after the @ starts or ends with a dot, or has two dots in a row'],
	['john@example.com.', 'the part after the @ starts or ends with a dot, or has two dots in a row'],
	['john@localhost', 'the part after the @ has no dot, as in example.com'],
	['john@exa_mple.com', 'the part after the @ holds "_", which a domain name cannot hold'],
	['john@-example.com', 'a part of the domain starts or ends with a hyphen'],
	['john@example-.com', 'a part of the domain starts or ends with a hyphen'],
	['john@example.123', 'the domain ends in a number, as an IP address does'],
	['john@192.168.0.1', 'the domain ends in a number, as an IP address does'],
	[`${local64}a@example.com`, 'the part before the @ is longer than 64 characters'],
	[`user@${label63}b.com`, 'a part of the domain is longer than 63 characters'],
	[`${longest}m`, 'it is longer than 254 characters'],
	['john@[192.168.0.1]', 'an IP address in brackets after the @ is not accepted'],
	['"john doe"@example.com', 'a quoted part before the @ is not accepted'],
	['"john@home"@example.com', 'a quoted part before the @ is not accepted'],
	[
		'josé@example.com',
		'it holds a character outside ASCII, which is not accepted (write an international domain in its xn-- form)',
	],
	[
		'user@bücher.de',
		'it holds a character outside ASCII, which is not accepted (write an international domain in its xn-- form)',
	],
];

const recipientsOrder = {
	resource: 'order',
	operation: 'createForRecipients',
	reference: '={{ $json.ref }}',
	productCode: 'VCH-INSTANT',
	amount: 100,
	templateId: 1,
	recipientsSource: 'manual',
	recipients: {
		recipient: [{ firstName: 'Ada', lastName: 'Obi', email: '={{ $json.email }}' }],
	},
};

const postedEmails = () =>
	apiRequests(sandbox, 'POST').flatMap((entry) =>
		((entry.body as IDataObject).recipients as IDataObject[]).map((r) => r.email),
	);

describe('e-mail addresses, one item each, Create for Recipients', () => {
	it(`sends all ${VALID.length} valid addresses as they are, and the service takes them`, async () => {
		const items = VALID.map((email) => ({ ref: uniqueReference('mail'), email }));
		const run = await runVoucher(sandbox, recipientsOrder, { items, continueOnFail: true });
		expect(run.json.map((item) => item.error ?? item.status)).toEqual(VALID.map(() => 'COMPLETED'));
		expect(postedEmails()).toEqual(VALID);
	});

	it(`refuses all ${INVALID.length} invalid ones, each naming its item, the field and why, and sends none`, async () => {
		const items = INVALID.map(([email]) => ({ ref: uniqueReference('bad'), email }));
		const run = await runVoucher(sandbox, recipientsOrder, { items, continueOnFail: true });
		expect(run.json.map((item) => item.error)).toEqual(
			INVALID.map(
				([, why], index) => `Item ${index}: invalid "recipients[0].email": ${NOT_AN_ADDRESS}${why}`,
			),
		);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});

	it('trims spaces around an address, as from a sheet', async () => {
		const run = await runVoucher(sandbox, recipientsOrder, {
			items: [{ ref: uniqueReference('trim'), email: '  user+tag@example.com \t' }],
		});
		expect(run.error).toBeUndefined();
		expect(postedEmails()).toEqual(['user+tag@example.com']);
	});
});

describe('e-mail addresses in a campaign', () => {
	it("buys for rows whose addresses have + and ', and refuses only the row that is no address", async () => {
		const rows = [
			{ firstName: 'Ada', lastName: 'Obi', email: 'ada+gift@example.com', amount: 1000 },
			{ firstName: 'Seán', lastName: "O'Brien", email: "sean.o'brien@example.ie", amount: 1000 },
			{ firstName: 'Bola', lastName: 'Ade', email: 'bola@localhost', amount: 1000 },
		];
		const run = await runCampaign(uniqueReference('mails'), rows, {}, { continueOnFail: true });
		expect(run.json.map((item) => item.error ?? item.status)).toEqual([
			'COMPLETED',
			'COMPLETED',
			`Item 2: invalid "email": ${NOT_AN_ADDRESS}the part after the @ has no dot, as in example.com`,
		]);
	});
});
