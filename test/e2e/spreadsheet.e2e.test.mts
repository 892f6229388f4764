// Spreadsheets through a real n8n 2.41.1 (issue #19 item 5): an XLSX file made by n8n's own
// Convert To File and a CSV file as Excel writes one (a BOM, CRLF, numbers stored as text, an
// e-mail with spaces around it, a trailing empty row) go through the example
// examples/sheet-round-trip.json: Extract From File, the Voucher Service node (a campaign for
// e-mail rows, a download order per row for the others) and Convert To File. The files it
// writes are read back with Extract From File and compared with the sandbox's own books.
// Also: the daily campaign over a growing sheet buys only the new rows; and the Google Sheets
// example, with stand-ins for Google's nodes, gives every result the row_number of its row.
// The wallet's examples and checks: wallet.e2e.test.mts.
import {
	appendFileSync,
	existsSync,
	mkdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { preparedExample } from '../../real-n8n/examples.mts';
import {
	MANUAL_START,
	linearWorkflow,
	nodeOutput,
	sheetRows,
	type Execution,
	type N8nRest,
	type WorkflowJson,
} from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ACTION_NODE, API_CREDENTIAL, ownerClient, sandboxApiCredential } from './n8nUnderTest.mts';

const MANUAL_TRIGGER = 'When clicking ‘Execute workflow’';
const COLUMNS = ['Row ID', 'First Name', 'Last Name', 'Email', 'Amount', 'Delivery'] as const;
type SheetRow = Record<(typeof COLUMNS)[number], string>;

/**
 * The sheet of both files. Everything is text, as a sheet typed by hand holds it: Row IDs with
 * leading zeros, amounts as text (one with a thousands separator, which is refused), an e-mail
 * with spaces around it (trimmed), one that is not an address, Delivery in any case.
 */
const SHEET: SheetRow[] = [
	['0001', 'Ada', 'Obi', '  ada.obi@example.com ', '5000', 'email'],
	['0002', 'Bola', 'Ade', 'bola.ade@example.com', '10000', 'email'],
	['0003', 'Chidi', 'Eze', 'chidi.eze(at)example.com', '5000', 'email'],
	['0004', 'Dayo', 'Musa', 'dayo.musa@example.com', '2500', 'download'],
	['0005', 'Efe', 'Ojo', 'efe.ojo@example.com', '5,000', 'download'],
	['0006', 'Funmi', 'Bello', 'funmi.bello@example.com', '2500', ' Download '],
].map((cells) => Object.fromEntries(COLUMNS.map((c, i) => [c, cells[i]])) as SheetRow);

/** The sheet as Excel saves "CSV UTF-8": a BOM, CRLF, and the empty row at the end kept as commas. */
function excelCsv(rows: SheetRow[]): string {
	const quote = (v: string) => (/[",\s]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
	const lines = [COLUMNS.join(','), ...rows.map((r) => COLUMNS.map((c) => quote(r[c])).join(','))];
	return `\uFEFF${lines.join('\r\n')}\r\n${','.repeat(COLUMNS.length - 1)}\r\n`;
}

describe('spreadsheets in and out of a real n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };
	const filesDir = inject('n8nFilesDir');
	const tag = Date.now().toString(36);

	beforeAll(async () => {
		rest = await ownerClient();
		mkdirSync(filesDir, { recursive: true });
		sandbox = await startSandbox({ port: 0 });
		credential = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e spreadsheets)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	async function run(wf: WorkflowJson, trigger: string): Promise<Execution> {
		const { id } = await rest.createWorkflow(wf);
		return await rest.runWorkflow(id, trigger, 120_000);
	}

	/** A file in n8n's files folder read back by n8n's own Extract From File. */
	async function readBack(
		file: string,
		operation: 'csv' | 'xlsx',
		options: Record<string, unknown> = {},
	): Promise<Array<Record<string, unknown>>> {
		const ex = await run(
			linearWorkflow(`E2E read back ${file}`, [
				MANUAL_START,
				{
					name: 'Read',
					type: 'n8n-nodes-base.readWriteFile',
					typeVersion: 1,
					parameters: { operation: 'read', fileSelector: join(filesDir, file), options: {} },
				},
				{
					name: 'Extract',
					type: 'n8n-nodes-base.extractFromFile',
					typeVersion: 1.1,
					parameters: { operation, options },
				},
			]),
			'Start',
		);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		return nodeOutput(ex, 'Extract');
	}

	/** The creates the sandbox accepted (a download order sent again is refused, then found). */
	const posts = () =>
		sandbox.state.requests.filter(
			(r) => r.method === 'POST' && r.path.startsWith('/v2/orders') && r.status === 200,
		);
	const debits = () => sandbox.state.ledger.filter((e) => e.kind === 'debit').length;

	/**
	 * The round-trip example for one file format, its references made this run's own, its
	 * paths in n8n's files folder.
	 */
	function roundTrip(format: 'csv' | 'xlsx', input: string, output: string): WorkflowJson {
		const wf = preparedExample('sheet-round-trip.json', {
			credentials: { [API_CREDENTIAL]: credential },
			filesDir,
		});
		const byName = (name: string) => wf.nodes.find((n) => n.name === name)!;
		byName('Read the sheet').parameters.fileSelector = join(filesDir, input);
		byName('Write the results').parameters.fileName = join(filesDir, output);
		if (format === 'csv') {
			// What the example's "CSV instead" note says to change.
			byName('Rows from the sheet').parameters = {
				operation: 'csv',
				options: { headerRow: true, enableBOM: true },
			};
			byName('Results to XLSX').parameters = { operation: 'csv', options: { fileName: output } };
		}
		const text = JSON.stringify(wf)
			.replaceAll('gift-code-2026-11-', `gift-code-${tag}-${format}-`)
			.replaceAll('gift-campaign-2026-11', `gift-campaign-${tag}-${format}`);
		return { ...JSON.parse(text), name: `E2E sheet round trip (${format})` } as WorkflowJson;
	}

	/** What the sandbox holds for the round trip of one format: codes by row, recipients by order. */
	function booked(format: string) {
		const codes = new Map<string, { code: string; pin: string; orderNumber: string }>();
		const recipients = new Map<string, string[]>();
		for (const order of sandbox.state.orders.values()) {
			const download = new RegExp(`^gift-code-${tag}-${format}-(\\d+)$`).exec(order.reference);
			if (download) {
				expect(order.vouchers).toHaveLength(1);
				const [voucher] = order.vouchers;
				codes.set(download[1], {
					code: String(voucher.code),
					pin: String(voucher.pin),
					orderNumber: order.orderNumber,
				});
			}
			if (order.reference.startsWith(`gift-campaign-${tag}-${format}-`))
				recipients.set(
					order.reference,
					order.vouchers.map((v) => String(v.email)),
				);
		}
		return { codes, recipients };
	}

	/** Every row of the sheet comes out once, in sheet order, with what the sandbox really did. */
	function expectResults(format: string, read: Array<Record<string, unknown>>) {
		const { codes, recipients } = booked(format);
		// An empty cell reads back as '' from XLSX and as no column from CSV: the same here.
		const results = read.map((r) =>
			Object.fromEntries(Object.entries(r).filter(([, v]) => v !== '')),
		);
		expect(results.map((r) => String(r['Row ID']))).toEqual(SHEET.map((r) => r['Row ID']));
		const byId = new Map(results.map((r) => [String(r['Row ID']), r]));

		// Download rows: the code and PIN the sandbox issued for the row's own Reference.
		expect([...codes.keys()].sort()).toEqual(['0004', '0006']);
		for (const id of ['0004', '0006']) {
			const row = byId.get(id)!;
			const issued = codes.get(id)!;
			expect(row).toMatchObject({
				Order: `gift-code-${tag}-${format}-${id}`,
				'Order Number': issued.orderNumber,
				Status: 'COMPLETED',
				Code: issued.code,
			});
			expect(row.Error).toBeUndefined();
			expect(String(row.PIN)).toBe(issued.pin);
			expect(issued.code).toMatch(/\S{8,}/);
			expect(issued.pin).toMatch(/^\d{4}$/);
		}

		// E-mail rows: the campaign's orders hold exactly the good rows, e-mails trimmed; one
		// order per amount.
		expect([...recipients.values()].flat().sort()).toEqual([
			'ada.obi@example.com',
			'bola.ade@example.com',
		]);
		for (const id of ['0001', '0002']) {
			const row = byId.get(id)!;
			expect(recipients.get(String(row.Order)), `row ${id}`).toContain(
				SHEET.find((r) => r['Row ID'] === id)!.Email.trim(),
			);
			expect(row).toMatchObject({ Status: 'COMPLETED', 'Voucher Status': 'DELIVERED' });
			expect(row.Code).toBeUndefined();
		}
		expect(byId.get('0001')!.Order).not.toBe(byId.get('0002')!.Order);

		// The rows that could not be bought say why, naming the field; nothing was bought for them.
		expect(byId.get('0003')).toMatchObject({ Status: 'NOT BOUGHT' });
		expect(byId.get('0003')!.Order).toBeUndefined();
		expect(String(byId.get('0003')!.Error)).toMatch(/^invalid "email": .*not a valid e-mail/);
		expect(byId.get('0005')).toMatchObject({ Status: 'NOT BOUGHT' });
		expect(byId.get('0005')!.Order).toBeUndefined();
		expect(String(byId.get('0005')!.Error)).toMatch(/^invalid "amount": Amount must be a number/);
		expect(codes.has('0005')).toBe(false);

		// The sheet's own columns come back as they were (text, leading zeros kept).
		for (const sheetRow of SHEET)
			expect(byId.get(sheetRow['Row ID'])).toMatchObject({
				'First Name': sheetRow['First Name'],
				Amount: sheetRow.Amount,
				Delivery: sheetRow.Delivery,
			});
	}

	it('an XLSX made by Convert To File: every row out with its order, status, code and PIN, bad rows with their error', async () => {
		// The input sheet, made by n8n itself: text cells throughout, then an empty row.
		const blank = Object.fromEntries(COLUMNS.map((c) => [c, ''])) as SheetRow;
		const made = await run(
			linearWorkflow('E2E make the XLSX sheet', [
				MANUAL_START,
				...sheetRows([...SHEET, blank]),
				{
					name: 'To XLSX',
					type: 'n8n-nodes-base.convertToFile',
					typeVersion: 1.1,
					parameters: { operation: 'xlsx', options: { fileName: 'e2e-gift-sheet.xlsx' } },
				},
				{
					name: 'Write',
					type: 'n8n-nodes-base.readWriteFile',
					typeVersion: 1,
					parameters: {
						operation: 'write',
						fileName: join(filesDir, 'e2e-gift-sheet.xlsx'),
						options: {},
					},
				},
			]),
			'Start',
		);
		expect(made.status, JSON.stringify(made.data.resultData.error)).toBe('success');
		// Read back as n8n reads it: text stays text.
		const cells = await readBack('e2e-gift-sheet.xlsx', 'xlsx');
		expect(cells[0]).toMatchObject({ 'Row ID': '0001', Amount: '5000' });

		const before = posts().length;
		const debitsBefore = debits();
		const ex = await run(
			roundTrip('xlsx', 'e2e-gift-sheet.xlsx', 'e2e-results.xlsx'),
			MANUAL_TRIGGER,
		);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		// The empty row comes out of Extract From File as an item of empty cells; Skip empty rows
		// drops it before any voucher node sees it.
		expect(nodeOutput(ex, 'Rows from the sheet')).toHaveLength(SHEET.length + 1);
		expect(nodeOutput(ex, 'Rows from the sheet').at(-1)).toEqual(
			Object.fromEntries(COLUMNS.map((c) => [c, ''])),
		);
		expect(nodeOutput(ex, 'Skip empty rows')).toHaveLength(SHEET.length);
		// Two campaign orders (one per amount) and two download orders.
		expect(posts().length - before).toBe(4);

		expectResults('xlsx', await readBack('e2e-results.xlsx', 'xlsx'));

		// Run again: nothing is bought, and the same codes come back.
		const again = await run(
			roundTrip('xlsx', 'e2e-gift-sheet.xlsx', 'e2e-results-again.xlsx'),
			MANUAL_TRIGGER,
		);
		expect(again.status).toBe('success');
		expect(posts().length - before).toBe(4);
		expect(debits() - debitsBefore).toBe(4);
		expectResults('xlsx', await readBack('e2e-results-again.xlsx', 'xlsx'));

		// The example's own sheet, examples/data/gift-sheet.xlsx, is this sheet as n8n made it.
		expect(await readBack('gift-sheet.xlsx', 'xlsx')).toEqual(
			await readBack('e2e-gift-sheet.xlsx', 'xlsx'),
		);
	});

	it('a CSV with a BOM: the same results, and without Exclude BOM the first header would not match', async () => {
		writeFileSync(join(filesDir, 'e2e-gift-sheet.csv'), excelCsv(SHEET));
		// The BOM is really there: read without the option, the first column is not "Row ID".
		const raw = await readBack('e2e-gift-sheet.csv', 'csv', { headerRow: true });
		expect(Object.keys(raw[0])[0]).toBe('\uFEFFRow ID');
		// The trailing row of commas is an item with no columns, for Skip empty rows to drop.
		expect(raw).toHaveLength(SHEET.length + 1);
		expect(raw.at(-1)).toEqual({});

		const before = posts().length;
		const ex = await run(roundTrip('csv', 'e2e-gift-sheet.csv', 'e2e-results.csv'), MANUAL_TRIGGER);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		expect(nodeOutput(ex, 'Skip empty rows')).toHaveLength(SHEET.length);
		expect(posts().length - before).toBe(4);
		// n8n's Convert To CSV writes a BOM too (Excel then reads the file as UTF-8).
		expect(
			readFileSync(join(filesDir, 'e2e-results.csv'), 'utf8').startsWith('\uFEFFRow ID,'),
		).toBe(true);
		expectResults(
			'csv',
			await readBack('e2e-results.csv', 'csv', { headerRow: true, enableBOM: true }),
		);
	});

	it('the daily campaign over a growing sheet buys only the rows added since the last run', async () => {
		const wf = preparedExample('daily-campaign-growing-sheet.json', {
			credentials: { [API_CREDENTIAL]: credential },
			filesDir,
		});
		const reference = `welcome-sign-ups-${tag}`;
		const text = JSON.stringify(wf).replaceAll('welcome-sign-ups-2026', reference);
		const daily = { ...(JSON.parse(text) as WorkflowJson), name: 'E2E daily campaign' };
		const sheet = join(filesDir, 'daily-sign-ups.csv');
		const results = join(filesDir, 'daily-sign-ups-results.csv');
		const { id } = await rest.createWorkflow(daily);
		const campaignPosts = () =>
			posts().filter((r) =>
				String((r.body as { reference?: string }).reference).startsWith(reference),
			);
		const emailsPosted = () =>
			campaignPosts().flatMap((r) =>
				(r.body as { recipients: Array<{ email: string }> }).recipients.map((p) => p.email),
			);

		// Day 1: the example's own sheet (three rows, a BOM, an empty last row).
		rmSync(results, { force: true });
		const day1 = await rest.runWorkflow(id, 'Every morning at 7', 120_000);
		expect(day1.status, JSON.stringify(day1.data.resultData.error)).toBe('success');
		expect(emailsPosted().sort()).toEqual([
			'ada.obi@example.com',
			'bayo.eze@example.com',
			'chioma.nwosu@example.com',
		]);
		const firstResults = await readBack('daily-sign-ups-results.csv', 'csv', {
			headerRow: true,
			enableBOM: true,
		});
		expect(firstResults.map((r) => r['Bought Today'])).toEqual(['yes', 'yes', 'yes']);

		// During the day two people sign up; the sheet grows at the bottom (after its empty row).
		appendFileSync(
			sheet,
			'Dayo,Adeyemi,dayo.adeyemi@example.com,5000\r\nEfe,Okoro,efe.okoro@example.com,10000\r\n',
		);
		const postsBefore = campaignPosts().length;
		const day2 = await rest.runWorkflow(id, 'Every morning at 7', 120_000);
		expect(day2.status, JSON.stringify(day2.data.resultData.error)).toBe('success');
		const newPosts = campaignPosts().slice(postsBefore);
		expect(
			newPosts
				.flatMap((r) => (r.body as { recipients: Array<{ email: string }> }).recipients)
				.map((p) => p.email)
				.sort(),
		).toEqual(['dayo.adeyemi@example.com', 'efe.okoro@example.com']);
		const secondResults = await readBack('daily-sign-ups-results.csv', 'csv', {
			headerRow: true,
			enableBOM: true,
		});
		expect(secondResults.map((r) => [r.Email, r['Bought Today'], r.Status])).toEqual([
			// The sheet's own cell, spaces and all; the order holds it trimmed.
			[' ada.obi@example.com ', 'no', 'COMPLETED'],
			['bayo.eze@example.com', 'no', 'COMPLETED'],
			['chioma.nwosu@example.com', 'no', 'COMPLETED'],
			['dayo.adeyemi@example.com', 'yes', 'COMPLETED'],
			['efe.okoro@example.com', 'yes', 'COMPLETED'],
		]);
		expect(existsSync(results)).toBe(true);
	});

	it('the Google Sheets example writes each result to the row it came from, by row_number', async () => {
		// No Google account here: the two Google Sheets nodes become stand-ins of the same names.
		// "Read the sheet" gives rows as Get Row(s) does (row_number is the sheet's row; row 4 is
		// empty, so Google skips it), and the update becomes an Edit Fields node evaluating the
		// update's own column mapping, row_number included.
		const wf = preparedExample('google-sheets-campaign.json', {
			credentials: { [API_CREDENTIAL]: credential },
			filesDir,
		});
		const reference = `gift-sheet-campaign-${tag}`;
		const rows = [
			{
				row_number: 2,
				'First Name': 'Ada',
				'Last Name': 'Obi',
				Email: 'ada.gs@example.com',
				Amount: '5000',
			},
			{
				row_number: 3,
				'First Name': 'Bola',
				'Last Name': 'Ade',
				Email: 'not-an-address',
				Amount: '5000',
			},
			{
				row_number: 5,
				'First Name': 'Chidi',
				'Last Name': 'Eze',
				Email: ' chidi.gs@example.com',
				Amount: 10000,
			},
		];
		const write = wf.nodes.find((n) => n.name === 'Write the results to the same rows')!;
		const mapping = (write.parameters.columns as { value: Record<string, string> }).value;
		wf.nodes = wf.nodes.flatMap((n) => {
			if (n.name === 'Read the sheet')
				return [
					{ ...sheetRows(rows)[0], name: 'Sheet data', position: n.position },
					{ ...sheetRows(rows)[1], name: 'Read the sheet', position: n.position, credentials: {} },
				];
			if (n === write)
				return [
					{
						...n,
						type: 'n8n-nodes-base.set',
						typeVersion: 3.4,
						credentials: {},
						parameters: {
							assignments: {
								assignments: Object.entries(mapping).map(([name, value]) => ({
									id: name,
									name,
									value,
									type: 'string',
								})),
							},
							options: {},
						},
					},
				];
			if (n.type === ACTION_NODE) n.parameters.reference = reference;
			return [n];
		});
		wf.connections = {
			[MANUAL_TRIGGER]: { main: [[{ node: 'Sheet data', type: 'main', index: 0 }]] },
			'Sheet data': { main: [[{ node: 'Read the sheet', type: 'main', index: 0 }]] },
			...Object.fromEntries(
				Object.entries(wf.connections).filter(([from]) => from !== MANUAL_TRIGGER),
			),
		};
		wf.name = 'E2E Google Sheets campaign (stand-ins)';
		const ex = await run(wf, MANUAL_TRIGGER);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		const updates = nodeOutput(ex, 'Write the results to the same rows');
		const orders = [...sandbox.state.orders.values()].filter((o) =>
			o.reference.startsWith(`${reference}-`),
		);
		const orderOf = (email: string) =>
			orders.find((o) => o.vouchers.some((v) => v.email === email))!;
		expect(updates).toEqual([
			{
				row_number: '2',
				Order: orderOf('ada.gs@example.com').reference,
				'Order Number': orderOf('ada.gs@example.com').orderNumber,
				Status: 'COMPLETED',
				'Voucher Status': 'DELIVERED',
				Error: '',
			},
			{
				row_number: '3',
				Order: '',
				'Order Number': '',
				Status: 'NOT BOUGHT',
				'Voucher Status': '',
				Error: 'invalid "email": E-mail is not a valid e-mail address: it has no @',
			},
			{
				row_number: '5',
				Order: orderOf('chidi.gs@example.com').reference,
				'Order Number': orderOf('chidi.gs@example.com').orderNumber,
				Status: 'COMPLETED',
				'Voucher Status': 'DELIVERED',
				Error: '',
			},
		]);
	});
});
