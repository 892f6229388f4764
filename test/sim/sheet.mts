/**
 * A campaign's sheet as the simulator keeps it between runs: lines of people, edited as users
 * edit sheets, read as rows with a Row ID (the line's own `id`, or its `row_number`, which
 * moves when a line above it goes), and cut into the pages of a run.
 */
import type { IDataObject } from 'n8n-workflow';

import type { CampaignSpec, Cut, Edit, LineSpec, RowIdColumn } from './generate.mts';
import type { ModelRow } from './model.mts';

/** Two Adas share a mailbox; e-mails differ in case and spaces by spelling. */
const PEOPLE = [
	['Ada', 'Lovelace', 'ada@example.com'],
	['Bola', 'Ade', 'bola@example.com'],
	['Chidi', 'Okafor', 'chidi@example.com'],
	['Ada', 'Okafor', 'ada@example.com'],
	['Ngozi', 'Eze', 'ngozi@example.com'],
	['Emeka', 'Obi', 'emeka@example.ng'],
] as const;

export interface Sheet {
	base: string;
	rowIds: RowIdColumn;
	lines: ModelRow[];
	nextId: number;
}

/** Line numbers are unique within a case, so a line's history can be followed. */
export interface LineCounter {
	next: number;
}

/** People past PEOPLE are a crowd of their own, each with an e-mail of their own. */
const guest = (n: number) => ['Guest', `No${n}`, `guest${n}@example.com`] as const;

function personOf(person: number, spelling: number) {
	const [firstName, lastName, email] = person < PEOPLE.length ? PEOPLE[person] : guest(person);
	if (spelling % 3 === 1) return { firstName, lastName, email: ` ${email.toUpperCase()} ` };
	if (spelling % 3 === 2)
		return { firstName: firstName.toUpperCase(), lastName: lastName.toLowerCase(), email };
	return { firstName, lastName, email };
}

function lineOf(spec: LineSpec, sheet: Sheet, counter: LineCounter): ModelRow {
	const person = personOf(spec.person, spec.spelling);
	sheet.nextId += spec.gap;
	return {
		...person,
		...(spec.bad === 'email' ? { email: person.email.replace(/\.[a-z]+\s*$/i, '') } : {}),
		...(spec.bad === 'name' ? { lastName: ' ' } : {}),
		amount: spec.amount,
		product: spec.product,
		template: spec.template,
		line: counter.next++,
		rowId: sheet.nextId,
	};
}

export function openSheet(spec: CampaignSpec, counter: LineCounter): Sheet {
	const sheet: Sheet = { base: spec.name, rowIds: spec.rowIds, lines: [], nextId: spec.firstId };
	sheet.lines = spec.lines.map((line) => lineOf(line, sheet, counter));
	return sheet;
}

const at = (sheet: Sheet, index: number) => sheet.lines[index % sheet.lines.length];

/** Applies one edit in place; an edit of an empty sheet only adds. */
export function applyEdit(sheet: Sheet, edit: Edit, counter: LineCounter): void {
	if (edit.kind === 'add') {
		const lines = edit.lines.map((line) => lineOf(line, sheet, counter));
		sheet.lines.splice(edit.at % (sheet.lines.length + 1), 0, ...lines);
		return;
	}
	if (edit.kind === 'useRowIds') {
		// Only from no Row ID, or away from a refused row_number: back to none breaks C1, and
		// changing stable IDs breaks C5.
		if (sheet.rowIds !== 'id' && edit.column !== 'none') sheet.rowIds = edit.column;
		return;
	}
	if (sheet.lines.length === 0) return;
	const { lines } = sheet;
	switch (edit.kind) {
		case 'rename': {
			const line = at(sheet, edit.at);
			line.firstName = `${line.firstName.trim()}h`;
			return;
		}
		case 'person':
			Object.assign(at(sheet, edit.at), personOf(edit.person, edit.spelling));
			return;
		case 'amount':
			at(sheet, edit.at).amount = edit.amount;
			return;
		case 'product':
			at(sheet, edit.at).product = edit.product;
			return;
		case 'delete':
			lines.splice(edit.at % lines.length, 1);
			return;
		case 'move': {
			const [line] = lines.splice(edit.from % lines.length, 1);
			lines.splice(edit.to % (lines.length + 1), 0, line);
			return;
		}
		case 'sort': {
			const by = {
				email: (a: ModelRow, b: ModelRow) => a.email.trim().localeCompare(b.email.trim()),
				amount: (a: ModelRow, b: ModelRow) => a.amount - b.amount,
				idDescending: (a: ModelRow, b: ModelRow) => (b.rowId ?? 0) - (a.rowId ?? 0),
				reverse: () => 0,
			}[edit.by];
			if (edit.by === 'reverse') lines.reverse();
			else lines.sort(by);
		}
	}
}

/** The sheet's rows as a run reads them, each with the Row ID its column gives (C5). */
export function rowsOf(sheet: Sheet): ModelRow[] {
	return sheet.lines.map((line, index) => ({
		...line,
		rowId: sheet.rowIds === 'none' ? undefined : sheet.rowIds === 'id' ? line.rowId : index + 2,
	}));
}

/** A row as an input item: Google Sheets' columns, `id` and `row_number` both present. */
export function itemOf(row: ModelRow, sheet: Sheet): IDataObject {
	const index = sheet.lines.findIndex((line) => line.line === row.line);
	const id = sheet.lines[index]?.rowId ?? row.rowId;
	return {
		firstName: row.firstName,
		lastName: row.lastName,
		email: row.email,
		amount: row.amount,
		product: row.product,
		template: row.template,
		id,
		row_number: index + 2,
	};
}

/** The pages of a run, each one execution. */
export function pagesOf(rows: ModelRow[], cut: Cut): ModelRow[][] {
	if (rows.length === 0) return [];
	if (cut.kind === 'whole') return [rows];
	if (cut.kind === 'hundreds') {
		const pages = new Map<number, ModelRow[]>();
		const width = 100 * cut.size;
		for (const row of [...rows].sort((a, b) => (a.rowId ?? 0) - (b.rowId ?? 0))) {
			const page = Math.floor((row.rowId ?? 0) / width);
			pages.set(page, [...(pages.get(page) ?? []), row]);
		}
		return [...pages.values()];
	}
	const cuts = [...new Set(cut.at.map((position) => position % rows.length))].sort((a, b) => a - b);
	const bounds = [0, ...cuts.filter((c) => c > 0), rows.length];
	return bounds.slice(1).map((end, i) => rows.slice(bounds[i], end));
}

/** A slice of the sheet's rows, wrapping around (a race's share). */
export function sliceOf(rows: ModelRow[], from: number, length: number): ModelRow[] {
	if (rows.length === 0) return [];
	const count = 1 + (length % rows.length);
	return Array.from({ length: count }, (_, i) => rows[(from + i) % rows.length]);
}
