import { toKobo } from '../../shared/money';
import type { DownloadOrderInput, RecipientOrderInput } from '../../shared/validation';

/** JSON key of the coupon code in both create bodies. The spec does not name it; change it here only. */
export const COUPON_JSON_KEY = 'couponCode';

type Optional = { [COUPON_JSON_KEY]?: string };

type DownloadOrderBody = Optional & {
	reference: string;
	productCode: string;
	amount: number;
	quantity: number;
	pin?: string;
};

type RecipientOrderBody = Optional & {
	reference: string;
	productCode: string;
	amount: number;
	templateId: number;
	recipients: Array<{ firstName: string; lastName: string; email: string }>;
	narration?: string;
};

/**
 * Everything a create sends. Reference, amount and voucher count are read from the body,
 * never carried beside it, so what is checked is always what is sent.
 */
export type OrderRequest =
	| { path: '/v2/orders'; body: DownloadOrderBody }
	| { path: '/v2/orders/recipients'; body: RecipientOrderBody };

/** An order request and the input item it answers to (for error messages). */
export interface PlannedOrder {
	itemIndex: number;
	request: OrderRequest;
}

/** Optional fields are left out when empty, so the service applies its own defaults. */
const coupon = (couponCode: string | undefined): Optional =>
	couponCode !== undefined ? { [COUPON_JSON_KEY]: couponCode } : {};

export function downloadOrderRequest(input: DownloadOrderInput): OrderRequest {
	return {
		path: '/v2/orders',
		body: {
			reference: input.reference,
			productCode: input.productCode,
			amount: input.amount,
			quantity: input.quantity,
			...(input.pin !== undefined ? { pin: input.pin } : {}),
			...coupon(input.couponCode),
		},
	};
}

export function recipientOrderRequest(input: RecipientOrderInput): OrderRequest {
	return {
		path: '/v2/orders/recipients',
		body: {
			reference: input.reference,
			productCode: input.productCode,
			amount: input.amount,
			templateId: input.templateId,
			recipients: input.recipients,
			...(input.narration !== undefined ? { narration: input.narration } : {}),
			...coupon(input.couponCode),
		},
	};
}

export function voucherCount(request: OrderRequest): number {
	return request.path === '/v2/orders' ? request.body.quantity : request.body.recipients.length;
}

/** What the order costs before any coupon, in integer kobo (the amount was validated to whole kobo). */
export function orderTotalKobo(request: OrderRequest): number {
	return (toKobo(request.body.amount) ?? Number.NaN) * voucherCount(request);
}
