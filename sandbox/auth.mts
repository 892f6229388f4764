import { FORBIDDEN_KEYS, SANDBOX_KEYS } from './catalog.mts';

export type Identity =
	| { access: 'full' | 'forbidden'; publicKey: string }
	| { access: 'none'; publicKey: null };

const PAIRS = [
	[SANDBOX_KEYS, 'full'],
	[FORBIDDEN_KEYS, 'forbidden'],
] as const;

/**
 * Basic base64(publicKey:secretKey) is our mapping; the spec only says the panel
 * offers Basic credentials. Only the public key leaves this function.
 */
export function authenticate(header: string | undefined): Identity {
	const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
	const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
	for (const [keys, access] of PAIRS) {
		if (decoded === `${keys.publicKey}:${keys.secretKey}`)
			return { access, publicKey: keys.publicKey };
	}
	return { access: 'none', publicKey: null };
}
