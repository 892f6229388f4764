// examples/campaign-from-data-table in the oldest n8n of the matrix whose Data Table node it can
// use (real-n8n/versions.mts, `dataTables`), imported as a user of that n8n sets it up: where the
// node finds no table By Name, the table picked From List. Its Data Table is made through n8n's
// REST API with 2,450 rows, read in pages of at most 1,200 rows (the example's Limit, which a
// user may set above 1,000) so that a read ends inside a block and is cut. Where Get has no Order By the pages
// rely on SQLite's order by `id`: this suite's n8n runs on SQLite, n8n's default. A run, then a
// re-run that buys nothing; after each, the sandbox's books hold each row's one voucher of its
// amount, one debit per order, and every row's result columns say what the books hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import {
	RecipientTable,
	campaignTotals,
	dataTableExample as example,
	pickTableFromList,
	setPageLimit,
	totalsAfterEachPage,
} from '../../real-n8n/campaignFromDataTable.mts';
import { sandboxApiCredential } from '../../real-n8n/fixtures.mts';
import { N8nRest, type WorkflowJson } from '../../real-n8n/rest.mts';
import { versionFacts } from '../../real-n8n/versions.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import {
	EVERY_TABLE_ROW_ONCE,
	campaignRuns,
	lastSeq,
	pagedCampaignBooks,
	tableTally,
} from '../e2e/pagedCampaignBooks.mts';

const ROWS = 2_450;
const PAGE_LIMIT = 1_200;
const RUN_TIMEOUT_MS = 120_000;

/** compatSetup.mts starts the matrix oldest first: the first with Data Tables. */
const instance = inject('compatInstances').find((i) => versionFacts(i.id).dataTables);

const noOrderBy = instance && !versionFacts(instance.id).dataTables!.orderBy;

describe.runIf(instance)(
	`examples/campaign-from-data-table in n8n ${instance?.id}${noOrderBy ? ' (its Get has no Order By)' : ''}`,
	() => {
		// The suite is collected even when skipped: nothing here may need the instance.
		const id = instance?.id ?? '';
		let rest: N8nRest;
		let sandbox: Sandbox;
		let table: RecipientTable;
		let scratch: string;
		const { run, totalsOf } = campaignRuns(() => rest, example, campaignTotals, RUN_TIMEOUT_MS);
		const tally = async () => tableTally(sandbox, example.base, await table.rows());
		const publishes = () => versionFacts(id).publishSubWorkflows;

		beforeAll(async () => {
			rest = new N8nRest(instance!.url, id);
			rest.cookie = instance!.ownerCookie;
			scratch = mkdtempSync(join(tmpdir(), 'voucher-compat-dt-'));
			table = await RecipientTable.create(rest);
			// A new table numbers its rows from 1: row n is person n.
			expect(await table.add(ROWS, 1, 1)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
			sandbox = await startSandbox({ port: 0, initialBalanceNgn: 10_000_000 });
			const credentials = {
				voucherServiceApi: await sandboxApiCredential(rest, sandbox, 'Voucher Service account'),
			};
			const pickTable = pickTableFromList(table);
			const adapt = (wf: WorkflowJson) => {
				if (!versionFacts(id).dataTables!.byName) pickTable(wf);
				setPageLimit(wf, PAGE_LIMIT);
			};
			await example.importBoth(instance!.userFolder, credentials, scratch, { version: id, adapt });
			if (publishes()) await rest.activateWorkflow(example.pageId);
		}, 120_000);
		afterAll(async () => {
			if (rest && publishes()) await rest.deactivateWorkflow(example.pageId).catch(() => {});
			await table?.drop();
			await sandbox?.close();
			if (scratch) rmSync(scratch, { recursive: true, force: true });
		});

		it(`buys each of ${ROWS} rows once in pages of whole thousands and writes each row's result; a re-run buys nothing`, async () => {
			const t0 = Date.now();
			const first = await run();
			const totals = totalsOf(first);
			// 1 to 999 (the read to 1,200 cut at 1,000), 1,000 to 1,999, 2,000 to 2,450 (the end).
			expect(totalsAfterEachPage(first).map((t) => [t.pages, t.rows, t.fromId])).toEqual([
				[1, 999, 1000],
				[2, 1999, 2000],
				[3, ROWS, null],
			]);
			expect(totals).toMatchObject({ bought: ROWS, held: 0, written: ROWS, failures: [] });
			const bought = await tally();
			expect(bought).toMatchObject({ ...EVERY_TABLE_ROW_ONCE, held: ROWS });
			expect(new Set(bought.rows.map((r) => r.result))).toEqual(new Set(['bought']));
			const firstMs = Date.now() - t0;

			const seq = lastSeq(sandbox);
			const again = totalsOf(await run());
			expect(again).toMatchObject({ rows: ROWS, bought: 0, held: ROWS, written: ROWS });
			// One look-up per order (blocks 0 to 2), each up to the last that holds the block's rows;
			// no create.
			const books = pagedCampaignBooks(sandbox, example.base);
			expect(books.requestsSince(seq)).toEqual({
				lookUps: books.books().orders.length,
				creates: 0,
				refusedCreates: 0,
			});
			const held = await tally();
			expect(held).toMatchObject({ ...EVERY_TABLE_ROW_ONCE, held: ROWS });
			expect(new Set(held.rows.map((r) => r.result))).toEqual(new Set(['bought earlier']));
			console.log(
				`n8n ${id}: ${ROWS} rows bought in ${firstMs} ms, re-run ${Date.now() - t0 - firstMs} ms`,
			);
		});
	},
);
