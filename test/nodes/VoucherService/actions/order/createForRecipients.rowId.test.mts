/**
 * Row ID Column must name an ID that stays with its row (issue 39, defect 1). Google Sheets gives
 * every row it reads a `row_number`, its place in the sheet: delete a row above, and everyone
 * below moves up one, some into another block of 100, where nothing of theirs is found and they
 * are bought again. The node refuses `row_number` by name, before anything is sent.
 */
import { describe, expect, it } from 'vitest';

import { personKey } from '../../campaignBooks.mts';
import { campaignSandboxForThisFile, table } from '../../campaignRuns.mts';
import { apiRequests, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, vouchersPerRecipient, expectEveryRowHeldOnce } =
	await campaignSandboxForThisFile();

/**
 * People as Google Sheets' Get Row(s) reads them: an `ID` column filled once with their `id`, and
 * `row_number`, the sheet's row (the header is row 1).
 */
const readSheet = <T extends { id: number }>(people: T[]) =>
	people.map(({ id, ...row }, i) => ({ ...row, ID: id, row_number: i + 2 }));

/** Every request the service received since the test began (the sandbox is reset before each). */
const sent = () => apiRequests(sandbox).map((request) => `${request.method} ${request.path}`);

const REFUSED =
	/^Item (\d+): invalid "rowIdField": Row ID Column reads row_number, the number Google Sheets gives each row by its place: it moves when a row above is deleted or the sheet is sorted, so one person can take another's place and be bought twice$/;

describe('Row ID Column refuses row_number, before anything is sent', () => {
	it.each([
		'row_number',
		' row_number ',
		'Row_Number',
		'={{ $json.row_number }}',
		'={{ $json["row_number"] }}',
		"={{ $json['row_number'] }}",
		'={{$json.row_number}}',
		'={{ Number($json.row_number) }}',
	])('%s: the first row names the item, the field, why and what to use instead', async (field) => {
		const extra = { rowIdField: field };
		const run = await runCampaign(uniqueReference('rownum'), readSheet(table(3)), {}, { extra });
		expect(sent()).toEqual([]);
		expect(run.error?.message).toMatch(REFUSED);
		expect(run.error?.message).toMatch(/^Item 0: /);
		expect(run.error?.description).toBe(
			"Use an ID filled once and never reused: a column of numbers filled down once (values, not a formula such as =ROW()), a Data Table's id, or a database's primary key. Nothing was sent to the service.",
		);
	});

	it('with On Error → Continue, every row gets the refusal, naming its own item', async () => {
		const run = await runCampaign(
			uniqueReference('rownum-continue'),
			readSheet(table(3)),
			{},
			{ extra: { rowIdField: 'row_number' }, continueOnFail: true },
		);
		expect(sent()).toEqual([]);
		expect(run.error).toBeUndefined();
		const errors = run.json.map((row) => String(row.error));
		expect(errors.map((error) => REFUSED.exec(error)?.[1])).toEqual(['0', '1', '2']);
	});

	it.each(['first_row_number', '={{ $json.first_row_number }}'])(
		'%s, a name that only contains row_number, is not refused',
		async (field) => {
			const base = uniqueReference('kept');
			const rows = readSheet(table(3)).map((row) => ({ ...row, first_row_number: row.ID }));
			const run = await runCampaign(base, rows, {}, { extra: { rowIdField: field } });
			expect(run.error).toBeUndefined();
			expect(run.posts).toBe(1);
			expectEveryRowHeldOnce(base, rows);
		},
	);
});

describe('a row deleted near the top of a 1,050-row sheet, then the sheet run again', () => {
	const people = table(1050);
	const sheet = readSheet(people);
	// Row 3 goes: everyone below moves up one, and row_number 1000 (block 1) becomes 999 (block 0).
	const edited = readSheet(people.filter((_, i) => i !== 1));
	const moved = sheet[998];

	it('with an ID column filled once: nothing is bought again, everyone holds one voucher', async () => {
		const base = uniqueReference('stable');
		const first = await runCampaign(base, sheet, {}, { extra: { rowIdField: 'ID' } });
		expect(first.error).toBeUndefined();
		expect(first.posts).toBe(11); // IDs 1–999 in 10 orders, 1000–1050 in one
		const again = await runCampaign(base, edited, {}, { extra: { rowIdField: 'ID' } });
		expect(again.error).toBeUndefined();
		expect(again.posts).toBe(0);
		expect(again.json.every((row) => row.alreadyExisted === true)).toBe(true);
		expectEveryRowHeldOnce(base, sheet);
	});

	it('with the row number copied under another name, which no name check sees: the moved person is bought twice', async () => {
		// Why the field and the docs say what a Row ID must be: the books do see the double.
		const base = uniqueReference('moving');
		const place = (rows: typeof sheet) => rows.map((row) => ({ ...row, place: row.row_number }));
		await runCampaign(base, place(sheet), {}, { extra: { rowIdField: 'place' } });
		const again = await runCampaign(base, place(edited), {}, { extra: { rowIdField: 'place' } });
		expect(again.posts).toBe(1);
		const held = vouchersPerRecipient(base);
		expect(moved.row_number).toBe(1000);
		expect(held.get(personKey(moved))).toEqual([1000, 1000]);
		expect([...held.values()].filter((values) => values.length > 1)).toHaveLength(1);
	});
});
