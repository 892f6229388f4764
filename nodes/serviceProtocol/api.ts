/*
 * The service's contract as the spec gives it: every endpoint, the envelope and its codes.
 * The one place to look when the service changes a path or a code; everything that talks
 * to the service imports them from here.
 */

/** `00`: success, in every answer's envelope. */
export const SUCCESS_CODE = '00';

/** `04`: Get Order's "no order under this reference" (its HTTP status is not shown). */
export const ORDER_NOT_FOUND_CODE = '04';

/** The two kinds of order, each created at its own endpoint. */
export type OrderKind = 'download' | 'recipients';

export const CREATE_ORDER_PATHS: Record<OrderKind, string> = {
	download: '/v2/orders',
	recipients: '/v2/orders/recipients',
};

export const WALLETS_PATH = '/v2/transactions/wallets';
export const COUNTRIES_PATH = '/v2/countries';
export const TEMPLATES_PATH = '/v2/orders/templates';

/** Get Order; the reference is the client's own, so it is encoded as one path segment. */
export const orderPath = (reference: string) => `/v2/orders/${encodeURIComponent(reference)}`;

export const voucherStatusPath = (voucherCode: string) =>
	`/v2/vouchers/status/${encodeURIComponent(voucherCode)}`;

/** The envelope every answer of the service carries. */
export interface Envelope {
	statusCode: string;
	message: string | null;
	data?: unknown;
}

/** The service's envelope in a body (JSON text or parsed); undefined when it has none. */
export function asEnvelope(body: unknown): Envelope | undefined {
	let value = body;
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch {
			return undefined;
		}
	}
	if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
	const record = value as Record<string, unknown>;
	if (typeof record.statusCode !== 'string') return undefined;
	return {
		statusCode: record.statusCode,
		message: typeof record.message === 'string' ? record.message : null,
		data: record.data,
	};
}
