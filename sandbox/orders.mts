import { randomBytes, randomInt } from 'node:crypto';

import type { Dialect } from './dialect.mts';
import { balanceKobo, post } from './ledger.mts';
import type { OrderRequest } from './validation.mts';
import type {
	OrderType,
	SandboxOrder,
	Serial,
	SandboxState,
	SandboxVoucher,
	TerminalStatus,
} from './types.mts';

/**
 * Order numbers and serials keep counting across reset(), so a webhook receiver
 * that deduplicates by order number or serial never sees one reused within a run.
 */
export interface Issuer {
	orderNumber(): string;
	serial(): Serial;
}

/*
 * The first long serial: two in a row differ only past 2^53 (doubles there are 256 apart), so
 * a reader that parses them as numbers takes both for one.
 */
const FIRST_LONG_SERIAL = 1_234_567_890_130_000_161n;

/** Serials as the dialect in force when a voucher is issued has them (Dialect.serials). */
export function createIssuer(dialect: () => Dialect): Issuer {
	let orders = 0;
	let serials = 0;
	let longSerials = 0n;
	return {
		orderNumber: () => `SBX-ORD-${String(++orders).padStart(6, '0')}`,
		serial: () =>
			dialect().serials === 'long'
				? FIRST_LONG_SERIAL + longSerials++
				: 7_000_000_000_000 + ++serials,
	};
}

/** The serial written as `digits` (an admin path), as the sandbox keeps serials: exact. */
export function serialOf(digits: string): Serial {
	const serial = BigInt(digits);
	return serial <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(serial) : serial;
}

export type CommitResult =
	| { kind: 'committed'; order: SandboxOrder }
	| { kind: 'duplicate'; existing: SandboxOrder }
	| { kind: 'insufficient'; neededKobo: number; balanceKobo: number };

/**
 * Commits a valid create to the books: the order, its debit and, for an instant product, its
 * vouchers. Synchronous from duplicate check to debit, so concurrent creates with one reference
 * cannot both commit.
 */
export function commitOrder(
	state: SandboxState,
	issuer: Issuer,
	type: OrderType,
	req: OrderRequest,
	acceptDuplicates = false,
): CommitResult {
	const existing = state.orders.get(req.reference);
	// Accepted, a duplicate replaces the order under its reference; the ledger keeps both debits.
	if (existing && !acceptDuplicates) return { kind: 'duplicate', existing };
	const chargeKobo = req.amountKobo - Math.floor((req.amountKobo * req.discountPercent) / 100);
	const neededKobo = chargeKobo * req.count;
	const available = balanceKobo(state.ledger);
	if (neededKobo > available) return { kind: 'insufficient', neededKobo, balanceKobo: available };

	const order: SandboxOrder = {
		orderNumber: issuer.orderNumber(),
		reference: req.reference,
		type,
		productCode: req.productCode,
		status: 'PROCESSING',
		amount: req.amount,
		chargeKobo,
		count: req.count,
		couponCode: req.couponCode,
		pin: req.pin,
		templateId: req.templateId,
		narration: req.narration,
		recipients: req.recipients,
		vouchers: [],
		createdAt: new Date().toISOString(),
		settledAt: null,
	};
	state.orders.set(order.reference, order);
	post(state.ledger, {
		kind: 'debit',
		amountKobo: -neededKobo,
		reference: order.reference,
		orderNumber: order.orderNumber,
		note: `${req.count} x ${req.productCode} at ${chargeKobo} kobo`,
	});
	if (req.product.settles === 'instant') settleOrder(state, issuer, order, req.product.outcome);
	return { kind: 'committed', order };
}

function oneYearFrom(now: Date): string {
	const expiry = new Date(now);
	expiry.setUTCFullYear(expiry.getUTCFullYear() + 1);
	return expiry.toISOString();
}

function issueVouchers(
	issuer: Issuer,
	order: SandboxOrder,
	outcome: TerminalStatus,
): SandboxVoucher[] {
	if (outcome === 'CANCELED' || outcome === 'FAILED') return [];
	const expiryDate = oneYearFrom(new Date());
	const issue = (): SandboxVoucher => ({
		value: order.amount,
		serial: issuer.serial(),
		code: `SBX-${randomBytes(6)
			.toString('hex')
			.toUpperCase()
			.replace(/(.{4})(?!$)/g, '$1-')}`,
		pin: order.pin ?? String(randomInt(0, 10_000)).padStart(4, '0'),
		expiryDate,
		status: null,
		firstName: null,
		lastName: null,
		email: null,
	});
	// Partial outcome: the last item fails, so any order of two or more is genuinely mixed.
	if (order.type === 'download') {
		const issued = outcome === 'PARTIALLY_COMPLETED' ? order.count - 1 : order.count;
		return Array.from({ length: issued }, issue);
	}
	return order.recipients.map((r, i) => ({
		...issue(),
		status: outcome === 'PARTIALLY_COMPLETED' && i === order.count - 1 ? 'FAILED' : 'DELIVERED',
		firstName: r.firstName,
		lastName: r.lastName,
		email: r.email,
	}));
}

/** Moves an order to its terminal status: issues vouchers, refunds what was not delivered. */
export function settleOrder(
	state: SandboxState,
	issuer: Issuer,
	order: SandboxOrder,
	outcome: TerminalStatus,
): void {
	order.vouchers = issueVouchers(issuer, order, outcome);
	order.status = outcome;
	order.settledAt = new Date().toISOString();
	const good = order.vouchers.filter((v) => v.status === null || v.status === 'DELIVERED');
	for (const v of good) {
		state.vouchers.set(v.code, {
			code: v.code,
			serial: v.serial,
			value: v.value,
			balance: v.value,
			expiryDate: v.expiryDate,
			state: 'ACTIVE',
			orderNumber: order.orderNumber,
			email: v.email,
		});
	}
	const undelivered = order.count - good.length;
	if (undelivered > 0) {
		post(state.ledger, {
			kind: 'refund',
			amountKobo: undelivered * order.chargeKobo,
			reference: order.reference,
			orderNumber: order.orderNumber,
			note: `${outcome}: ${undelivered} undelivered voucher(s) refunded`,
		});
	}
}

/**
 * The spec calls recipient codes and pins "not exposed to API clients", so only
 * download vouchers show them. Webhooks also drop the recipient expiry and print
 * the download expiry without a zone, as in the spec's sample.
 */
function voucherView(type: OrderType, v: SandboxVoucher, audience: 'api' | 'webhook') {
	const download = type === 'download';
	const expiryDate =
		audience === 'api' ? v.expiryDate : download ? v.expiryDate.replace(/Z$/, '') : null;
	return {
		value: v.value,
		serial: v.serial,
		code: download ? v.code : null,
		pin: download ? v.pin : null,
		expiryDate,
		status: v.status,
		firstName: v.firstName,
		lastName: v.lastName,
		email: v.email,
	};
}

/** The Order resource as the API returns it: no vouchers while PROCESSING, null when none were issued. */
export function orderView(order: SandboxOrder) {
	const view = { orderNumber: order.orderNumber, reference: order.reference, status: order.status };
	if (order.status === 'PROCESSING') return view;
	const vouchers = order.vouchers.map((v) => voucherView(order.type, v, 'api'));
	return {
		...view,
		vouchers: vouchers.length > 0 || order.status === 'PARTIALLY_COMPLETED' ? vouchers : null,
	};
}

/** data of ORDER_UPDATED: vouchers only for COMPLETED and PARTIALLY_COMPLETED. */
export function orderEventData(order: SandboxOrder) {
	const data = { orderNumber: order.orderNumber, reference: order.reference, status: order.status };
	if (order.status !== 'COMPLETED' && order.status !== 'PARTIALLY_COMPLETED') return data;
	return { ...data, vouchers: order.vouchers.map((v) => voucherView(order.type, v, 'webhook')) };
}

/** Keeps the first and last four characters, as a masked code that still lets a person recognise it. */
export function maskCode(code: string): string {
	if (code.length <= 8) return '*'.repeat(code.length);
	return code.slice(0, 4) + '*'.repeat(code.length - 8) + code.slice(-4);
}
