import { randomUUID } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { isLearntAnswer, learnAnswer } from '../transport/answerIdentity';
import type { AnswerIdentity, LearntAnswer } from '../transport/answerIdentity';
import type { VoucherApiClient } from '../transport/client';
import { asNodeError, isVoucherApiError, operationError } from '../transport/errors';
import type { VoucherApiError } from '../transport/errors';
import { wait } from '../transport/retry';
import { readDecimal } from '../shared/money';
import { readSerial } from '../../serviceProtocol/numbers';
import { ORDER_NOT_FOUND_CODE, orderPath, WALLETS_PATH } from '../../serviceProtocol/api';
import { inSpecCase, isTerminal } from '../../serviceProtocol/orderStatus';
import type { Order, OrderResult } from './types';

/** A reference as the service may compare it (not documented): any case, no surrounding spaces. */
export const referenceKey = (reference: string) => reference.trim().toLowerCase();

/** What is wrong with an answer that is not the order asked for, for the error's description. */
const whyNotTheOrder = (data: unknown) =>
	Array.isArray(data)
		? 'It answered with a list.'
		: 'It lacks an order number or status, or names another reference.';

/** An order as the package uses it, or why the answer cannot be read as the order asked for. */
export type OrderReading = { order: Order } | { problem: string; why: string };

/**
 * A voucher with the spec's types: a value (the money) read strictly or not at all, a serial
 * made a number only where no digit is lost, the item status in the spec's case.
 */
function readVoucher(voucher: unknown, index: number): IDataObject | string {
	if (typeof voucher !== 'object' || voucher === null || Array.isArray(voucher))
		return `voucher ${index + 1} is not an object`;
	const sent = voucher as IDataObject;
	const { value, serial, status } = sent;
	const naira = value === undefined || value === null ? value : readDecimal(value);
	if (naira === undefined && value !== undefined)
		return `voucher ${index + 1}'s value ${JSON.stringify(value)} is not a number`;
	const exactSerial = readSerial(serial);
	const specStatus = inSpecCase(status);
	// Most answers already have the spec's types: those vouchers are kept, not copied.
	if (naira === value && exactSerial === serial && specStatus === status) return sent;
	return {
		...sent,
		...('value' in sent ? { value: naira } : {}),
		...('serial' in sent ? { serial: exactSerial } : {}),
		...('status' in sent ? { status: specStatus } : {}),
	};
}

/**
 * The answer's data as the order under `reference`. Whatever else the service answers (a
 * list, another order, a value that is not a number) must never be taken for this order:
 * safe create and the campaigns decide what to buy from it. An order that names no reference
 * (a create's answer may not) is the one asked for, and keeps the Reference asked for: Wait
 * for Completion and the output follow the order by it.
 */
export function readOrder(data: unknown, reference: string): OrderReading {
	const order = data as Partial<Order> | null;
	const isOrder =
		typeof order === 'object' &&
		order !== null &&
		!Array.isArray(order) &&
		typeof order.orderNumber === 'string' &&
		typeof order.status === 'string' &&
		(order.reference === undefined ||
			order.reference === null ||
			referenceKey(String(order.reference)) === referenceKey(reference));
	if (!isOrder) return { problem: 'is not that order', why: whyNotTheOrder(data) };
	const vouchers = Array.isArray(order.vouchers)
		? order.vouchers.map((voucher, index) => readVoucher(voucher, index))
		: order.vouchers;
	const unreadable = vouchers?.find((voucher) => typeof voucher === 'string');
	if (typeof unreadable === 'string')
		return {
			problem: `cannot be read: ${unreadable}`,
			why: `Order ${order.orderNumber}: ${unreadable}.`,
		};
	return {
		order: {
			...(order as Order),
			reference: order.reference ?? reference,
			status: inSpecCase(order.status) as string,
			...(vouchers !== undefined ? { vouchers: vouchers as IDataObject[] | null } : {}),
		},
	};
}

/** The answer's data as the order under `reference`, or an error naming the item and the reference. */
export function asOrder(
	client: VoucherApiClient,
	data: unknown,
	reference: string,
	itemIndex: number,
): Order {
	const reading = readOrder(data, reference);
	if ('order' in reading) return reading.order;
	throw operationError(
		client.node,
		`Item ${itemIndex}: the service's answer for reference "${reference}" ${reading.problem}`,
		{
			itemIndex,
			description: `${reading.why} The output shows nothing from it, and nothing was bought on the strength of it.`,
		},
	);
}

/*
 * The spec's "no such order" is the `04` envelope; the HTTP status beside it is not shown. A 404
 * without `04` may be the service's own way of saying it (a reading the tests try), or come
 * from whatever missed the order route: a base URL that is not the service's answers 404 to every
 * path, a gateway refuses a path it dislikes (IIS an encoded `%`, Apache an encoded `/`), an HTTP
 * client rewrites a path. Taken for "no such order", any of these buys again after an unclear
 * create. So such a 404 means "not found" only when it is the order route's own answer to an
 * unknown Reference: the wallets answer at the same base URL, and two fresh References of
 * letters, digits and `-`, which nothing in between changes, get a 404 that is the same answer.
 * "The same" is told by what identifies an answer, not by what each answer carries of its own
 * (a traceId, a time, the path or Reference echoed): see answerIdentity.ts; a field that still
 * differs between the two counts by its presence only. A 404 whose status, media type, field
 * names or any other field differ (a gateway's HTML page, Kong's `{"message": …}`) is not "not
 * found". Where a fresh Reference gets `04`, no 404 without it is. Learnt once per client, as
 * the base URL is read.
 */
type UnknownOrderAnswer =
	| 'baseUrlMissesService'
	| 'code04'
	/** Undefined: the service's 404 changes from answer to answer beyond that, so none is recognised. */
	| { bare404: LearntAnswer | undefined };

const unknownOrderAnswers = new WeakMap<VoucherApiClient, Promise<UnknownOrderAnswer>>();

/** What identifies a read's 404, or undefined when it was answered; other failures are thrown. */
async function notFoundIdentity(
	client: VoucherApiClient,
	read: Promise<unknown>,
): Promise<AnswerIdentity | undefined> {
	try {
		await read;
		return undefined;
	} catch (error) {
		if (isVoucherApiError(error) && error.kind === 'notFound') return error.answerIdentity ?? {};
		throw asNodeError(client.node, error);
	}
}

async function learnUnknownOrderAnswer(
	client: VoucherApiClient,
	itemIndex: number,
): Promise<UnknownOrderAnswer> {
	const wallets = client.request<unknown>({ method: 'GET', path: WALLETS_PATH, itemIndex });
	if ((await notFoundIdentity(client, wallets)) !== undefined) return 'baseUrlMissesService';
	const probe = async () =>
		await notFoundIdentity(
			client,
			client.request<unknown>({
				method: 'GET',
				path: orderPath(`n8n-probe-${randomUUID()}`),
				itemIndex,
				acceptCodes: [ORDER_NOT_FOUND_CODE],
			}),
		);
	const [first, second] = await Promise.all([probe(), probe()]);
	if (first === undefined || second === undefined) return 'code04';
	return { bare404: learnAnswer(first, second) };
}

async function unknownOrderAnswer(
	client: VoucherApiClient,
	itemIndex: number,
): Promise<UnknownOrderAnswer> {
	let answer = unknownOrderAnswers.get(client);
	if (!answer) {
		answer = learnUnknownOrderAnswer(client, itemIndex);
		unknownOrderAnswers.set(client, answer);
		// A failure is not learnt: the next 404 asks again.
		answer.catch(() => unknownOrderAnswers.delete(client));
	}
	return await answer;
}

/** Why a 404 without `04` does not say the order is missing; undefined when it does. */
async function whyNotNotFound(
	client: VoucherApiClient,
	error: VoucherApiError,
	itemIndex: number,
): Promise<{ message: string; description: string } | undefined> {
	const answer = await unknownOrderAnswer(client, itemIndex);
	const learnt = typeof answer === 'object' ? answer.bare404 : undefined;
	if (learnt && error.answerIdentity && isLearntAnswer(learnt, error.answerIdentity))
		return undefined;
	if (answer === 'baseUrlMissesService')
		return {
			message: 'the base URL answers HTTP 404 to the wallets too',
			description:
				'So the 404 does not say the order is missing: the base URL does not point at the voucher service. Check the base URL in the Voucher Service API credential.',
		};
	const inFront = 'came from something in front of it (a gateway or proxy) and ';
	const [answered, from] =
		answer === 'code04'
			? ['with code 04', inFront]
			: learnt
				? ['with another 404', inFront]
				: [
						'with a 404 that changes from answer to answer in more than ids, times and the Reference',
						'',
					];
	return {
		message: "HTTP 404 without the service's answer for an unknown order",
		description: `The service answers a Reference it does not know ${answered}, so this 404 ${from}does not say the order is missing.`,
	};
}

/**
 * The order with this reference, or undefined when the service answers `04` (or its own 404,
 * see above). Reads are retried. `burst`: one of a bounded window of look-ups sent at once (see ApiCall.burst).
 */
export async function findOrder(
	client: VoucherApiClient,
	reference: string,
	itemIndex: number,
	burst = false,
): Promise<Order | undefined> {
	let data: unknown;
	try {
		data = await client.request<unknown>({
			method: 'GET',
			path: orderPath(reference),
			itemIndex,
			acceptCodes: [ORDER_NOT_FOUND_CODE],
			burst,
		});
	} catch (error) {
		if (!isVoucherApiError(error) || error.kind !== 'notFound')
			throw asNodeError(client.node, error);
		const why = await whyNotNotFound(client, error, itemIndex);
		if (why === undefined) return undefined;
		throw operationError(
			client.node,
			`Item ${itemIndex}: order "${reference}" could not be looked up: ${why.message}`,
			{
				itemIndex,
				description: `${why.description} Nothing was bought on the strength of this answer.`,
			},
		);
	}
	return data === undefined ? undefined : asOrder(client, data, reference, itemIndex);
}

/** Polling while an order is PROCESSING: first check after 1 s, then 1.5× longer, at most 15 s apart. */
export const WAIT_POLL = { firstDelayMs: 1_000, factor: 1.5, maxDelayMs: 15_000 };

/** Polls Get Order until a terminal status or the deadline; on timeout returns the order as it is. */
export async function waitForTerminalStatus(
	client: VoucherApiClient,
	result: OrderResult,
	timeoutMs: number,
	itemIndex: number,
): Promise<OrderResult> {
	const deadline = Date.now() + timeoutMs;
	let order = result.order;
	let delay = WAIT_POLL.firstDelayMs;
	while (!isTerminal(order.status)) {
		const remaining = deadline - Date.now();
		// `!(> 0)` also ends a wait whose timeout is not a number: never poll without a pause.
		if (!(remaining > 0)) return { ...result, order, waitTimedOut: true };
		await wait(Math.min(delay, remaining));
		delay = Math.min(WAIT_POLL.maxDelayMs, delay * WAIT_POLL.factor);
		order = (await findOrder(client, result.order.reference, itemIndex)) ?? order;
	}
	return { ...result, order };
}
