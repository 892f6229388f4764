import type { IDataObject, INode } from 'n8n-workflow';

import { operationError } from '../transport/errors';
import { formatNaira } from '../shared/money';
import type { Order, OrderRequest, PlannedOrder } from './types';
import { listed } from './wording';

/** A person: e-mail, first and last name, each trimmed and compared case-insensitively. */
export function recipientKey(person: { email?: unknown; firstName?: unknown; lastName?: unknown }) {
	const part = (value: unknown) =>
		String(value ?? '')
			.trim()
			.toLowerCase();
	return JSON.stringify([part(person.email), part(person.firstName), part(person.lastName)]);
}

/**
 * Whether an order found under a request's reference is that request. The service has no
 * idempotency key, only the reference, so a reference reused for another request would
 * otherwise come back as if it had been bought. Like an idempotency key reused with other
 * parameters, it is refused. Only what the order shows can be compared: product code,
 * template, PIN and coupon are not in the answer.
 */
type OrderMatch =
	| { kind: 'match' }
	/** No vouchers listed (PROCESSING, or a final order without a list): nothing to compare. */
	| { kind: 'unverified' }
	| { kind: 'mismatch'; differences: string[] };

/** A voucher value (a double in NGN) in kobo, for comparing with an amount. */
export const voucherKobo = (voucher: IDataObject) => Math.round(Number(voucher.value) * 100);

/** Each value of `a` that `b` lacks, counted: a person listed twice needs two vouchers. */
function missingFrom(a: string[], b: string[]): string[] {
	const left = new Map<string, number>();
	for (const value of b) left.set(value, (left.get(value) ?? 0) + 1);
	return a.filter((value) => {
		const count = left.get(value) ?? 0;
		if (count > 0) left.set(value, count - 1);
		return count === 0;
	});
}

function valueDifference(vouchers: IDataObject[], askedKobo: number): string[] {
	const other = vouchers.map(voucherKobo).find((kobo) => kobo !== askedKobo);
	if (other === undefined) return [];
	return [
		`its vouchers are worth ${formatNaira(other)}, this item asks for ${formatNaira(askedKobo)}`,
	];
}

const person = (who: Person) =>
	`${String(who.firstName ?? '').trim()} ${String(who.lastName ?? '').trim()} <${String(who.email ?? '').trim()}>`;

type Person = { email?: unknown; firstName?: unknown; lastName?: unknown };

function recipientDifferences(
	vouchers: IDataObject[],
	asked: Person[],
	complete: boolean,
): string[] {
	const held = vouchers.map(recipientKey);
	const wanted = asked.map(recipientKey);
	const byKey = new Map([...vouchers, ...asked].map((who) => [recipientKey(who), person(who)]));
	const describe = (keys: string[]) => listed(keys.map((key) => byKey.get(key) ?? key));
	const notAsked = missingFrom(held, wanted);
	// An order that did not complete may list only the vouchers it made.
	const notHeld = complete ? missingFrom(wanted, held) : [];
	return [
		...(notAsked.length ? [`it is for ${describe(notAsked)}, whom this item does not name`] : []),
		...(notHeld.length ? [`it holds no voucher for ${describe(notHeld)}`] : []),
	];
}

function matchOrder(order: Order, request: OrderRequest): OrderMatch {
	const vouchers = Array.isArray(order.vouchers) ? order.vouchers : [];
	if (vouchers.length === 0) return { kind: 'unverified' };
	const forRecipients = vouchers.some((voucher) => Boolean(voucher.email));
	const complete = order.status === 'COMPLETED';
	let differences: string[];
	if (request.kind === 'download') {
		const { quantity, amountKobo } = request.body;
		const countDiffers = complete ? vouchers.length !== quantity : vouchers.length > quantity;
		differences = forRecipients
			? ['it is an order for recipients, this item asks for a download order']
			: [
					...(countDiffers
						? [`it has ${vouchers.length} vouchers, this item asks for ${quantity}`]
						: []),
					...valueDifference(vouchers, amountKobo),
				];
	} else {
		const { recipients, amountKobo } = request.body;
		differences = forRecipients
			? [
					...recipientDifferences(vouchers, recipients, complete),
					...valueDifference(vouchers, amountKobo),
				]
			: ['it is a download order, this item asks for an order for recipients'];
	}
	return differences.length === 0 ? { kind: 'match' } : { kind: 'mismatch', differences };
}

/** What in an order differs from the request, as far as its vouchers show; none when unlisted. */
export function orderDifferences(order: Order, request: OrderRequest): string[] {
	const match = matchOrder(order, request);
	return match.kind === 'mismatch' ? match.differences : [];
}

/**
 * The order found under a planned order's reference, held against it. A reference already
 * used for another request is refused like a reused idempotency key: this throws, naming the
 * order and what differs. Otherwise it says whether the order could be compared at all.
 */
export function checkFoundOrder(
	node: INode,
	{ itemIndex, request }: PlannedOrder,
	order: Order,
): 'match' | 'unverified' {
	const match = matchOrder(order, request);
	if (match.kind !== 'mismatch') return match.kind;
	throw operationError(
		node,
		`Item ${itemIndex}: reference "${request.body.reference}" already belongs to another request, order ${order.orderNumber}`,
		{
			itemIndex,
			description: `The existing order differs from this item: ${match.differences.join('; ')}. Nothing was bought for this item. Give each new request a new Reference.`,
		},
	);
}
