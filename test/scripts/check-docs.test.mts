/**
 * scripts/check-docs.mts (issue 42): the repository passes it, and each of its checks fails on a
 * drift planted for it: a message the source throws that no docs table has (written in place,
 * and passed on through a helper), a docs row taken away, a table that does not render.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import {
	documentedMessages,
	messageProblems,
	sourceMessages,
	tableProblems,
	type SourceMessage,
} from '../../scripts/check-docs.mts';
import { readRepoFile, repoFiles } from '../../scripts/repoFiles.mts';

const markdown = repoFiles()
	.filter((file) => file.endsWith('.md'))
	.map((file) => ({ file, text: readRepoFile(file) }));
const docs = markdown.filter(({ file }) => file.startsWith('docs/'));

/** A source file the check reads as if it were in nodes/, with two new messages. */
const PLANTED = {
	'nodes/VoucherService/planted.ts': `
import type { INode } from 'n8n-workflow';
import { operationError } from './transport/errors';
import { rowFailure } from './orders/campaign/rowOutcomes';

const UNKNOWN = 'is not a code this account knows';
export const plantedError = (node: INode, itemIndex: number, code: string) =>
	operationError(node, \`Item \${itemIndex}: the coupon "\${code}" \${UNKNOWN}\`);
export const plantedRow = (node: INode, row: never, block: number) =>
	rowFailure(node, row, [\`not bought: block \${block} was planted here\`, 'why']);
`,
};
const PLANTED_MESSAGES = [
	'the coupon "…" is not a code this account knows',
	'not bought: block … was planted here',
];

let messages: SourceMessage[];
let planted: SourceMessage[];
beforeAll(() => {
	messages = sourceMessages();
	planted = sourceMessages(PLANTED);
}, 120_000);

describe('check:docs on the repository', () => {
	it('passes: every message is documented, every table renders', () => {
		expect(messageProblems(messages, documentedMessages(docs))).toEqual([]);
		expect(tableProblems(markdown)).toEqual([]);
	});

	it('reads the messages issue 42 found missing, wherever the source writes them', () => {
		const texts = messages.map(({ text }) => text);
		expect(texts).toEqual(
			expect.arrayContaining([
				'campaign "…" has orders made without Row ID (…, …), so nothing was bought for it',
				"Row ID … is also item …'s",
				"the voucher service's wallet list is not a list: its data is …",
				'Row IDs … to … span … blocks of … IDs, more than the … one item may read',
				'Row IDs From is required with Row IDs To',
				// Passed on through rowFailure(node, row, [message, description]).
				'not bought: order … was not sent, because order … failed first in this run',
			]),
		);
	});
});

describe('a message planted in the source', () => {
	it('is read, in place and through the helper it is passed to', () => {
		const texts = planted.map(({ text }) => text);
		expect(texts).toEqual(expect.arrayContaining(PLANTED_MESSAGES));
		expect(planted.find(({ text }) => text === PLANTED_MESSAGES[1])?.at).toBe(
			'nodes/VoucherService/planted.ts:10',
		);
	});

	it('fails the check until a docs table has it, with a placeholder for each value', () => {
		expect(messageProblems(planted, documentedMessages(docs))).toEqual([
			`nodes/VoucherService/planted.ts:8: no docs table of messages has "${PLANTED_MESSAGES[0]}"`,
			`nodes/VoucherService/planted.ts:10: no docs table of messages has "${PLANTED_MESSAGES[1]}"`,
		]);
		const rows = [
			'| Situation | Message |',
			'|---|---|',
			'| a coupon | Item *n*: the coupon "*SAVE10*" is not a code this account knows |',
			'| a planted block | Item *n*: not bought: block *k* was planted here (a test) |',
		].join('\n');
		const withRows = [...docs, { file: 'docs/planted.md', text: rows }];
		expect(messageProblems(planted, documentedMessages(withRows))).toEqual([]);
	});

	it('a row that says another sentence with the same placeholders does not document it', () => {
		const rows = '| Message |\n|---|\n| the coupon "*c*" was refused by *the service* |';
		const withRow = [...docs, { file: 'docs/planted.md', text: rows }];
		expect(messageProblems(planted, documentedMessages(withRow))).toHaveLength(2);
	});
});

describe('a docs row taken away', () => {
	it('fails on the messages only that row documented, naming where the source gives them', () => {
		const row = '| The webhook credential holds no secret |';
		const trigger = docs.find(({ file }) => file === 'docs/trigger.md')!;
		expect(trigger.text).toContain(row);
		const without = docs.map((doc) =>
			doc === trigger ? { ...doc, text: doc.text.replace(row, '| |') } : doc,
		);
		const problems = messageProblems(messages, documentedMessages(without));
		expect(problems).toHaveLength(1);
		expect(problems[0]).toMatch(
			/^nodes\/VoucherServiceTrigger\/VoucherServiceTrigger\.node\.ts:\d+: no docs table of messages has "The webhook credential holds no secret"$/,
		);
	});
});

describe('tables', () => {
	it('fail where the header and the separator differ in cells, naming the file and line', () => {
		const text = ['# Planted', '', '| a | b | c |', '|---|---|', '| 1 | 2 | 3 |'].join('\n');
		expect(tableProblems([{ file: 'planted.md', text }])).toEqual([
			"planted.md:3: a table's header has 3 cells and its separator 2, so it does not render",
		]);
	});

	it('pass with escaped pipes and pipes in code, and are not read inside fenced code', () => {
		const text = [
			'| `a|b` | c \\| d |',
			'| :-- | --: |',
			'| 1 | 2 |',
			'',
			'```',
			'| x | y | z |',
			'|---|',
			'```',
		].join('\n');
		expect(tableProblems([{ file: 'fine.md', text }])).toEqual([]);
	});
});
