/**
 * A service that repeats the credential in a refusal must not put it in the item's error, in
 * any form: as sent (Basic), decoded, base64, URL-encoded. Over real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { runVoucher, sandboxForThisFile, uniqueReference } from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();
afterEach(() => sandbox.configure({ echoAuthorization: null }));

type Keys = { publicKey: string; secretKey: string };
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Every form of the credential an error must not hold. Base64 without its padding: a cut one is a form too. */
const formsOf = (keys: Keys) =>
	[keys.publicKey, keys.secretKey, `${keys.publicKey}:${keys.secretKey}`].flatMap((text) => [
		text,
		encodeURIComponent(text),
		base64(text).replace(/=+$/, ''),
		encodeURIComponent(base64(text)),
	]);

/** Every string reachable from a value, own non-enumerable properties (message, stack, cause) included. */
function allText(value: unknown, seen = new Set<unknown>()): string[] {
	if (typeof value === 'string') return [value];
	if (typeof value !== 'object' || value === null || seen.has(value)) return [];
	seen.add(value);
	return Object.getOwnPropertyNames(value).flatMap((key) =>
		allText((value as Record<string, unknown>)[key], seen),
	);
}

const download = (reference: string) => ({
	resource: 'order',
	operation: 'create',
	reference,
	productCode: 'VCH-INSTANT',
	amount: 1000,
	quantity: 1,
});

// Keys whose every form differs (a slash, a space, non-ASCII, `=`, `&`, `%`); and keys of 2 and
// 1 characters, masked like any other (issue 42: such keys were left unmasked).
const CREDENTIALS: Array<[string, Keys]> = [
	['long keys', { publicKey: 'pk/live ü+1', secretKey: 'sk:s€cret=&%2F?' }],
	['keys under 4 characters', { publicKey: 'Ü!', secretKey: '€' }],
];

describe.each(
	(['text', 'envelope'] as const).flatMap((echo) =>
		CREDENTIALS.map(([name, keys]) => [echo, name, keys] as const),
	),
)('a 400 that echoes the credential as %s, with %s', (echo, _, KEYS) => {
	it.each([true, false])(
		'leaves no form of it in the error (Continue On Fail: %s)',
		async (continueOnFail) => {
			sandbox.configure({ echoAuthorization: echo });
			const reference = uniqueReference('echo');
			const run = await runVoucher(sandbox, download(reference), {
				credential: KEYS,
				continueOnFail,
			});
			const error = continueOnFail ? run.main[0].error : run.error;
			// The create was refused, and so was the look-up that followed: both echoes are in it.
			expect(error?.message).toBe(`Item 0: whether order "${reference}" was bought is unknown`);
			const echoes = error?.description?.match(/Bad request: keys /g);
			expect(echoes).toHaveLength(2);
			// The header was masked where it was echoed: what was sent is what is masked.
			expect(error?.description).toContain('header Basic [key withheld]');
			const texts = allText({ main: run.main, error: run.error, run: run.run }).join('\n');
			for (const form of formsOf(KEYS)) expect(texts, form).not.toContain(form);
		},
	);
});
