import { expect } from 'vitest';

import type { Sandbox } from '../../sandbox/server.mts';

/**
 * Finding secrets in an output. A PIN is four digits, which a serial or an order number may
 * hold by chance, so short secrets are compared with whole values, never searched for.
 */

/** Every key and string anywhere in a value; JSON text is parsed first. */
function stringsIn(value: unknown): string[] {
	if (typeof value === 'string') {
		try {
			const parsed: unknown = JSON.parse(value);
			if (parsed !== null && typeof parsed === 'object') return [value, ...stringsIn(parsed)];
		} catch {
			// Plain text, not JSON: the string itself is the value.
		}
		return [value];
	}
	if (Array.isArray(value)) return value.flatMap(stringsIn);
	if (value !== null && typeof value === 'object') {
		return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsIn(inner)]);
	}
	return [];
}

/** The `secrets` an output gives away: as a whole value, or (longer than a PIN) inside a text. */
export function leakedSecrets(output: unknown, secrets: string[]): string[] {
	const values = stringsIn(output);
	const text = values.join('\n');
	return secrets.filter(
		(secret) => values.includes(secret) || (secret.length > 4 && text.includes(secret)),
	);
}

/** Every code and PIN the sandbox issued for these orders (at least one, or the check proves nothing). */
export function issuedSecrets(sandbox: Sandbox, references: string[]): string[] {
	const secrets = references.flatMap((reference) =>
		(sandbox.state.orders.get(reference)?.vouchers ?? []).flatMap((voucher) => [
			voucher.code,
			voucher.pin,
		]),
	);
	expect(secrets.length).toBeGreaterThan(0);
	return secrets;
}
