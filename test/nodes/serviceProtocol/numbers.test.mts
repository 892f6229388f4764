/**
 * parseJson reads every integer past 2^53 as its digits and everything else as JSON.parse
 * does, on Node 24 (its reviver reads each number's source) and on Node 20 (the fallback,
 * parseJsonQuotingLongIntegers, run here directly: the two must agree on any JSON text).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
	parseJson,
	parseJsonQuotingLongIntegers,
	readSerial,
} from '../../../nodes/serviceProtocol/numbers';

const READINGS = [
	['Node 24 (a reviver with the source)', parseJson],
	['Node 20 (long integers quoted first)', parseJsonQuotingLongIntegers],
] as const;

describe.each(READINGS)('long integers in JSON, as read on %s', (_, parse) => {
	it('keeps every digit of an integer past 2^53, and a safe one as a number', () => {
		expect(parse('{"serial":1234567890130000161,"balance":500}')).toEqual({
			serial: '1234567890130000161',
			balance: 500,
		});
		expect(parse('[9007199254740991, 9007199254740992, -9007199254740993, 7000000000001]')).toEqual(
			[9007199254740991, '9007199254740992', '-9007199254740993', 7000000000001],
		);
		expect(parse('12345678901234567890')).toBe('12345678901234567890');
	});

	it('leaves decimals, exponents, strings and keys as JSON.parse reads them', () => {
		const text =
			'{"12345678901234567890":"12345678901234567890","a":"x\\"12345678901234567890\\\\",' +
			'"d":12345678901234567.5,"e":1234567890123456789e2,"f":1e+21,"g":-0.12345678901234567890}';
		expect(parse(text)).toEqual(JSON.parse(text));
	});

	it('refuses what is not JSON, as JSON.parse does', () => {
		for (const text of ['', '{', '0123456789012345678', '"12345678901234567890', '[1 2]'])
			expect(() => parse(text), text).toThrow(SyntaxError);
	});
});

/** Node 24's JSON.rawJSON, which TypeScript's lib does not declare yet. */
const { rawJSON } = JSON as unknown as { rawJSON(text: string): unknown };

/** A JSON value in which integers of any length may stand, as bigints. */
const { value: jsonWithLongs } = fc.letrec<{ value: unknown }>((tie) => ({
	value: fc.oneof(
		{ depthSize: 'small' },
		fc.string({ unit: 'binary' }),
		fc.stringMatching(/^[\d" \\]{0,30}$/),
		fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
		fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }),
		fc.boolean(),
		fc.constant(null),
		fc.array(tie('value'), { maxLength: 5 }),
		fc.dictionary(fc.string({ unit: 'binary' }), tie('value'), { maxKeys: 5 }),
	),
}));

/** The text of such a value, bigints written as bare numbers; `space` as JSON.stringify's. */
const textOf = (value: unknown, space: string) =>
	JSON.stringify(
		value,
		(_key, v: unknown) => (typeof v === 'bigint' ? rawJSON(String(v)) : v),
		space,
	);

/** What parseJson must give for it: an integer token past 2^53 as its digits. */
function expected(value: unknown): unknown {
	if (typeof value === 'bigint')
		return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
	if (typeof value === 'number') {
		const token = JSON.stringify(value);
		return /^-?\d+$/.test(token) && !Number.isSafeInteger(value) ? token : value;
	}
	if (Array.isArray(value)) return value.map(expected);
	if (typeof value === 'object' && value !== null)
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expected(v)]));
	return value;
}

describe('both readings, on any JSON text', () => {
	it('give the same value, every long integer as its digits', () => {
		fc.assert(
			fc.property(jsonWithLongs, fc.constantFrom('', ' ', '\t'), (value, space) => {
				const text = textOf(value, space);
				const want = expected(value);
				expect(parseJson(text)).toEqual(want);
				expect(parseJsonQuotingLongIntegers(text)).toEqual(want);
			}),
			{ numRuns: 2000 },
		);
	});

	it('refuse the same texts', () => {
		fc.assert(
			fc.property(fc.stringMatching(/^[[\]{}",:\d\\ .eE+-]{0,40}$/), (text) => {
				const outcome = (parse: (text: string) => unknown) => {
					try {
						return { value: parse(text) };
					} catch (error) {
						return { error: (error as Error).name };
					}
				};
				const plain = outcome(JSON.parse);
				expect('error' in outcome(parseJson)).toBe('error' in plain);
				expect('error' in outcome(parseJsonQuotingLongIntegers)).toBe('error' in plain);
			}),
			{ numRuns: 5000 },
		);
	});
});

describe('readSerial', () => {
	it('makes digits a number only where no digit is lost', () => {
		expect(readSerial('7000000000001')).toBe(7000000000001);
		expect(readSerial('1234567890130000161')).toBe('1234567890130000161');
		expect(readSerial(7000000000001)).toBe(7000000000001);
		expect(readSerial('12a')).toBe('12a');
	});
});
