// examples/campaign-from-data-table as a user runs it: its Data Table made in n8n (here through
// the editor's REST API) with 20,000 rows, the example imported with `n8n import:workflow`, its
// credential picked (by id: other files make credentials of the same name), its sub-workflow
// published, the rows bought in pages of whole thousands of IDs against the sandbox, each row's
// result written back into its own row. After n8n is killed mid-way, a re-run, a re-run that
// buys nothing, rows added and deleted (n8n then hands a deleted ID to a new row) with a bad
// e-mail, and two executions at once, the sandbox's books show each row holding exactly one
// voucher of its amount, one debit per order, and every row's result columns say what the
// books hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { N8nRest } from '../../real-n8n/rest.mts';
import {
	RecipientTable,
	campaignTotals,
	dataTableExample as example,
	totalsAfterEachPage,
} from '../../real-n8n/campaignFromDataTable.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ownerClient, restartN8n, sandboxApiCredential, until } from './n8nUnderTest.mts';
import {
	EVERY_TABLE_ROW_ONCE,
	campaignRuns,
	createAnswers,
	lastSeq,
	pagedCampaignBooks,
	tableTally,
} from './pagedCampaignBooks.mts';

const { base: BASE, start: START, campaignId: CAMPAIGN_ID, pageId: PAGE_ID } = example;

const ROWS = 20_000;
/**
 * Orders a block of 1,000 IDs holds: RecipientTable.add changes the order's fields from hundred
 * to hundred of IDs, so each hundred is one order of 100 recipients (IDs 1 to 99 and 900 share
 * one in block 0, whose ID 0 is absent); block 20 holds ID 20000 alone.
 */
const ORDERS_PER_BLOCK = 10;
const RUN_TIMEOUT_MS = 300_000;
/** The service's answer time: it keeps creates in flight when n8n is killed. */
const LATENCY_MS = 50;
/** Under the node's 60 s request timeout, so a barrier's refusal is what the run sees. */
const BARRIER_TIMEOUT_MS = 45_000;

describe('a campaign from an n8n Data Table, page by page (examples/campaign-from-data-table)', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let table: RecipientTable;
	let scratch: string;
	/** The credentials the example's nodes use, by type. */
	let credentials: Record<string, { id: string; name: string }>;
	/** E-mails of rows deleted from the table: their vouchers stay theirs. */
	const deleted = new Set<string>();

	/** The table's rows against the campaign `base`'s books. */
	const tally = async (base: string) => tableTally(sandbox, base, await table.rows(), deleted);
	const { run: runCampaign, totalsOf } = campaignRuns(
		() => rest,
		example,
		campaignTotals,
		RUN_TIMEOUT_MS,
	);
	const timed = async <T,>(label: string, run: () => Promise<T>) => {
		const t0 = Date.now();
		const result = await run();
		console.log(`${label}: ${Date.now() - t0} ms`);
		return result;
	};

	beforeAll(async () => {
		rest = await ownerClient();
		scratch = mkdtempSync(join(tmpdir(), 'voucher-e2e-dt-'));
		table = await RecipientTable.create(rest);
		const ids = await timed(`${ROWS} rows added through REST`, () => table.add(ROWS, 1, 1));
		// A new table numbers its rows from 1: row n is person n.
		expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
		sandbox = await startSandbox({
			port: 0,
			latencyMs: LATENCY_MS,
			initialBalanceNgn: 1_000_000_000,
		});
		credentials = {
			voucherServiceApi: await sandboxApiCredential(rest, sandbox, 'Voucher Service account'),
		};
		await example.importBoth(inject('n8nUserFolder'), credentials, scratch);
		await rest.activateWorkflow(PAGE_ID);
	}, 180_000);
	afterAll(async () => {
		await rest?.deactivateWorkflow(PAGE_ID).catch(() => {});
		await table?.drop();
		await sandbox?.close();
		if (scratch) rmSync(scratch, { recursive: true, force: true });
	});

	it('n8n killed mid-way, restarted: nothing doubled; a re-run buys the rest and writes every row', async () => {
		const books = () => pagedCampaignBooks(sandbox, BASE).books();
		const t0 = Date.now();
		// The last full block cannot be bought before the kill, however fast the run: its order
		// is held (sandbox/README.md, createBarrier) until released after it.
		sandbox.configure({
			createBarrier: { creates: 2, reference: `${BASE}-k19-n1`, timeoutMs: BARRIER_TIMEOUT_MS },
		});
		await rest.startWorkflow(CAMPAIGN_ID, START);
		// A few pages in: their orders are bought, the later ones not yet.
		await until('a few pages bought', () => books().orders.length >= 50, RUN_TIMEOUT_MS);
		await restartN8n({ kill: true });
		const killed = await tally(BASE);
		sandbox.configure({ createBarrier: null });
		const written = killed.rows.filter((r) => r.result).length;
		console.log(
			`killed after ${killed.held} rows bought, ${written} written (${Date.now() - t0} ms)`,
		);
		expect(killed).toMatchObject({ doubled: 0, wrongValue: 0, ordersPaidTwice: 0 });
		expect(killed.held).toBeLessThan(ROWS);
		// A row is written only after it is bought.
		expect(written).toBeLessThanOrEqual(killed.held);

		const seq = lastSeq(sandbox);
		const totals = totalsOf(await timed('re-run after the crash', runCampaign));
		const requests = pagedCampaignBooks(sandbox, BASE).requestsSince(seq);
		console.log(`re-run after the crash: ${JSON.stringify(totals)}, ${JSON.stringify(requests)}`);
		expect(await tally(BASE)).toMatchObject({ ...EVERY_TABLE_ROW_ONCE, held: ROWS });
		expect(totals).toMatchObject({ pages: ROWS / 1000 + 1, rows: ROWS, written: ROWS });
		expect(totals).toMatchObject({ refusedOrFailed: 0, failures: [] });
		expect(totals.bought + totals.held).toBe(ROWS);
		expect(totals.held).toBeGreaterThanOrEqual(killed.held);
	}, 600_000);

	it(
		'a re-run buys nothing, with one look-up per order and no create; every row says bought earlier',
		async () => {
			const seq = lastSeq(sandbox);
			const ex = await timed('re-run', runCampaign);
			const totals = totalsOf(ex);
			const requests = pagedCampaignBooks(sandbox, BASE).requestsSince(seq);
			console.log(`re-run: ${JSON.stringify(totals)}, ${JSON.stringify(requests)}`);
			expect(totals).toMatchObject({
				rows: ROWS,
				bought: 0,
				held: ROWS,
				refusedOrFailed: 0,
				written: ROWS,
				spentNgn: 0,
			});
			// The totals so far after each page: a page of 1,000 IDs at a time, 999 in the first
			// (IDs start at 1), and one row in the last.
			expect(totalsAfterEachPage(ex).map((t) => [t.pages, t.rows, t.fromId])).toEqual([
				...Array.from({ length: 20 }, (_, i) => [i + 1, 1000 * (i + 1) - 1, 1000 * (i + 1)]),
				[21, ROWS, null],
			]);
			expect(requests).toEqual({
				lookUps: (ROWS / 1000) * ORDERS_PER_BLOCK + 1,
				creates: 0,
				refusedCreates: 0,
			});
			const after = await tally(BASE);
			expect(after).toMatchObject({ ...EVERY_TABLE_ROW_ONCE, held: ROWS });
			expect(new Set(after.rows.map((r) => r.result))).toEqual(new Set(['bought earlier']));
		},
		RUN_TIMEOUT_MS,
	);

	it(
		'rows deleted and added: n8n gives the deleted highest ID to a new row, which is bought; a bad e-mail fails alone',
		async () => {
			const before = await table.rows();
			const gone = (from: number, to: number) =>
				before.filter((r) => r.id >= from && r.id <= to).forEach((r) => deleted.add(r.email));
			// A hundred rows (so the page from 5000 reads past 5999 and is cut there), one row, and
			// the highest row.
			for (const [from, to] of [
				[5001, 5100],
				[7777, 7777],
				[ROWS, ROWS],
			]) {
				gone(from, to);
				await table.delete(from, to);
			}
			// SQLite numbers a new row after the highest there is: ID 20000 again, for person 20001.
			const ids = await table.add(251, ROWS, ROWS + 1);
			expect(ids).toEqual(Array.from({ length: 251 }, (_, i) => ROWS + i));
			const bad = { id: ROWS + 250, email: 'person20251.example.com' };
			await table.update(bad.id, { email: bad.email });
			const rows = ROWS - 102 + 251;

			const seq = lastSeq(sandbox);
			const ex = await timed('rows deleted and added', runCampaign);
			const totals = totalsOf(ex);
			const requests = pagedCampaignBooks(sandbox, BASE).requestsSince(seq);
			console.log(`rows deleted and added: ${JSON.stringify(totals)}, ${JSON.stringify(requests)}`);
			const failures = [{ ...bad, error: expect.stringContaining('email') }];
			expect(totals).toMatchObject({
				pages: 21,
				rows,
				bought: 250,
				held: ROWS - 102,
				refusedOrFailed: 1,
				written: rows,
				failures,
			});
			// Block 20's second to fourth orders (its first holds person 20000's voucher), one per
			// hundred of IDs 20000 to 20249.
			expect(requests.creates).toBe(3);
			// Pages start at whole thousands: the one from 5000 reads 5000 and 5101 to 6099 (past the
			// deleted rows), keeps 5000 to 5999 and leaves 6000 to 6099 to the next.
			const pageRows = totalsAfterEachPage(ex).map((t, i, all) => t.rows - (all[i - 1]?.rows ?? 0));
			expect(pageRows[5]).toBe(900);
			expect(totalsAfterEachPage(ex).map((t) => t.fromId)).toEqual([
				...Array.from({ length: 20 }, (_, k) => (k + 1) * 1000),
				null,
			]);
			const after = await tally(BASE);
			expect(after).toMatchObject({ ...EVERY_TABLE_ROW_ONCE, missing: 1, held: rows - 1 });
			const reused = after.rows.find((r) => r.id === ROWS)!;
			expect(reused).toMatchObject({
				email: 'person20001@example.com',
				result: 'bought',
				order_reference: `${BASE}-k20-n2`,
			});
			expect(after.rows.find((r) => r.id === bad.id)).toMatchObject({
				result: 'not bought',
				order_reference: '',
				error: expect.stringContaining('email'),
			});
			await table.delete(bad.id);
		},
		RUN_TIMEOUT_MS,
	);

	it(
		'two executions at once over the same pages buy each row once between them',
		async () => {
			const base = `${BASE}-twice`;
			await example.importWithBase(inject('n8nUserFolder'), credentials, scratch, base);
			const seq = lastSeq(sandbox);
			const t0 = Date.now();
			// They race for certain, at any speed: block 0's first order is held until both
			// executions have sent it, so both read the block before either bought in it.
			sandbox.configure({
				createBarrier: { creates: 2, reference: `${base}-k0-n1`, timeoutMs: BARRIER_TIMEOUT_MS },
			});
			const ids = await Promise.all([1, 2].map(() => rest.startWorkflow(CAMPAIGN_ID, START)));
			const both = await Promise.all(ids.map((id) => rest.waitForExecution(id, RUN_TIMEOUT_MS)));
			const [a, b] = both.map(totalsOf);
			const requests = pagedCampaignBooks(sandbox, base).requestsSince(seq);
			console.log(
				`two at once: ${JSON.stringify([a, b])}, ${JSON.stringify(requests)}, ${Date.now() - t0} ms`,
			);
			const rows = ROWS - 102 + 250;
			expect(await tally(base)).toMatchObject({ ...EVERY_TABLE_ROW_ONCE, held: rows });
			expect(a.bought + b.bought).toBe(rows);
			for (const totals of [a, b])
				expect(totals).toMatchObject({ rows, refusedOrFailed: 0, written: rows });
			// They did race: creates of the same order, the second refused as a used Reference.
			expect(createAnswers(sandbox, seq, `${base}-k0-n1`)).toEqual(['00', '09']);
			expect(requests.refusedCreates).toBeGreaterThan(0);
		},
		RUN_TIMEOUT_MS,
	);
});
