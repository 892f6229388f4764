import { describe, expect, it } from 'vitest';

import { signPayload, verifySignature } from '../../../nodes/serviceProtocol/signature';

/** mulberry32: small, seeded, so a failure replays exactly. */
function prng(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
	};
}

const SEED = 0x5eed4231;
const DELIVERIES = 3000;
const HEX = '0123456789abcdef';

type Tamper = (body: Buffer, header: string, secret: string) => [Buffer, string, string];

function tamperings(random: () => number): Record<string, Tamper> {
	const int = (below: number) => Math.floor(random() * below);
	const hex = (length: number) => Array.from({ length }, () => HEX[int(16)]).join('');
	return {
		byteFlipped(body, header, secret) {
			const changed = Buffer.from(body);
			const at = int(changed.length);
			changed[at] ^= 1 + int(255);
			return [changed, header, secret];
		},
		headerTruncated(body, header, secret) {
			return [body, header.slice(0, int(header.length)), secret];
		},
		headerExtended(body, header, secret) {
			return [body, header + hex(1 + int(8)), secret];
		},
		wrongSecret(body, header, secret) {
			const at = int(secret.length);
			const other = secret[at] === 'x' ? 'y' : 'x';
			return [body, header, secret.slice(0, at) + other + secret.slice(at + 1)];
		},
	};
}

function randomDelivery(random: () => number): { body: Buffer; secret: string } {
	const int = (below: number) => Math.floor(random() * below);
	const event =
		random() < 0.5
			? {
					type: 'ORDER_UPDATED',
					data: {
						orderNumber: `ORD-${int(1e9)}`,
						reference: `ref-${int(1e6)}`,
						status: 'COMPLETED',
					},
				}
			: {
					type: 'VOUCHER_UPDATED',
					data: { serialNumber: int(1e12), balance: int(1e7) / 100, email: `u${int(1e4)}@x.ng` },
				};
	const secret = Array.from({ length: 8 + int(40) }, () => String.fromCharCode(33 + int(94))).join(
		'',
	);
	return { body: Buffer.from(JSON.stringify(event), 'utf8'), secret };
}

describe('random tampering (seeded)', () => {
	it(`rejects every tampered delivery and accepts every untouched one`, () => {
		const random = prng(SEED);
		const kinds = Object.entries(tamperings(random));
		const rejected: Record<string, number> = Object.fromEntries(kinds.map(([name]) => [name, 0]));
		let accepted = 0;
		let tampered = 0;

		for (let i = 0; i < DELIVERIES; i++) {
			const { body, secret } = randomDelivery(random);
			const header = signPayload(body, secret);
			if (verifySignature(body, header, secret)) accepted++;
			for (const [name, tamper] of kinds) {
				tampered++;
				if (!verifySignature(...tamper(body, header, secret))) rejected[name]++;
			}
		}

		const totalRejected = Object.values(rejected).reduce((sum, n) => sum + n, 0);
		expect(tampered).toBeGreaterThanOrEqual(10_000);
		expect(accepted).toBe(DELIVERIES);
		expect(totalRejected).toBe(tampered);
		for (const count of Object.values(rejected)) expect(count).toBe(DELIVERIES);
	});
});
