/**
 * Figures the code defines and the docs quote (issue #34): each row names the doc, the phrase
 * as written with `#` where a figure stands, and the code's values for those figures in order.
 * It fails when a figure differs from the code, and when the phrase is no longer in the doc:
 * then find where the figure went and change the row, not the code. Whitespace and line breaks
 * in the doc do not matter; "1,000" and "one" read as numbers.
 */
import { describe, expect, it } from 'vitest';

import {
	DEFAULT_RECIPIENTS_PER_ORDER,
	DEFAULT_WAIT_TIMEOUT_SECONDS,
} from '../../nodes/VoucherService/actions/order/createOptions';
import { MAX_REPORT_BLOCKS } from '../../nodes/VoucherService/orders/campaign/campaignReport';
import { DISCOVERY_MISSES } from '../../nodes/VoucherService/orders/campaign/discovery';
import { ROW_BLOCK_SIZE } from '../../nodes/VoucherService/orders/campaign/rowBlocks';
import { WAIT_POLL } from '../../nodes/VoucherService/orders/lookup';
import {
	DEFAULT_CONCURRENCY,
	MAX_CONCURRENCY_LIMIT,
} from '../../nodes/VoucherService/shared/concurrency';
import { START_LIMIT } from '../../nodes/VoucherService/transport/adaptiveConcurrency';
import { REQUEST_TIMEOUT_MS } from '../../nodes/VoucherService/transport/client';
import { PROBE_GROWTH } from '../../nodes/VoucherService/transport/pacingActions';
import {
	CREATE_RETRY,
	INTERACTIVE_PATIENCE_MS,
	MAX_RETRY_AFTER_MS,
	READ_RETRY,
	REFUSAL_PATIENCE_MS,
} from '../../nodes/VoucherService/transport/retry';
import {
	IN_FLIGHT_MS,
	MAX_ENTRIES,
	PROCESSED_EVENTS,
	RETENTION_MS,
	RETRY_WINDOW_MS,
	SETTLE_MS,
} from '../../nodes/VoucherServiceTrigger/deduplication';
import {
	MAX_WAITING,
	MISMATCH_READ_INTERVAL_MS,
	SECRET_LIFETIME_MS,
} from '../../nodes/VoucherServiceTrigger/secretCache';
import { readRepoFile } from '../../scripts/repoFiles.mts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const BLOCK = ROW_BLOCK_SIZE;

type Fact = [file: string, phrase: string, values: number[]];

const FACTS: Fact[] = [
	['README.md', 'Maximum Concurrency** (default #)', [DEFAULT_CONCURRENCY]],

	[
		'docs/operations.md',
		'| Maximum Concurrency | # | The most requests in flight, 1 to #',
		[DEFAULT_CONCURRENCY, MAX_CONCURRENCY_LIMIT],
	],
	[
		'docs/operations.md',
		'first after # s, then each pause # times the last, at most # s apart',
		[WAIT_POLL.firstDelayMs / SECOND, WAIT_POLL.factor, WAIT_POLL.maxDelayMs / SECOND],
	],
	['docs/operations.md', '| Wait Timeout (Seconds) | # |', [DEFAULT_WAIT_TIMEOUT_SECONDS]],
	['docs/operations.md', '| Recipients per Order | # |', [DEFAULT_RECIPIENTS_PER_ORDER]],
	['docs/operations.md', 'Each run sends # request first', [START_LIMIT]],
	['docs/operations.md', 'waits cut to # s', [MAX_RETRY_AFTER_MS / SECOND]],
	['docs/operations.md', 'each wait # times longer', [PROBE_GROWTH]],
	[
		'docs/operations.md',
		'Patience ends after # minutes without an admission',
		[REFUSAL_PATIENCE_MS / MINUTE],
	],
	[
		'docs/operations.md',
		'# s for the Template dropdown and Service → Check',
		[INTERACTIVE_PATIENCE_MS / SECOND],
	],
	[
		'docs/operations.md',
		'up to # attempts; an unclear create, up to #',
		[READ_RETRY.attempts, CREATE_RETRY.attempts],
	],
	[
		'docs/operations.md',
		'Retry waits double from # ms to at most # s',
		[READ_RETRY.baseDelayMs, READ_RETRY.maxDelayMs / SECOND],
	],
	[
		'docs/operations.md',
		'Retry waits double from # ms to at most # s',
		[CREATE_RETRY.baseDelayMs, CREATE_RETRY.maxDelayMs / SECOND],
	],
	// Equal jitter: the first wait is between half its step and the whole step.
	[
		'docs/operations.md',
		'(the first is # to # ms)',
		[READ_RETRY.baseDelayMs / 2, READ_RETRY.baseDelayMs],
	],
	['docs/operations.md', 'Each attempt may take up to # s', [REQUEST_TIMEOUT_MS / SECOND]],
	['docs/operations.md', 'refused every request for # minutes', [REFUSAL_PATIENCE_MS / MINUTE]],

	[
		'docs/campaigns.md',
		'until # numbers in a row above the highest found do not exist',
		[DISCOVERY_MISSES],
	],
	['docs/campaigns.md', 'until # numbers in a row above the highest found', [DISCOVERY_MISSES]],
	[
		'docs/campaigns.md',
		'*Wait Timeout* per base reference, in turn (# s by default)',
		[DEFAULT_WAIT_TIMEOUT_SECONDS],
	],
	[
		'docs/campaigns.md',
		'blocks of # (IDs #–# are block #)',
		[BLOCK, 123 * BLOCK, 124 * BLOCK - 1, 123],
	],
	['docs/campaigns.md', 'one create per # rows of each amount', [DEFAULT_RECIPIENTS_PER_ORDER]],
	[
		'docs/campaigns.md',
		'at most # blocks (# IDs) per item',
		[MAX_REPORT_BLOCKS, MAX_REPORT_BLOCKS * BLOCK],
	],

	// The paged examples cut their pages at whole blocks.
	['examples/campaign-from-data-table/campaign-page.json', 'const BLOCK = #;', [BLOCK]],
	[
		'examples/campaign-from-data-table/campaign.json',
		'keeps each block of # IDs in its own orders',
		[BLOCK],
	],
	['examples/campaign-from-data-table/status-board.json', 'in their blocks of # IDs', [BLOCK]],
	['examples/campaign-from-data-table/README.md', 'perhaps in another block of # IDs', [BLOCK]],
	[
		'examples/campaign-from-postgres/campaign.json',
		'Math.ceil($json.pageSize / #) * #',
		[BLOCK, BLOCK],
	],
	[
		'examples/campaign-from-postgres/campaign.json',
		'keeps each block of # IDs in its own orders',
		[BLOCK],
	],

	['docs/api.md', 'orders of at most # recipients by default', [DEFAULT_RECIPIENTS_PER_ORDER]],
	[
		'docs/api.md',
		'the last retry about # minutes after the first delivery',
		[RETRY_WINDOW_MS / MINUTE],
	],

	['docs/api.md', 'its static-data filter (# minutes)', [RETENTION_MS / MINUTE]],

	['docs/trigger.md', 'fix the cause within about # minutes', [RETRY_WINDOW_MS / MINUTE]],
	['docs/trigger.md', 'The secret is kept for at most # seconds', [SECRET_LIFETIME_MS / SECOND]],
	[
		'docs/trigger.md',
		'for **at most # seconds** from the start of the read',
		[SECRET_LIFETIME_MS / SECOND],
	],
	[
		'docs/trigger.md',
		'Forged floods cost at most # read a second',
		[SECOND / MISMATCH_READ_INTERVAL_MS],
	],
	['docs/trigger.md', 'Up to # non-matching deliveries wait', [MAX_WAITING]],
	['docs/trigger.md', 'still accepted for up to # seconds', [SECRET_LIFETIME_MS / SECOND]],
	['docs/trigger.md', 'remembers each key for # seconds', [IN_FLIGHT_MS / SECOND]],
	[
		'docs/trigger.md',
		'handled events, at most # and each for # minutes',
		[MAX_ENTRIES, RETENTION_MS / MINUTE],
	],
	['docs/trigger.md', 'waits # second, and looks again', [SETTLE_MS / SECOND]],
	['docs/trigger.md', 'costs about # second more', [SETTLE_MS / SECOND]],
	// Two values per event: its key and its winner's token.
	['docs/trigger.md', 'The table keeps # values per trigger node', [2 * PROCESSED_EVENTS]],
	['docs/trigger.md', 'the last # events', [PROCESSED_EVENTS]],
];

const WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const FIGURE = String.raw`(\d[\d,]*(?:\.\d+)?|${WORDS.join('|')})`;

const figure = (text: string) =>
	WORDS.includes(text.toLowerCase())
		? WORDS.indexOf(text.toLowerCase()) + 1
		: Number(text.replaceAll(',', ''));

/** The figures a doc gives where the phrase has `#`, or undefined when the phrase is not there. */
function figuresIn(doc: string, phrase: string): number[] | undefined {
	const words = phrase.split(/\s+/).map((word) =>
		word
			.split('#')
			.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
			.join(FIGURE),
	);
	const match = doc.replace(/\s+/g, ' ').match(new RegExp(words.join(' '), 'i'));
	return match?.slice(1).map(figure);
}

describe('figures the docs quote from the code', () => {
	it.each(FACTS)('%s: "%s" is %j', (file, phrase, values) => {
		const found = figuresIn(readRepoFile(file), phrase);
		expect(found, `the phrase is no longer in ${file}: update this row`).toBeDefined();
		expect(found).toEqual(values);
	});

	it('reads figures across line breaks, with separators and as words', () => {
		const doc = 'at most 100,000 blocks\n(10,000,000 IDs) per item; waits one second, and';
		expect(figuresIn(doc, 'at most # blocks (# IDs) per item')).toEqual([100_000, 10_000_000]);
		expect(figuresIn(doc, 'waits # second, and')).toEqual([1]);
		expect(figuresIn(doc, 'waits # minutes')).toBeUndefined();
	});
});
