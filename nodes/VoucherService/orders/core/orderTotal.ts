import type { OrderRequest } from '../types';

export function voucherCount(request: OrderRequest): number {
	return request.kind === 'download' ? request.body.quantity : request.body.recipients.length;
}

/** What the order costs before any coupon, in integer kobo. */
export function orderTotalKobo(request: OrderRequest): number {
	return request.body.amountKobo * voucherCount(request);
}

/** What these orders cost together before coupons: the dry run's total and the run's. */
export function ordersTotalKobo(requests: OrderRequest[]): number {
	return requests.reduce((sum, request) => sum + orderTotalKobo(request), 0);
}
