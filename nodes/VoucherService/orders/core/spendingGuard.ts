import type { INode } from 'n8n-workflow';

import { operationError } from '../../transport/errors';
import { formatNaira, toKobo } from '../../shared/money';

const MAX_ORDER_TOTAL_LABEL = 'Maximum Order Total (NGN)';
const MAX_RUN_TOTAL_LABEL = 'Maximum Total per Run (NGN)';

/**
 * Where a spending limit was set: they are read and checked alike, but named apart in errors.
 * `run` is the node's Maximum Total per Run; the others are Maximum Order Total.
 */
export type LimitSource = 'credential' | 'node' | 'run';

/** A limit as numeric text (an expression or a variable can give a string); no separators, no currency. */
const LIMIT_TEXT = /^\d+(\.\d+)?$/;

/**
 * One limit in kobo; undefined when it is really not set (empty or 0). A limit that is
 * present but not a finite number ≥ 0 ("5,000", "NGN 5000", NaN) fails closed: dropping it
 * would turn the guard off without anyone noticing.
 */
export function readLimitKobo(
	node: INode,
	itemIndex: number,
	source: LimitSource,
	value: unknown,
): number | undefined {
	if (value === undefined || value === null || value === '' || value === 0) return undefined;
	const naira =
		typeof value === 'number'
			? value
			: typeof value === 'string' && LIMIT_TEXT.test(value.trim())
				? Number(value.trim())
				: Number.NaN;
	if (!Number.isFinite(naira) || naira < 0) {
		const where = source === 'credential' ? "the credential's" : "the node's";
		const label = source === 'run' ? MAX_RUN_TOTAL_LABEL : MAX_ORDER_TOTAL_LABEL;
		throw operationError(
			node,
			`Item ${itemIndex}: ${where} "${label}" is not a number of 0 or more`,
			{
				itemIndex,
				description: `It is ${JSON.stringify(String(value)).slice(0, 60)}. Nothing was sent. Write the limit as a plain number of Naira (e.g. 5000), or 0 for no limit${source === 'credential' ? ' on the credential' : ' on the node'}.`,
			},
		);
	}
	if (naira === 0) return undefined;
	// More than 2 decimals: round down, so the limit is never loosened.
	return toKobo(naira) ?? Math.floor(naira * 100);
}

/** The tightest of the limits in kobo; undefined when none is set. */
export function tightestLimitKobo(limitsKobo: Array<number | undefined>): number | undefined {
	const set = limitsKobo.filter((limit): limit is number => limit !== undefined);
	return set.length > 0 ? Math.min(...set) : undefined;
}

/** Why an order's total is refused, or undefined when it is within the limit. Totals are integer kobo. */
export function spendingLimitProblem(
	totalKobo: number,
	limitKobo: number | undefined,
): string | undefined {
	if (limitKobo === undefined || totalKobo <= limitKobo) return undefined;
	return `order total ${formatNaira(totalKobo)} is above the maximum order total of ${formatNaira(limitKobo)}`;
}

export const SPENDING_LIMIT_ADVICE = `Nothing was sent. Raise "${MAX_ORDER_TOTAL_LABEL}" on the node or the credential if this order is intended.`;

/** Refuses an order whose total is above the limit, before any request. */
export function assertWithinSpendingLimit(
	node: INode,
	itemIndex: number,
	totalKobo: number,
	limitKobo: number | undefined,
): void {
	const problem = spendingLimitProblem(totalKobo, limitKobo);
	if (!problem) return;
	throw operationError(node, `Item ${itemIndex}: ${problem}`, {
		itemIndex,
		description: SPENDING_LIMIT_ADVICE,
	});
}

/** Why a run's total is refused, or undefined when it is within Maximum Total per Run. */
export function runLimitProblem(
	totalKobo: number,
	limitKobo: number | undefined,
): string | undefined {
	if (limitKobo === undefined || totalKobo <= limitKobo) return undefined;
	return `the run's new orders would total ${formatNaira(totalKobo)}, above the maximum total per run of ${formatNaira(limitKobo)}`;
}

export const RUN_LIMIT_ADVICE = `Nothing was sent for it. Raise "${MAX_RUN_TOTAL_LABEL}" on the node if this spend is intended, or buy for fewer rows per run.`;
