import type { INode } from 'n8n-workflow';

import { invalidOption, optionNumber } from './options';

/**
 * The most requests (or, in a campaign, order creates) the node lets run at once, and the
 * maximum of the "Maximum Concurrency" option. A campaign's discovery of existing orders
 * relies on it as a hard bound (see orders/campaign/discovery.ts), so readConcurrency
 * refuses any value above it, e.g. from an expression.
 */
export const MAX_CONCURRENCY_LIMIT = 32;

/**
 * The transport paces requests adaptively below this ceiling (starting at its START_LIMIT,
 * backing off on 429, 5xx and slow answers), so the default can be the cap: a service that accepts
 * more gets it, one that objects gets less.
 * @alias the same value as MAX_CONCURRENCY_LIMIT, named for what it is used as
 */
export const DEFAULT_CONCURRENCY = MAX_CONCURRENCY_LIMIT;

/**
 * The option (item 0's: one setting per run) as a whole number from 1 to MAX_CONCURRENCY_LIMIT,
 * the default when not set. Any other value is refused by the option's name (`label`, as the
 * editor shows it), never cut to the range: 100 from an expression means something the node
 * cannot do, and 0 nothing it can.
 */
export function readConcurrency(node: INode, label: string, value: unknown): number {
	const number = optionNumber(value) ?? DEFAULT_CONCURRENCY;
	if (Number.isInteger(number) && number >= 1 && number <= MAX_CONCURRENCY_LIMIT) return number;
	const rule = `a whole number from 1 to ${MAX_CONCURRENCY_LIMIT}`;
	throw invalidOption(node, 0, label, value, rule);
}

/**
 * Runs task(0..count-1) with at most `limit` in flight, started in index order, and returns
 * results in index order. After the first failure no new task starts; the ones in flight
 * finish, then it throws.
 */
export async function mapWithConcurrency<T>(
	count: number,
	limit: number,
	task: (index: number) => Promise<T>,
): Promise<T[]> {
	const results = new Array<T>(count);
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async () => {
		while (next < count && !failure) {
			const index = next++;
			try {
				results[index] = await task(index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	const workers = Math.max(1, Math.min(limit, count));
	await Promise.all(Array.from({ length: workers }, worker));
	if (failure) throw failure.error;
	return results;
}
