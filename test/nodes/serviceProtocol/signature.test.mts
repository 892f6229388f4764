import { describe, expect, it } from 'vitest';

import {
	openDelivery,
	secretProblem,
	signPayload,
	verifySignature,
} from '../../../nodes/serviceProtocol/signature';

const secret = 'whsec-test-1';
const event = { type: 'ORDER_UPDATED', data: { orderNumber: 'ORD-1', status: 'COMPLETED' } };
const body = Buffer.from(JSON.stringify(event), 'utf8');
const signature = signPayload(body, secret);

describe('verifySignature', () => {
	it('accepts the exact body, in either hex case', () => {
		expect(verifySignature(body, signature, secret)).toBe(true);
		expect(verifySignature(body, signature.toUpperCase(), secret)).toBe(true);
	});

	it('rejects the same event serialised with different spacing', () => {
		const respaced = Buffer.from(JSON.stringify(event, null, 2), 'utf8');
		expect(JSON.parse(respaced.toString())).toEqual(event);
		expect(verifySignature(respaced, signature, secret)).toBe(false);
	});

	it.each([
		['missing', undefined],
		['empty', ''],
		['an array', [signature]],
		['not hex', 'z'.repeat(128)],
		['hex with a prefix', `sha512=${signature}`],
		['one digit short', signature.slice(0, -1)],
		['one digit long', `${signature}0`],
		['a SHA-256 length', signature.slice(0, 64)],
		['padded with spaces', ` ${signature}`],
		['a different MAC', signPayload(body, 'other')],
	])('rejects a header that is %s', (_, header) => {
		expect(verifySignature(body, header, secret)).toBe(false);
	});

	it.each([
		['missing', undefined],
		['empty', Buffer.alloc(0)],
		['a string, not bytes', body.toString('utf8')],
	])('rejects a raw body that is %s', (_, rawBody) => {
		expect(verifySignature(rawBody, signature, secret)).toBe(false);
	});

	it.each([
		['missing', undefined],
		['empty', ''],
		['not text', 42],
	])('rejects when the secret is %s', (_, configured) => {
		expect(verifySignature(body, signature, configured)).toBe(false);
	});
});

describe('openDelivery', () => {
	const signed = (raw: string) => {
		const bytes = Buffer.from(raw, 'utf8');
		return openDelivery(bytes, signPayload(bytes, secret), secret);
	};

	it('parses the event from the verified bytes', () => {
		expect(openDelivery(body, signature, secret)).toEqual({ status: 'verified', event });
	});

	it('does not parse anything when the signature fails', () => {
		expect(openDelivery(body, signature, 'wrong')).toEqual({ status: 'unauthorized' });
	});

	it.each([
		['not JSON', 'type=ORDER_UPDATED'],
		['JSON without type', '{"data":{}}'],
		['JSON without data', '{"type":"ORDER_UPDATED"}'],
		['data that is not an object', '{"type":"ORDER_UPDATED","data":[1]}'],
		['a type that is not text', '{"type":1,"data":{}}'],
		['a byte-order mark', '\uFEFF{"type":"ORDER_UPDATED","data":{}}'],
	])('calls a signed body with %s malformed', (_, raw) => {
		expect(signed(raw)).toEqual({ status: 'malformed' });
	});
});

describe('secretProblem', () => {
	it('accepts a plausible secret', () => {
		expect(secretProblem('s3cr3t-from-dashboard')).toBeUndefined();
	});

	it.each([
		['empty', ''],
		['missing', undefined],
		['surrounded by spaces', ' abc '],
		['ending in a line break', 'abc\n'],
		['holding a tab', 'ab\tc'],
	])('flags a secret that is %s without repeating it', (_, value) => {
		const problem = secretProblem(value);
		expect(problem).toBeTypeOf('string');
		if (typeof value === 'string' && value.trim() !== '')
			expect(problem).not.toContain(value.trim());
	});
});
