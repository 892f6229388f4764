import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { describe, expect, it } from 'vitest';

import {
	apiRequests,
	runVoucher,
	SECRET_KEY_MARKER,
	uniqueReference,
	sandboxForThisFile,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

const getOrder = (reference: string) => ({ resource: 'order', operation: 'get', reference });

/** Everything the run produced that a user could see: output items and the error. */
function visibleText(result: { json: unknown[]; error?: unknown }): string {
	return JSON.stringify({ json: result.json, error: result.error });
}

describe('each error class becomes a clear error and leaks no key', () => {
	it('401: tells the user to check the keys', async () => {
		const result = await runVoucher(
			sandbox,
			{ resource: 'wallet', operation: 'getAll' },
			{
				credential: { secretKey: 'sk_wrong_secret' },
			},
		);
		expect(result.error?.message).toMatch(/refused the credentials \(HTTP 401\)/);
		expect(result.error?.description).toMatch(/public key, the secret key/);
		expect(visibleText(result)).not.toContain('sk_wrong_secret');
	});

	it('403: names the missing permission', async () => {
		const result = await runVoucher(
			sandbox,
			{ resource: 'wallet', operation: 'getAll' },
			{
				credential: sandbox.forbiddenKeys,
			},
		);
		expect(result.error?.message).toMatch(/denied permission/);
		expect(visibleText(result)).not.toContain(sandbox.forbiddenKeys.secretKey);
	});

	it('404 on a voucher: "Voucher not found"', async () => {
		const result = await runVoucher(sandbox, {
			resource: 'voucher',
			operation: 'getStatus',
			voucherCode: 'NO-SUCH-CODE',
		});
		expect(result.error?.message).toBe('Voucher not found');
		expect(apiRequests(sandbox)).toHaveLength(1);
	});

	it('04 on Get Order: "Order <reference> not found", not retried', async () => {
		const result = await runVoucher(sandbox, getOrder('missing-ref-1'));
		expect(result.error?.message).toBe('Order missing-ref-1 not found');
		expect(apiRequests(sandbox)).toHaveLength(1);
	});

	it('04 carried by HTTP 404 is still "order not found"', async () => {
		sandbox.configure({ dialect: { unknownOrder: 'envelope404' } });
		try {
			const result = await runVoucher(sandbox, getOrder('missing-ref-2'));
			expect(result.error?.message).toBe('Order missing-ref-2 not found');
		} finally {
			sandbox.configure({ dialect: {} });
		}
	});

	it('another non-00 code: a NodeApiError with the service code and message', async () => {
		const result = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference: uniqueReference('bad'),
			productCode: 'NO-SUCH-PRODUCT',
			amount: 10,
			quantity: 1,
		});
		expect(result.error?.name).toBe('VoucherApiError'); // a NodeApiError subclass
		expect(result.error?.message).toMatch(
			/^Item 0: the voucher service refused order "bad-.+": .+ \(code 05\)$/,
		);
		expect(visibleText(result)).not.toContain(SECRET_KEY_MARKER);
	});

	it('500 on a read: retried, then a service error', async () => {
		sandbox.configure({ faults: { errorRate: 1, seed: 1 } });
		try {
			const result = await runVoucher(sandbox, { resource: 'country', operation: 'getAll' });
			expect(result.error?.message).toMatch(/internal error \(HTTP 500\)/);
			expect(apiRequests(sandbox, 'GET')).toHaveLength(10);
		} finally {
			sandbox.configure({ faults: {} });
		}
	});
});

describe('a service that echoes the keys in its refusal', () => {
	// Every answer repeats the Basic credentials it received, decoded, as a real gateway's
	// "invalid key …" message might: as an envelope (HTTP 200 and 400) and as 409 text.
	async function echoingService(status: number, asText: boolean) {
		const server = createServer((req, res) => {
			const basic = String(req.headers.authorization ?? '').replace(/^Basic /, '');
			const said = `Invalid key pair ${Buffer.from(basic, 'base64').toString()}`;
			res.writeHead(status, { 'content-type': asText ? 'text/plain' : 'application/json' });
			res.end(asText ? said : JSON.stringify({ statusCode: '99', message: said }));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
	}

	it.each([
		[200, false],
		[400, false],
		[409, true],
	])(
		'HTTP %i (text: %s): the error says what was refused, with the keys withheld',
		async (status, asText) => {
			const service = await echoingService(status, asText);
			try {
				const wallets = await runVoucher(
					sandbox,
					{ resource: 'wallet', operation: 'getAll' },
					{ credential: { baseUrl: service.url } },
				);
				// The pair is withheld whole, so not even its colon tells the two keys apart.
				expect(wallets.error?.message).toMatch(/Invalid key pair \[key withheld\] \(/);
				// A create refused so is looked up, and the look-up's refusal is quoted too.
				const create = await runVoucher(
					sandbox,
					{
						resource: 'order',
						operation: 'create',
						reference: uniqueReference('echo'),
						productCode: 'VCH-DL-1000',
						amount: 1000,
						quantity: 1,
					},
					{ credential: { baseUrl: service.url } },
				);
				expect(create.error?.message).toMatch(/^Item 0: /);
				for (const result of [wallets, create]) {
					expect(visibleText(result)).not.toContain(SECRET_KEY_MARKER);
					expect(visibleText(result)).not.toContain(sandbox.keys.publicKey);
				}
			} finally {
				service.close();
			}
		},
	);
});

describe('a resource or operation this version does not have', () => {
	it.each([
		[
			{ resource: 'order', operation: 'refund' },
			'The operation "refund" is not supported for the resource "order"',
		],
		[
			{ resource: 'order', operation: 'constructor' },
			'The operation "constructor" is not supported',
		],
		[{ resource: 'giftCard', operation: 'get' }, 'The resource "giftCard" is not supported'],
	])('%o fails with a clear error and sends nothing', async (parameters, message) => {
		const before = apiRequests(sandbox).length;
		const result = await runVoucher(sandbox, parameters);
		expect(result.error?.message).toContain(message);
		expect(apiRequests(sandbox)).toHaveLength(before);
	});
});

describe('continueOnFail', () => {
	it('turns each failing item into an error item, paired, and keeps the others', async () => {
		const reference = uniqueReference('cof');
		await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference,
			productCode: 'VCH-INSTANT',
			amount: 1,
			quantity: 1,
		});
		const result = await runVoucher(
			sandbox,
			{ resource: 'order', operation: 'get', reference: '={{ $json.ref }}' },
			{ items: [{ ref: 'nope-1' }, { ref: reference }, { ref: 'nope-2' }], continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(result.main.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(result.json[0].error).toBe('Order nope-1 not found');
		expect(result.json[1]).toMatchObject({ reference, status: 'COMPLETED' });
		expect(result.json[2].error).toBe('Order nope-2 not found');
	});

	it('routes failures to the error output with onError: continueErrorOutput', async () => {
		const result = await runVoucher(
			sandbox,
			{ resource: 'voucher', operation: 'getStatus', voucherCode: '={{ $json.code }}' },
			{ items: [{ code: 'SBX-ACTIVE-0001' }, { code: 'UNKNOWN' }], onError: 'continueErrorOutput' },
		);
		expect(result.items[0].map((item) => item.json.status)).toEqual(['ACTIVE']);
		expect(result.items[1]).toHaveLength(1);
		expect(result.items[1][0].json.error).toBe('Voucher not found');
		expect(result.items[1][0].pairedItem).toEqual({ item: 1 });
	});

	it('error items hold no key even for an auth failure', async () => {
		const result = await runVoucher(
			sandbox,
			{ resource: 'wallet', operation: 'getAll' },
			{
				credential: { secretKey: 'sk_leak_check_123' },
				continueOnFail: true,
			},
		);
		expect(result.json[0].error).toMatch(/HTTP 401/);
		expect(visibleText(result)).not.toContain('sk_leak_check_123');
		expect(visibleText(result)).not.toContain(
			Buffer.from('pk_test_sandbox:sk_leak_check_123').toString('base64'),
		);
	});
});
