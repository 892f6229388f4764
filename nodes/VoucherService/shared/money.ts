/** Naira amounts as exact integer kobo: order totals must never pick up floating-point error. */
const NAIRA_PATTERN = /^(\d+)(?:\.(\d{1,2}))?$/;

/** Kobo for an amount with at most two decimals, or undefined when it has more (or is not finite). */
export function toKobo(naira: number): number | undefined {
	if (!Number.isFinite(naira) || naira < 0) return undefined;
	const match = NAIRA_PATTERN.exec(String(naira));
	if (!match) return undefined;
	const kobo = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
	return Number.isSafeInteger(kobo) ? kobo : undefined;
}

/**
 * The Naira number a request sends for whole kobo. Exact for every amount toKobo accepts: the
 * kobo and 100 are exact doubles, so the division rounds once, to the double nearest the
 * two-decimal value, which is the double the amount was read as.
 */
export function toNaira(kobo: number): number {
	return kobo / 100;
}

export function formatNaira(kobo: number): string {
	const naira = Math.floor(kobo / 100);
	const rest = String(kobo % 100).padStart(2, '0');
	return `NGN ${naira.toLocaleString('en-US')}.${rest}`;
}

// The service's numbers are read in one place, shared with the trigger.
export { readDecimal } from '../../serviceProtocol/numbers';
