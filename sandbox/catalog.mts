import type { TerminalStatus, VoucherState } from './types.mts';

export interface Product {
	name: string;
	/** instant: COMPLETED in the create response; delayed: PROCESSING, then `outcome` after processingDelayMs. */
	settles: 'instant' | 'delayed';
	outcome: TerminalStatus;
}

/** The product code picks the scenario; the spec leaves the terminal-status conditions open. */
export const PRODUCT_CODES: Readonly<Record<string, Product>> = Object.freeze({
	'VCH-INSTANT': { name: 'Sandbox Instant', settles: 'instant', outcome: 'COMPLETED' },
	'VCH-AMAZON': { name: 'Amazon Gift Card', settles: 'instant', outcome: 'COMPLETED' },
	'VCH-JUMIA': { name: 'Jumia Gift Card', settles: 'instant', outcome: 'COMPLETED' },
	// All digits, as some catalogues number products: a sheet's column of them holds numbers.
	'1001': { name: 'Sandbox Numbered', settles: 'instant', outcome: 'COMPLETED' },
	'VCH-SLOW-COMPLETED': { name: 'Sandbox Slow', settles: 'delayed', outcome: 'COMPLETED' },
	'VCH-SLOW-PARTIAL': {
		name: 'Sandbox Slow Partial',
		settles: 'delayed',
		outcome: 'PARTIALLY_COMPLETED',
	},
	'VCH-SLOW-CANCELED': { name: 'Sandbox Slow Canceled', settles: 'delayed', outcome: 'CANCELED' },
	'VCH-SLOW-FAILED': { name: 'Sandbox Slow Failed', settles: 'delayed', outcome: 'FAILED' },
});

export function findProduct(code: string): Product | undefined {
	return Object.hasOwn(PRODUCT_CODES, code) ? PRODUCT_CODES[code] : undefined;
}

export const SANDBOX_KEYS = Object.freeze({
	publicKey: 'pk_test_sandbox',
	secretKey: 'sk_test_sandbox',
});
export const FORBIDDEN_KEYS = Object.freeze({
	publicKey: 'pk_test_readonly',
	secretKey: 'sk_test_readonly',
});

/** Percent off the debit, by coupon code (exact match). */
export const COUPONS: Readonly<Record<string, number>> = Object.freeze({ SAVE10: 10 });

export interface Template {
	id: string;
	name: string;
	screenshotUrl: string;
	/** Null for global templates, as the spec describes them internally. */
	clientId: string | null;
}

export const TEMPLATES: readonly Template[] = Object.freeze([
	{
		id: '1',
		name: 'Classic',
		screenshotUrl: 'https://sandbox.invalid/templates/1.png',
		clientId: null,
	},
	{
		id: '2',
		name: 'Celebration',
		screenshotUrl: 'https://sandbox.invalid/templates/2.png',
		clientId: null,
	},
	{
		id: '7',
		name: 'Sandbox Client Branded',
		screenshotUrl: 'https://sandbox.invalid/templates/7.png',
		clientId: 'sandbox',
	},
]);

export const COUNTRIES = Object.freeze([
	{ code: 'NG', name: 'Nigeria' },
	{ code: 'GH', name: 'Ghana' },
	{ code: 'KE', name: 'Kenya' },
	{ code: 'ZA', name: 'South Africa' },
]);

export interface SeedVoucher {
	code: string;
	serial: number;
	state: VoucherState;
	value: number;
	expiryDate: string;
}

/** Known codes so the status endpoint can be tried for every status without placing an order. */
export const SEED_VOUCHERS: readonly SeedVoucher[] = Object.freeze([
	{
		code: 'SBX-ACTIVE-0001',
		serial: 1000000001,
		state: 'ACTIVE',
		value: 5000,
		expiryDate: '2030-01-31T23:59:59.000Z',
	},
	{
		code: 'SBX/ACTIVE 0002+X',
		serial: 1000000002,
		state: 'ACTIVE',
		value: 2500.5,
		expiryDate: '2030-01-31T23:59:59.000Z',
	},
	{
		code: 'SBX-USED-0001',
		serial: 1000000003,
		state: 'USED',
		value: 10000,
		expiryDate: '2030-01-31T23:59:59.000Z',
	},
	{
		code: 'SBX-EXPIRED-0001',
		serial: 1000000004,
		state: 'EXPIRED',
		value: 1000,
		expiryDate: '2024-01-31T23:59:59.000Z',
	},
	{
		code: 'SBX-INVALID-0001',
		serial: 1000000005,
		state: 'INVALID',
		value: 0,
		expiryDate: '2030-01-31T23:59:59.000Z',
	},
]);
