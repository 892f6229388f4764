import { randomUUID } from 'crypto';

import { COUNTRIES_PATH, TEMPLATES_PATH } from '../../serviceProtocol/api';
import type { ObservedAnswer, VoucherApiClient } from '../transport/client';
import { isVoucherApiError } from '../transport/errors';
import { findOrder } from '../orders/lookup';
import { checkWallet } from '../orders/core/walletCheck';
import { answerTimesCheck, errorBodiesCheck, rateLimitCheck } from './answers';
import type { Read } from './reads';
import {
	CHECKS,
	countriesCheck,
	keysCheck,
	templatesCheck,
	unknownOrderCheck,
	retriedToTheEnd,
	walletCheck,
} from './reads';
import type { CheckItem } from './types';

/*
 * Service → Check: how this account's service answers, before the first real order. Only
 * reads, one at a time so their times are their own; nothing is ever created.
 */

/** Runs a read, keeping its value or error and the attempts it made. */
async function read<T>(answers: ObservedAnswer[], run: () => Promise<T>): Promise<Read<T>> {
	const first = answers.length;
	try {
		const value = await run();
		return { value, answers: answers.slice(first) };
	} catch (error) {
		return { error, answers: answers.slice(first) };
	}
}

/**
 * Every check, one item each. `client` must be the check's own: it listens to all its
 * answers. A service that cannot be reached still gives every check its item.
 */
export async function runServiceCheck(
	client: VoucherApiClient,
	itemIndex: number,
): Promise<CheckItem[]> {
	const answers: ObservedAnswer[] = [];
	client.observe = (answer) => answers.push(answer);
	// Read as the wallet check reads it; a total of 0 asks only for the balance.
	const wallets = await read(answers, async () => await checkWallet(client, 0, itemIndex));
	// Nothing asked of the service (no credential, say): the node's error, as in every operation.
	if ('error' in wallets && wallets.answers.length === 0 && !isVoucherApiError(wallets.error))
		throw wallets.error;
	const checks = [keysCheck(wallets)];
	if (retriedToTheEnd(wallets)) {
		const notTried = (check: string): CheckItem => ({
			check,
			result: 'failed',
			seen: 'Not tried: reading the wallets failed after every retry.',
			whatThePackageDoes: 'Nothing can be read or bought until the wallets can.',
		});
		checks.push(
			...[CHECKS.wallet, CHECKS.unknownOrder, CHECKS.templates, CHECKS.countries].map(notTried),
		);
	} else {
		// A Reference no one can have used: the check must never find a real order.
		const reference = `n8n-check-${randomUUID()}`;
		const order = await read(answers, async () => await findOrder(client, reference, itemIndex));
		const list = async (path: string) =>
			await read(
				answers,
				async () => await client.request<unknown>({ method: 'GET', path, itemIndex }),
			);
		const templates = await list(TEMPLATES_PATH);
		const countries = await list(COUNTRIES_PATH);
		checks.push(
			walletCheck(wallets),
			unknownOrderCheck(reference, order),
			templatesCheck(templates),
			countriesCheck(countries),
		);
	}
	checks.push(errorBodiesCheck(answers), rateLimitCheck(answers), answerTimesCheck(answers));
	return checks;
}
