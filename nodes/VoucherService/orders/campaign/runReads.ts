import type { VoucherApiClient } from '../../transport/client';
import type { CampaignOrder } from '../types';
import { readNgnBalance } from '../core/walletCheck';
import type { NgnBalance } from '../core/walletCheck';
import { anyCampaignOrder } from './discovery';

/*
 * The reads a campaign run's checks need before its first create: the wallet (Check Wallet
 * Balance First) and, for a campaign fed by Row ID, any whole-sheet order of its base. Each is
 * sent once per run, for the item that first asks for it. A page whose first block has no
 * order yet will buy, so it asks for them beside its other look-ups (pagedCampaign.ts): a
 * round trip less per page, and none more on a re-run.
 */
export interface RunReads {
	wallet(itemIndex: number, burst?: boolean): Promise<NgnBalance>;
	wholeSheetOrder(
		base: string,
		itemIndex: number,
		burst?: boolean,
	): Promise<CampaignOrder | undefined>;
}

type Read<T> = (itemIndex: number, burst?: boolean) => Promise<T>;

/** The read, sent on the first call; one that no one awaits in the end fails nothing. */
function once<T>(read: Read<T>): Read<T> {
	let sent: Promise<T> | undefined;
	return (itemIndex, burst = false) => {
		if (!sent) {
			sent = read(itemIndex, burst);
			sent.catch(() => undefined);
		}
		return sent;
	};
}

export function runReads(client: VoucherApiClient): RunReads {
	const firstOrders = new Map<string, Read<CampaignOrder | undefined>>();
	return {
		wallet: once((itemIndex, burst) => readNgnBalance(client, itemIndex, burst)),
		wholeSheetOrder(base, itemIndex, burst) {
			let read = firstOrders.get(base);
			if (!read) {
				read = once((index, asBurst) => anyCampaignOrder(client, base, index, asBurst));
				firstOrders.set(base, read);
			}
			return read(itemIndex, burst);
		},
	};
}
