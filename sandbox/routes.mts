import { randomBytes } from 'node:crypto';

import { COUNTRIES } from './catalog.mts';
import { templateIdIn } from './dialect.mts';
import type { Dialect } from './dialect.mts';
import { json, text } from './http.mts';
import type { Reply } from './http.mts';
import { balanceKobo, toNaira } from './ledger.mts';
import { commitOrder, orderView } from './orders.mts';
import type { Issuer } from './orders.mts';
import type { OrderType, SandboxOrder, SandboxState } from './types.mts';
import { InvalidRequest, InvalidTemplate, parseOrderRequest } from './validation.mts';

export interface ApiContext {
	state: SandboxState;
	issuer: Issuer;
	dialect(): Dialect;
	acceptDuplicateReferences(): boolean;
	templates(): Array<{ id: string; name: string; screenshotUrl: string }>;
	/** The currencies GET /v2/transactions/wallets lists, in order; NGN ones follow the ledger. */
	walletCurrencies(): string[];
	/** Called once an order is committed, to start processing of PROCESSING orders. */
	onCommitted(order: SandboxOrder): void;
}

export interface ApiRequest {
	method: string;
	/** Raw path, still percent-encoded, without the query string. */
	path: string;
	body: unknown;
	isJson: boolean;
}

const ok = (data: unknown): Reply => json(200, { data, statusCode: '00', message: 'Successful' });
/** Error envelopes carry no data, like the spec's order-not-found response. */
const fault = (status: number, statusCode: string, message: string): Reply =>
	json(status, { statusCode, message });

function decodeSegment(raw: string): string | null {
	try {
		return decodeURIComponent(raw);
	} catch {
		return null;
	}
}

/** A text error, or under errorBodies 'envelope' the same words in an envelope coded by the HTTP status. */
export const errorReply = (
	dialect: Dialect,
	status: number,
	message: string,
	headers?: Record<string, string>,
): Reply =>
	dialect.errorBodies === 'envelope'
		? { ...json(status, { statusCode: String(status), message }), headers }
		: text(status, message, headers);

/** The order as a create answers it, in this dialect. */
function createdOrder(dialect: Dialect, order: SandboxOrder): Reply {
	const view = Object.entries(orderView(order)).filter(
		([key]) => key !== 'reference' || dialect.createdOrder === 'full',
	);
	return ok(Object.fromEntries(view));
}

function duplicate(dialect: Dialect, existing: SandboxOrder): Reply {
	const message = 'Order reference already exists';
	switch (dialect.duplicateReference) {
		case 'envelope200':
			return fault(200, '09', message);
		case 'envelope400':
			return fault(400, '09', message);
		case 'text409':
			return text(409, message);
		case 'existingOrder200':
			return createdOrder(dialect, existing);
	}
}

function createOrder(ctx: ApiContext, type: OrderType, req: ApiRequest): Reply {
	if (!req.isJson) return fault(400, '05', 'Request body must be valid JSON');
	const dialect = ctx.dialect();
	try {
		const parsed = parseOrderRequest(type, req.body, dialect);
		const result = commitOrder(
			ctx.state,
			ctx.issuer,
			type,
			parsed,
			ctx.acceptDuplicateReferences(),
		);
		if (result.kind === 'duplicate') return duplicate(dialect, result.existing);
		if (result.kind === 'insufficient') return fault(400, '51', 'Insufficient wallet balance');
		ctx.onCommitted(result.order);
		return createdOrder(dialect, result.order);
	} catch (err) {
		if (err instanceof InvalidTemplate)
			return fault(dialect.badTemplate === 'envelope200' ? 200 : 400, '05', err.message);
		if (err instanceof InvalidRequest) return fault(400, '05', err.message);
		throw err;
	}
}

function getOrder(ctx: ApiContext, rawReference: string): Reply {
	const reference = decodeSegment(rawReference);
	const order = reference === null ? undefined : ctx.state.orders.get(reference);
	if (order) return ok(orderView(order));
	switch (ctx.dialect().unknownOrder) {
		case 'envelope200':
			return fault(200, '04', 'Order not found');
		case 'envelope404':
			return fault(404, '04', 'Order not found');
		case 'text404':
			return text(404, 'Order not found');
		case 'problem404':
			return {
				...json(404, {
					type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
					title: 'Not Found',
					status: 404,
					traceId: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`,
				}),
				headers: { 'content-type': 'application/problem+json; charset=utf-8' },
			};
		case 'spring404':
			// With server.error.include-message=always; `path` is the request's URI as sent.
			return json(404, {
				timestamp: new Date().toISOString().replace('Z', '+00:00'),
				status: 404,
				error: 'Not Found',
				message: `Order ${reference ?? rawReference} not found`,
				path: `/v2/orders/${rawReference}`,
			});
	}
}

function getVoucherStatus(ctx: ApiContext, rawCode: string): Reply {
	const code = decodeSegment(rawCode);
	const voucher = code === null ? undefined : ctx.state.vouchers.get(code);
	if (!voucher) return errorReply(ctx.dialect(), 404, 'Voucher not found');
	return ok({ status: voucher.state, value: voucher.value, expiryDate: voucher.expiryDate });
}

const wallets = (ctx: ApiContext): Reply =>
	ok(
		ctx.walletCurrencies().map((currency) => ({
			balance: currency === 'NGN' ? toNaira(balanceKobo(ctx.state.ledger)) : 0,
			currency,
		})),
	);

/** The seven /v2 endpoints, for an already authenticated caller. */
export function routeApi(ctx: ApiContext, req: ApiRequest): Reply {
	const { method, path } = req;
	if (method === 'POST' && path === '/v2/orders') return createOrder(ctx, 'download', req);
	if (method === 'POST' && path === '/v2/orders/recipients')
		return createOrder(ctx, 'recipients', req);
	if (method === 'GET') {
		if (path === '/v2/transactions/wallets') return wallets(ctx);
		if (path === '/v2/countries') return ok(COUNTRIES);
		if (path === '/v2/orders/templates') {
			const dialect = ctx.dialect();
			return ok(ctx.templates().map((t) => ({ ...t, id: templateIdIn(dialect, t.id) })));
		}
		if (path.startsWith('/v2/vouchers/status/'))
			return getVoucherStatus(ctx, path.slice('/v2/vouchers/status/'.length));
		if (path.startsWith('/v2/orders/')) return getOrder(ctx, path.slice('/v2/orders/'.length));
	}
	return text(404, 'Not Found');
}
