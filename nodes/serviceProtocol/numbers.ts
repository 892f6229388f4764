/*
 * Numbers the spec types as numbers, as services send them: JSON numbers, or decimal text
 * ("30000.00"). Both nodes read them here, once, where an answer or an event is read.
 */

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** A JSON number, or strict decimal text as its number. Anything else is undefined: never a guess. */
export function readDecimal(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value === 'string' && DECIMAL_TEXT.test(value)) return Number(value);
	return undefined;
}

/** A serial (a long) sent as digits, as a number where no digit is lost; anything else as sent. */
export function readSerial<T>(value: T): T | number {
	const digits = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
	return digits !== undefined && Number.isSafeInteger(digits) ? digits : value;
}

/*
 * Serials are longs, and a JSON number past 2^53 loses digits in a double. Every answer and
 * event is parsed here, and every integer past 2^53 comes out as its digits, as sent.
 */

/** A number's text that is an integer: a fraction or an exponent makes it a decimal. */
const INTEGER_TEXT = /^-?\d+$/;

/** 2^53 has 16 digits: a text without 16 in a row holds no integer past it, and JSON.parse reads it exactly. */
const LONG_DIGITS = /(?<!\d)\d{16}/;

interface ParseContext {
	source?: string;
}

function keepLongIntegers(_key: string, value: unknown, context?: ParseContext): unknown {
	if (typeof value !== 'number' || Number.isSafeInteger(value)) return value;
	const source = context?.source;
	return source !== undefined && INTEGER_TEXT.test(source) ? source : value;
}

/** Whether JSON.parse hands a reviver each number's text: Node 24 does; Node 20, which n8n 1.85 runs on, does not. */
const READS_SOURCE = JSON.parse('1', (_key: string, _value: unknown, context?: ParseContext) => {
	return context?.source === '1';
}) as boolean;

/**
 * Strings whole (so their digits are passed over), or an integer token of 16 digits or more
 * outside them: not preceded by what would make it part of a number, nor followed by a
 * fraction or an exponent.
 */
const STRING_OR_LONG_INTEGER = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?[1-9]\d{15,}(?![\d.eE])/g;

/**
 * The same reading where JSON.parse gives a reviver no source (Node 20): each integer token past
 * 2^53 is quoted, then the text parsed. Only valid JSON is rewritten, so strings are matched as
 * JSON reads them.
 */
export function parseJsonQuotingLongIntegers(text: string): unknown {
	const parsed: unknown = JSON.parse(text);
	if (!LONG_DIGITS.test(text)) return parsed;
	return JSON.parse(
		text.replace(STRING_OR_LONG_INTEGER, (token) =>
			token.startsWith('"') || Number.isSafeInteger(Number(token)) ? token : `"${token}"`,
		),
	);
}

/**
 * JSON.parse, except that an integer past 2^53 comes out as its digits (a string): a serial
 * that fits a number stays one. Throws as JSON.parse does.
 */
export function parseJson(text: string): unknown {
	if (!READS_SOURCE) return parseJsonQuotingLongIntegers(text);
	if (!LONG_DIGITS.test(text)) return JSON.parse(text);
	return JSON.parse(text, keepLongIntegers);
}
