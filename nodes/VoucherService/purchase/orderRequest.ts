import { toKobo } from '../shared/money';
import type { DownloadOrderInput, RecipientOrderInput } from '../shared/validation';
import { COUPON_JSON_KEY } from '../orderTypes';
import type { OrderRequest } from '../orderTypes';

/** Optional fields are left out when empty, so the service applies its own defaults. */
const coupon = (couponCode: string | undefined) =>
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

/** What these orders cost together before coupons: the dry run's total and the run's. */
export function ordersTotalKobo(requests: OrderRequest[]): number {
	return requests.reduce((sum, request) => sum + orderTotalKobo(request), 0);
}
