import type { LedgerEntry } from './types.mts';

/**
 * Naira amount to whole kobo, read from the number's decimal text so no binary
 * fraction ever reaches the ledger. Null when the amount is not a positive
 * whole number of kobo (more than two decimals, exponent form, unsafe size).
 */
export function toKobo(amount: number): number | null {
	const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(String(amount));
	if (!match) return null;
	const kobo = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
	return Number.isSafeInteger(kobo) ? kobo : null;
}

/** Integer kobo / 100 is the double nearest the decimal, so JSON prints the exact Naira amount. */
export function toNaira(kobo: number): number {
	return kobo / 100;
}

export function balanceKobo(ledger: readonly LedgerEntry[]): number {
	return ledger.length === 0 ? 0 : ledger[ledger.length - 1].balanceAfterKobo;
}

export function post(
	ledger: LedgerEntry[],
	entry: Pick<LedgerEntry, 'kind' | 'amountKobo' | 'reference' | 'orderNumber' | 'note'>,
): LedgerEntry {
	const posted: LedgerEntry = {
		seq: ledger.length + 1,
		currency: 'NGN',
		...entry,
		balanceAfterKobo: balanceKobo(ledger) + entry.amountKobo,
		time: new Date().toISOString(),
	};
	ledger.push(posted);
	return posted;
}

export function openLedger(ledger: LedgerEntry[], initialBalanceNgn: number): void {
	const kobo = toKobo(initialBalanceNgn);
	if (kobo === null)
		throw new Error(`initialBalanceNgn must be a whole number of kobo, got ${initialBalanceNgn}`);
	ledger.length = 0;
	post(ledger, {
		kind: 'opening',
		amountKobo: kobo,
		reference: null,
		orderNumber: null,
		note: 'Opening balance',
	});
}
