import type { VoucherApiClient } from '../../transport/client';
import { operationError } from '../../transport/errors';
import { MAX_CONCURRENCY_LIMIT, mapWithConcurrency } from '../../shared/concurrency';
import type { CampaignOrder } from '../types';
import { findOrder } from '../lookup';

/*
 * Finding a campaign's orders. The API has no list endpoint, so the orders `<base>-1`,
 * `<base>-2`, … are probed with Get Order. Earlier runs can leave gaps (a refused order
 * between created ones), so the probing cannot stop at the first `04`. It stops after
 * DISCOVERY_MISSES consecutive `04`s above the highest number found. Why that finds every order:
 *
 * Each run keeps three rules (campaign.ts, and the router that runs its creates):
 *  R1. New orders are numbered H+1, H+2, … where H is the highest number discovery found.
 *  R2. Creates are started in number order, at most C at once, C ≤ MAX_CONCURRENCY_LIMIT
 *      (readConcurrency refuses any other value).
 *  R3. Once a create has failed (refused, or its outcome unknown), no further create of the
 *      run is started.
 *
 * Claim: every block of consecutive missing numbers that has an existing number above it
 * is shorter than MAX_CONCURRENCY_LIMIT. By induction over runs:
 *  - Numbers up to H are not touched by this run, and orders never disappear, so blocks
 *    below H stay as they were (or shrink). H itself exists, so no block runs across it.
 *  - Above H, a number is missing only if its create was started and failed, or was never
 *    started. Never-started numbers lie above every started one (R2), so nothing of this
 *    run exists above them. A failed create ends at or after the run's first failure, and
 *    by R3 every create started before that failure. So take a block B of failed numbers
 *    with an existing number e above it: when e's create started (after all of B, by R2),
 *    every create of B was still in flight. That is |B| + 1 creates in flight, so
 *    |B| + 1 ≤ C ≤ MAX_CONCURRENCY_LIMIT.
 * Hence DISCOVERY_MISSES = MAX_CONCURRENCY_LIMIT consecutive misses above the highest
 * number found prove that nothing exists beyond it, which makes H correct for the next run.
 *
 * Not covered: two runs of the same campaign at the same time (each would number from the
 * same H). A create that hits a number taken in the meantime is refused by the service
 * and reported, not bought twice, but the same person could get a voucher in each run.
 *
 * Cost: highest number + DISCOVERY_MISSES look-ups; a new campaign costs DISCOVERY_MISSES,
 * a 100-order campaign 100 + DISCOVERY_MISSES. Each window (at most DISCOVERY_MISSES
 * references, starting where the last one ended) is read at once, beside the transport's
 * pacing's ramp (a burst; the rate pacing still holds them): these are reads, and ramping them up
 * from the pacing's start would turn one round trip into four, on every run of every
 * campaign. Their answers still steer the pacing, so a window answered cleanly lets the
 * creates start at that pace.
 */
export const DISCOVERY_MISSES = MAX_CONCURRENCY_LIMIT;

/**
 * The most orders discovery reads: a million recipients at the default 100 per order. A service
 * or gateway that answers every Reference with an order would otherwise be read without end.
 * Larger campaigns go by Row ID, which reads only a page's own blocks.
 */
export const MAX_CAMPAIGN_ORDERS = 10_000;

export const campaignOrderReference = (base: string, number: number) => `${base}-${number}`;

function tooManyOrders(client: VoucherApiClient, base: string, itemIndex: number) {
	return operationError(
		client.node,
		`Item ${itemIndex}: campaign "${base}" answers more than ${MAX_CAMPAIGN_ORDERS.toLocaleString('en-US')} orders`,
		{
			itemIndex,
			description: `Nothing was bought for it. Either the service, or something in front of it, answers every Reference with an order (check ${campaignOrderReference(base, MAX_CAMPAIGN_ORDERS)} with Order → Get), or the campaign is larger than a whole sheet may be: run it by Row ID.`,
		},
	);
}

/**
 * Any whole-sheet order of the campaign: by the claim above, the lowest existing number is at
 * most DISCOVERY_MISSES, so one window finds it. Read by a campaign fed by Row ID, which must
 * not buy under a base that already has whole-sheet orders.
 */
export async function anyCampaignOrder(
	client: VoucherApiClient,
	base: string,
	itemIndex: number,
	burst = false,
): Promise<CampaignOrder | undefined> {
	const window = await mapWithConcurrency(DISCOVERY_MISSES, DISCOVERY_MISSES, async (offset) =>
		findOrder(client, campaignOrderReference(base, offset + 1), itemIndex, burst),
	);
	const offset = window.findIndex((order) => order !== undefined);
	const order = window[offset];
	const number = offset + 1;
	return order && { number, reference: campaignOrderReference(base, number), order };
}

/** Every existing order of the campaign, in number order. */
export async function discoverCampaignOrders(
	client: VoucherApiClient,
	base: string,
	itemIndex: number,
): Promise<CampaignOrder[]> {
	const found: CampaignOrder[] = [];
	let highest = 0;
	let probed = 0;
	while (probed < highest + DISCOVERY_MISSES) {
		const first = probed + 1;
		const count = highest + DISCOVERY_MISSES - probed;
		if (found.length > MAX_CAMPAIGN_ORDERS) throw tooManyOrders(client, base, itemIndex);
		const window = await mapWithConcurrency(count, count, async (offset) =>
			findOrder(client, campaignOrderReference(base, first + offset), itemIndex, true),
		);
		window.forEach((order, offset) => {
			if (!order) return;
			const number = first + offset;
			found.push({ number, reference: campaignOrderReference(base, number), order });
			highest = first + offset;
		});
		probed = first + count - 1;
	}
	return found;
}
