import { describe, expect, it } from 'vitest';

import { signPayload, verifySignature } from '../../../nodes/serviceProtocol/signature';

const bytes = (byte: number, length: number) => Buffer.alloc(length, byte);
const text = (value: string) => Buffer.from(value, 'ascii');

// RFC 4231 section 4, HMAC-SHA-512 results. Case 5 is omitted: it checks a truncated MAC.
const vectors = [
	{
		name: 'case 1',
		key: bytes(0x0b, 20),
		data: text('Hi There'),
		mac:
			'87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde' +
			'daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
	},
	{
		name: 'case 2',
		key: text('Jefe'),
		data: text('what do ya want for nothing?'),
		mac:
			'164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554' +
			'9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
	},
	{
		name: 'case 3',
		key: bytes(0xaa, 20),
		data: bytes(0xdd, 50),
		mac:
			'fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39' +
			'bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb',
	},
	{
		name: 'case 4',
		key: Buffer.from(Array.from({ length: 25 }, (_, i) => i + 1)),
		data: bytes(0xcd, 50),
		mac:
			'b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db' +
			'a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd',
	},
	{
		name: 'case 6',
		key: bytes(0xaa, 131),
		data: text('Test Using Larger Than Block-Size Key - Hash Key First'),
		mac:
			'80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352' +
			'6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598',
	},
	{
		name: 'case 7',
		key: bytes(0xaa, 131),
		data: text(
			'This is a test using a larger than block-size key and a larger than block-size data. ' +
				'The key needs to be hashed before being used by the HMAC algorithm.',
		),
		mac:
			'e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944' +
			'b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58',
	},
];

describe('HMAC-SHA512 against RFC 4231', () => {
	it.each(vectors)('$name: signPayload gives the published MAC', ({ key, data, mac }) => {
		expect(signPayload(data, key)).toBe(mac);
	});

	it.each(vectors)('$name: verifySignature accepts the published MAC', ({ key, data, mac }) => {
		expect(verifySignature(data, mac, key)).toBe(true);
		expect(verifySignature(data, mac.toUpperCase(), key)).toBe(true);
	});

	it('a text secret is keyed by its UTF-8 bytes', () => {
		const data = text('what do ya want for nothing?');
		expect(verifySignature(data, vectors[1].mac, 'Jefe')).toBe(true);
		const accented = 'clé-secrète';
		expect(signPayload(data, accented)).toBe(signPayload(data, Buffer.from(accented, 'utf8')));
	});
});
