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
export function readSerial(value: unknown): unknown {
	const digits = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
	return digits !== undefined && Number.isSafeInteger(digits) ? digits : value;
}
