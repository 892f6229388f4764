/**
 * An amount is kept in kobo from validation on and sent as toNaira(kobo): the request must carry
 * the very double the user's amount was read as, or the body would change on the wire.
 */
import { describe, expect, it } from 'vitest';

import { toKobo, toNaira } from '../../../../nodes/VoucherService/shared/money';

/** The two-decimal text of whole kobo, made without floating point. */
function twoDecimals(kobo: bigint): string {
	return `${kobo / 100n}.${String(kobo % 100n).padStart(2, '0')}`;
}

/** A seeded generator, so a failure can be run again. */
function randomKobo(seed: number, below: bigint): () => bigint {
	let state = BigInt(seed);
	return () => {
		state = (state * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
		return state % below;
	};
}

const MAX_KOBO = BigInt(Number.MAX_SAFE_INTEGER);

/** The amounts, read as validation reads them, that it accepts and whose kobo sends another number. */
function check(amounts: number[], naira = toNaira) {
	const accepted = amounts.filter((amount) => toKobo(amount) !== undefined);
	const differing = accepted.filter((amount) => {
		const sent = naira(toKobo(amount)!);
		return sent !== amount || JSON.stringify(sent) !== JSON.stringify(amount);
	});
	return { accepted: accepted.length, differing };
}

describe('toNaira(toKobo(amount)) is the amount read, as the same double', () => {
	it('for every amount from 0.00 to 20,000.00, whose kobo comes back exactly', () => {
		const texts = Array.from({ length: 2_000_001 }, (_, kobo) => twoDecimals(BigInt(kobo)));
		const amounts = texts.map(Number);
		expect(amounts.filter((amount, kobo) => toKobo(amount) !== kobo)).toEqual([]);
		expect(check(amounts)).toEqual({ accepted: 2_000_001, differing: [] });
		// The check has teeth: kobo × 0.01 is another double for many of them (0.29000000000000004).
		expect(check(amounts, (kobo) => kobo * 0.01).differing.length).toBeGreaterThan(1000);
	});

	it('for amounts up to the largest kobo the code allows, where doubles are far apart', () => {
		const next = randomKobo(28, MAX_KOBO + 1n);
		const kobos = [
			...Array.from({ length: 200_000 }, next),
			// Just below the bound, and past it (refused there).
			...Array.from({ length: 2_000 }, (_, i) => MAX_KOBO - BigInt(i)),
			...Array.from({ length: 200 }, (_, i) => MAX_KOBO + BigInt(i + 1)),
			// Around each power of two, where the spacing of doubles doubles.
			...Array.from({ length: 54 }, (_, p) => 2n ** BigInt(p)).flatMap((edge) =>
				Array.from({ length: 41 }, (_, i) => edge - 20n + BigInt(i)).filter((kobo) => kobo >= 0n),
			),
		];
		// Most large two-decimal values are no double of their own: they read as a neighbour
		// with a shorter text, which is accepted when it has at most two decimals.
		const { accepted, differing } = check(kobos.map((kobo) => Number(twoDecimals(kobo))));
		expect(differing).toEqual([]);
		expect(accepted).toBeGreaterThan(100_000);
		expect(toKobo(Number(twoDecimals(MAX_KOBO + 100n)))).toBeUndefined();
	});

	it('for doubles made by arithmetic, as expressions give them', () => {
		const next = randomKobo(7, 10n ** 15n);
		const amounts = Array.from(
			{ length: 200_000 },
			(_, i) => (Number(next()) / 100) * [1, 3, 0.1, 1.1, 100][i % 5],
		);
		const { accepted, differing } = check(amounts);
		expect(differing).toEqual([]);
		expect(accepted).toBeGreaterThan(40_000);
	});
});
