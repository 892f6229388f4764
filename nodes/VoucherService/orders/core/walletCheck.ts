import type { IDataObject, INode, NodeExecutionHint } from 'n8n-workflow';

import type { ItemOutcome } from '../../plan';
import { WALLETS_PATH } from '../../../serviceProtocol/api';
import type { VoucherApiClient } from '../../transport/client';
import { listData } from '../../transport/answerShape';
import { operationError } from '../../transport/errors';
import { formatNaira, readDecimal } from '../../shared/money';

/*
 * Check Wallet Balance First. The spec lists one wallet per currency and does not say which
 * one an order debits; orders are in Naira, so the wallet whose currency is NGN is the one
 * compared. The check is a read before the first create, not a reservation.
 */

/** What the wallet read found, compared with the run's total (kobo, before coupons). */
export type WalletCheck =
	| { kind: 'covered'; balanceKobo: number; totalKobo: number }
	| { kind: 'short'; balanceKobo: number; totalKobo: number }
	/** No single NGN wallet: the run is not blocked, a hint says why. */
	| { kind: 'unchecked'; why: string };

const currencyOf = (wallet: IDataObject) =>
	String(wallet.currency ?? '')
		.trim()
		.toUpperCase();

/** The NGN wallet's balance in kobo, or why the run cannot be checked against it. */
export type NgnBalance = number | { unchecked: string };

/** The NGN wallet's balance in kobo, or why it cannot be told from the list. */
function ngnBalanceKobo(list: IDataObject[]): NgnBalance | { unreadable: string } {
	const ngn = list.filter((wallet) => currencyOf(wallet) === 'NGN');
	if (ngn.length === 0) {
		const others = list.map(currencyOf).filter(Boolean);
		return {
			unchecked: `the service lists no NGN wallet${others.length > 0 ? ` (only ${others.join(', ')})` : ''}`,
		};
	}
	if (ngn.length > 1) {
		return {
			unchecked: `the service lists ${ngn.length} NGN wallets, and which one an order uses is not known`,
		};
	}
	// Some services send money as decimal text ("30000.00"): read strictly, never guessed.
	const balance = readDecimal(ngn[0].balance);
	if (balance === undefined) return { unreadable: JSON.stringify(ngn[0].balance ?? null) };
	// Rounded down, so a balance is never taken for more than it is.
	return Math.floor(Math.round(balance * 1000) / 10);
}

/**
 * Reads the wallets once. An NGN balance that is there but cannot be read refuses the run:
 * going on would be a guess with money. `burst`: read beside a window of look-ups (findOrder).
 */
export async function readNgnBalance(
	client: VoucherApiClient,
	itemIndex: number,
	burst = false,
): Promise<NgnBalance> {
	const data = await client.request<unknown>({
		method: 'GET',
		path: WALLETS_PATH,
		itemIndex,
		burst,
	});
	// A list it cannot read is not "no NGN wallet": that would let the run go on unchecked.
	const balanceKobo = ngnBalanceKobo(listData(client.node, data, 'wallet list', itemIndex));
	if (typeof balanceKobo === 'number' || 'unchecked' in balanceKobo) return balanceKobo;
	throw operationError(
		client.node,
		`The NGN wallet's balance ${balanceKobo.unreadable} is not a number, so nothing was bought`,
		{
			itemIndex,
			description:
				'Check Wallet Balance First could not tell whether the wallet covers this run, so it bought nothing. Turn the option off to buy without the check.',
		},
	);
}

/** The NGN balance compared with the run's total. */
export function compareWallet(balanceKobo: NgnBalance, totalKobo: number): WalletCheck {
	if (typeof balanceKobo === 'number')
		return { kind: balanceKobo >= totalKobo ? 'covered' : 'short', balanceKobo, totalKobo };
	return { kind: 'unchecked', why: balanceKobo.unchecked };
}

/** Reads the wallets once and compares the NGN balance with the run's total. */
export async function checkWallet(
	client: VoucherApiClient,
	totalKobo: number,
	itemIndex: number,
): Promise<WalletCheck> {
	return compareWallet(await readNgnBalance(client, itemIndex), totalKobo);
}

/** The hint of a run whose wallet could not be checked; the run goes on. */
export function uncheckedWalletHint(why: string): NodeExecutionHint {
	return {
		message: `The wallet balance was not checked before buying: ${why}. Check Wallet Balance First compares the NGN wallet only; the run went on without it.`,
		type: 'warning',
		location: 'outputPane',
	};
}

/** The message of a refused run, the same for every row it refuses. */
function walletShortMessage({ balanceKobo, totalKobo }: WalletCheck & { kind: 'short' }) {
	return `Nothing was bought: this run would spend ${formatNaira(totalKobo)}, but the NGN wallet holds ${formatNaira(balanceKobo)}, ${formatNaira(totalKobo - balanceKobo)} short`;
}

/** What the dry run's hint adds about the wallet. */
export function walletDryRunText(check: WalletCheck | undefined): string {
	if (!check || check.kind === 'unchecked') return '';
	const holds = `The NGN wallet holds ${formatNaira(check.balanceKobo)}`;
	if (check.kind === 'covered') {
		return ` ${holds}, ${formatNaira(check.balanceKobo - check.totalKobo)} after this run.`;
	}
	return ` ${holds}, ${formatNaira(check.totalKobo - check.balanceKobo)} short: a real run would be refused and buy nothing.`;
}

/** A run the wallet does not cover: every item it would have bought gets the same error. */
export function walletRefusals(
	node: INode,
	check: WalletCheck & { kind: 'short' },
	itemIndexes: number[],
): ItemOutcome[] {
	const message = walletShortMessage(check);
	return itemIndexes.map((itemIndex) => ({
		itemIndex,
		error: operationError(node, message, {
			itemIndex,
			description:
				'Check Wallet Balance First read the wallet before any order was sent. Top up the NGN wallet, or buy for fewer rows. The check is not a reservation: another spender can still use the balance between the check and the orders.',
		}),
	}));
}
