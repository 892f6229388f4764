import { orderPath, WALLETS_PATH } from '../../serviceProtocol/api';
import type { ObservedAnswer } from '../transport/client';
import { isVoucherApiError } from '../transport/errors';
import type { Order } from '../orders/types';
import type { WalletCheck } from '../orders/core/walletCheck';
import { formatNaira } from '../shared/money';
import { templateIdAsSent } from '../shared/validation';
import { dataOf, describeBody, describeRefusal, quoted, RESENT_FOR } from './answers';
import type { CheckItem } from './types';

/*
 * The checks on what the reads returned. Each read went through the package's own code
 * (the wallet check, the order look-up, the client's reads), so what a check says the
 * package does is what it did here.
 */

/** A read's value or error, and every attempt it made. */
export type Read<T> = ({ value: T } | { error: unknown }) & { answers: ObservedAnswer[] };

/** The check names, in the order of the output. */
export const CHECKS = {
	keys: 'Keys and base URL',
	wallet: 'NGN wallet',
	unknownOrder: 'Unknown order',
	templates: 'Templates',
	countries: 'Countries',
} as const;

/*
 * The error of a read in plain words. The transport's messages are the package's own, but
 * a refusal's repeats the service's message, which may echo a key: it is rebuilt from the
 * code and the message as describeBody masks them. Any other error is the package refusing
 * what it read, and its message may quote the answer, so it is masked the same way.
 */
function why(error: unknown): string {
	if (isVoucherApiError(error) && error.kind === 'rejected') {
		const { serviceCode, serviceMessage, httpCode } = error;
		const said =
			serviceCode !== undefined
				? describeRefusal(serviceCode, serviceMessage)
				: `HTTP ${httpCode}, text ${serviceMessage === undefined ? 'none' : quoted(serviceMessage)}`;
		return `the voucher service refused the request (${said})`;
	}
	if (isVoucherApiError(error))
		return error.message.charAt(0).toLowerCase() + error.message.slice(1);
	const message = error instanceof Error ? error.message : String(error);
	return `the package refused the answer: ${quoted(message)}`;
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** True when the read failed after every retry: the other reads would only wait through the same. */
export const retriedToTheEnd = (read: Read<unknown>) =>
	'error' in read &&
	isVoucherApiError(read.error) &&
	(read.error.outcomeUnknown || read.error.kind === 'unavailable');

/** The read's last answer on `path`: a look-up may also read other paths (e.g. to trust a 404). */
function lastAnswer(read: Read<unknown>, path: string): ObservedAnswer | undefined {
	const onPath = read.answers.filter((answer) => answer.path === path);
	return onPath[onPath.length - 1];
}

const answered = (read: Read<unknown>, path: string) => {
	const answer = lastAnswer(read, path);
	return answer?.httpStatus === undefined
		? 'no answer'
		: `HTTP ${answer.httpStatus} with ${describeBody(answer.body)}`;
};

/** A check whose read failed: the service's refusal is the finding. */
const notRead = (
	check: string,
	read: { error: unknown },
	whatThePackageDoes: string,
): CheckItem => ({
	check,
	result: 'failed',
	seen: `Not read: ${why(read.error)}.`,
	whatThePackageDoes,
});

/** True when the wallets answered with success, whatever the package then made of them. */
const walletsAnswered = (read: Read<unknown>) => {
	const http = lastAnswer(read, WALLETS_PATH)?.httpStatus;
	return http !== undefined && http >= 200 && http < 300;
};

export function keysCheck(read: Read<WalletCheck>): CheckItem {
	const check = CHECKS.keys;
	if ('value' in read || walletsAnswered(read)) {
		return {
			check,
			result: 'ok',
			seen: 'The wallets were read with these keys at this base URL.',
			whatThePackageDoes: 'Every operation uses this credential as it is.',
		};
	}
	const error = read.error;
	const kind = isVoucherApiError(error) ? error.kind : undefined;
	const httpCode = isVoucherApiError(error) ? error.httpCode : undefined;
	const seen = `Reading the wallets got ${answered(read, WALLETS_PATH)}: ${why(error)}.`;
	const rest = retriedToTheEnd(read) ? ' The other reads were not tried.' : '';
	if (kind === 'auth' && httpCode === '403') {
		return {
			check,
			result: 'failed',
			seen: `${seen} The keys are known to the service but not allowed to read the wallets.`,
			whatThePackageDoes:
				'Fails every call the keys are not allowed, without retrying it. Ask the account owner to grant the permission in the business dashboard.',
		};
	}
	if (kind === 'auth') {
		return {
			check,
			result: 'failed',
			seen: `${seen} The service does not accept the keys.`,
			whatThePackageDoes:
				'Fails every call, without retrying, until the public key, the secret key and the base URL of the credential are right. Nothing can be bought.',
		};
	}
	if (kind === 'network') {
		return {
			check,
			result: 'failed',
			seen: `Reading the wallets got no answer: ${why(error)}, after every retry.`,
			whatThePackageDoes:
				'Can neither read nor buy until the base URL is right and reachable from n8n.' + rest,
		};
	}
	if (kind === 'notFound' || kind === 'unreadable') {
		return {
			check,
			result: 'failed',
			seen: `${seen} Something answers at the base URL, but not as the voucher service does.`,
			whatThePackageDoes:
				'Fails every call. The base URL is the address before /v2, as in your business dashboard.' +
				rest,
		};
	}
	if (kind === 'server' || kind === 'unavailable') {
		return {
			check,
			result: 'failed',
			seen: `${seen} That was the last attempt.`,
			whatThePackageDoes:
				(kind === 'unavailable'
					? `Resends a refused request at the pace the service admits, for up to ${RESENT_FOR}; then the item fails, saying whether a create was bought.`
					: 'Retries reads with growing pauses; while the service answers this way, orders fail.') +
				' Try again later.' +
				rest,
		};
	}
	return notRead(check, read, 'Fails every call the service refuses this way.');
}

/** A balance that is not a number, shown only where it cannot be a key. */
function balanceExample(balance: unknown): string {
	if (typeof balance === 'string')
		return `, e.g. ${/^[-+\d\s,.]{1,20}$/.test(balance) ? `"${balance}"` : quoted(balance)}`;
	return typeof balance === 'object' && balance !== null ? '' : `, e.g. ${String(balance ?? null)}`;
}

/** Where the wallets differ from the spec's { balance: number, currency: three letters }, one example each. */
function walletShape(data: unknown): string[] {
	if (!Array.isArray(data)) return ['the wallets are not a list'];
	const problems = new Map<string, string>();
	const add = (kind: string, text: string) => {
		if (!problems.has(kind)) problems.set(kind, text);
	};
	for (const wallet of data as Array<Record<string, unknown> | null>) {
		if (typeof wallet !== 'object' || wallet === null) {
			add('object', 'a wallet is not an object');
			continue;
		}
		const { balance, currency } = wallet;
		if (typeof balance !== 'number') {
			const type = typeof balance === 'string' ? 'text' : String(typeof balance);
			add(type, `balances come as ${type}${balanceExample(balance)}, not numbers`);
		}
		if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
			add('currency', 'a currency is not three capital letters');
		}
	}
	return [...problems.values()];
}

/** A wallet's currency as it came only when it is letters: the rest is masked. */
function shownCurrency(currency: unknown): string {
	if (typeof currency === 'string')
		return /^[A-Za-z]{1,10}$/.test(currency) ? currency : quoted(currency);
	return typeof currency === 'object' && currency !== null ? '(not text)' : String(currency);
}

const currencies = (data: unknown) =>
	Array.isArray(data) ? (data as Array<{ currency?: unknown } | null>).map((w) => w?.currency) : [];

export function walletCheck(read: Read<WalletCheck>): CheckItem {
	const check = CHECKS.wallet;
	const data = dataOf(lastAnswer(read, WALLETS_PATH)?.body);
	const shape = walletShape(data);
	const differs = shape.length > 0 ? ` Differs from the spec: ${shape.join('; ')}.` : '';
	const listed = `Wallets: ${currencies(data).map(shownCurrency).join(', ') || 'none'}.`;
	if ('error' in read && walletsAnswered(read)) {
		// The wallet check itself refused what it read (a balance it cannot read, say).
		const { description } = read.error as { description?: unknown };
		return {
			check,
			result: 'failed',
			seen: `${listed} ${sentence(why(read.error))}.${differs}`,
			whatThePackageDoes:
				typeof description === 'string' && description
					? description
					: 'Check Wallet Balance First cannot work with this answer.',
		};
	}
	if ('error' in read) {
		return notRead(
			check,
			read,
			'Check Wallet Balance First cannot work until the wallets can be read.',
		);
	}
	const hasNgn = currencies(data).some(
		(c) =>
			String(c ?? '')
				.trim()
				.toUpperCase() === 'NGN',
	);
	const wallet = read.value;
	if (wallet.kind === 'unchecked') {
		return {
			check,
			result: hasNgn ? 'warning' : 'failed',
			// Without an NGN wallet, wallet.why names the service's currencies unmasked.
			seen: `${listed} ${hasNgn ? sentence(wallet.why) : 'The service lists no NGN wallet'}.${differs}`,
			whatThePackageDoes:
				'Orders are priced in Naira. Check Wallet Balance First cannot compare, so a run goes on without it and a hint says why.',
		};
	}
	const balance = formatNaira(wallet.balanceKobo);
	const empty = wallet.balanceKobo <= 0;
	return {
		check,
		result: empty || shape.length > 0 ? 'warning' : 'ok',
		seen: `${listed} The NGN wallet holds ${balance}.${differs}`,
		whatThePackageDoes: `Reads the NGN balance as ${balance} (rounded down to the kobo): compare it with your dashboard. Check Wallet Balance First refuses a run whose total is more${empty ? ', so it refuses every run until the wallet is topped up' : ''}.`,
	};
}

export function unknownOrderCheck(reference: string, read: Read<Order | undefined>): CheckItem {
	const check = CHECKS.unknownOrder;
	const path = orderPath(reference);
	const seen = `GET ${path}, a Reference that cannot exist, got ${answered(read, path)}.`;
	if ('value' in read && read.value === undefined) {
		return {
			check,
			result: 'ok',
			seen,
			whatThePackageDoes:
				'Reads it as not found: Order → Get says there is no such order, and a create whose answer was lost is looked up and sent again only when not found.',
		};
	}
	if ('value' in read) {
		return {
			check,
			result: 'failed',
			seen: `${seen} It was read as order ${quoted(String(read.value?.orderNumber))}.`,
			whatThePackageDoes:
				'Takes this answer for an existing order: a create whose answer was lost would be reported as bought. Do not go live against this service.',
		};
	}
	if (isVoucherApiError(read.error) && read.error.kind === 'auth') {
		return notRead(
			check,
			read,
			'Cannot look orders up, so no create can be made safe against a lost answer.',
		);
	}
	return {
		check,
		result: 'failed',
		seen: `${seen} The package read it as: ${why(read.error)}.`,
		whatThePackageDoes:
			'Does not read it as not found: Order → Get and campaign rows fail, and a create whose answer was lost ends as "bought is unknown" instead of being sent again. Nothing is bought twice, but rows are left for a re-run.',
	};
}

export function templatesCheck(read: Read<unknown>): CheckItem {
	const check = CHECKS.templates;
	if ('error' in read) {
		return notRead(
			check,
			read,
			'The Template dropdown stays empty; Create for Recipients needs a template ID by expression.',
		);
	}
	const list = read.value;
	if (!Array.isArray(list)) {
		return {
			check,
			result: 'failed',
			seen: `The templates are not a list: ${describeBody(list)}.`,
			whatThePackageDoes:
				'The Template dropdown and Template → Get Many fail, saying what came back; Create for Recipients needs a template ID by expression.',
		};
	}
	if (list.length === 0) {
		return {
			check,
			result: 'warning',
			seen: 'The list is empty.',
			whatThePackageDoes:
				'Create for Recipients needs a template: add one in the business dashboard. Order → Create (download) needs none.',
		};
	}
	const ids = (list as Array<{ id?: unknown } | null>).map((t) => t?.id);
	const unusable = ids.filter((id) => templateIdAsSent(id) === undefined);
	const shown = (some: unknown[]) =>
		some
			.slice(0, 5)
			.map((id) => JSON.stringify(id ?? null).slice(0, 30))
			.join(', ') + (some.length > 5 ? ', …' : '');
	if (unusable.length === 0) {
		return {
			check,
			result: 'ok',
			seen: `${list.length} templates, ids ${shown(ids)}: all whole numbers.`,
			whatThePackageDoes:
				'Create for Recipients sends the chosen id as the number templateId, as the create requires.',
		};
	}
	return {
		check,
		result: unusable.length === ids.length ? 'failed' : 'warning',
		seen: `${list.length} templates; ${unusable.length} with ids that are not whole numbers: ${shown(unusable)}.`,
		whatThePackageDoes:
			'Shows those in the Template dropdown but lets none be chosen, and refuses such an id before sending: the create takes templateId as a number (int32).',
	};
}

export function countriesCheck(read: Read<unknown>): CheckItem {
	const check = CHECKS.countries;
	const does = 'Country → Get Many outputs them as they come; nothing else uses them.';
	if ('error' in read) return notRead(check, read, does);
	const list = read.value;
	const fails = 'Country → Get Many fails, saying what came back; nothing else uses the countries.';
	if (!Array.isArray(list)) {
		return {
			check,
			result: 'warning',
			seen: `Not a list: ${describeBody(list)}.`,
			whatThePackageDoes: fails,
		};
	}
	const odd = (list as Array<{ code?: unknown; name?: unknown } | null>).filter(
		(c) => typeof c?.code !== 'string' || !/^[A-Z]{2}$/.test(c.code) || typeof c.name !== 'string',
	);
	return {
		check,
		result: odd.length > 0 || list.length === 0 ? 'warning' : 'ok',
		seen:
			`${list.length} countries.` +
			(odd.length > 0
				? ` ${odd.length} differ from the spec's shape (code: two capital letters, name: text).`
				: ''),
		whatThePackageDoes: list.every((c) => typeof c === 'object' && c !== null && !Array.isArray(c))
			? does
			: fails,
	};
}
