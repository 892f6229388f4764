// examples/campaign-from-data-table's status board (status-board.json): after the campaign has
// bought a table's rows, the board asks the service (Order → Get Campaign) where each row's
// voucher stands and writes that into the row's voucher_status. Right after the campaign it
// writes nothing; once the service reports other statuses (a whole order's, and one voucher's
// of another order) it writes exactly those rows, only their voucher_status, and every row's
// result columns again say what the sandbox's books hold.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	RecipientTable,
	campaignTotals,
	dataTableExample as example,
	statusBoard,
	type RecipientRow,
} from '../../real-n8n/campaignFromDataTable.mts';
import { bindCredentials } from '../../real-n8n/examples.mts';
import { nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ownerClient, sandboxApiCredential } from './n8nUnderTest.mts';
import {
	EVERY_TABLE_ROW_ONCE,
	campaignRuns,
	lastSeq,
	pagedCampaignBooks,
	tableTally,
} from './pagedCampaignBooks.mts';

/** Two blocks of 1,000 IDs (0 and 1), on two pages. */
const ROWS = 1_500;
/** A row whose e-mail the service refuses: never bought, so the board has nothing for it. */
const BAD_ROW = 250;
const RUN_TIMEOUT_MS = 120_000;
const BOARD_START = statusBoard.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger')!.name;

type DeliveryStatus = 'DELIVERED' | 'FAILED' | 'CANCELED' | 'PROCESSING';

describe('the status board of a campaign from an n8n Data Table (status-board.json)', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let table: RecipientTable;
	let scratch: string;
	let boardId: string;
	const { run: runCampaign, totalsOf } = campaignRuns(
		() => rest,
		example,
		campaignTotals,
		RUN_TIMEOUT_MS,
	);
	const tally = async () => tableTally(sandbox, example.base, await table.rows());

	/** Runs the board; the rows it hands to Write the statuses (none: the node did not run). */
	async function refresh() {
		const ex = await rest.runWorkflow(boardId, BOARD_START, RUN_TIMEOUT_MS);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		return ex.data.resultData.runData['Write the statuses']
			? nodeOutput(ex, 'Changed statuses')
			: [];
	}

	/** The service now reports `status` for the vouchers of order `reference` (of `email` only, if given). */
	function serviceReports(reference: string, status: DeliveryStatus, email?: string) {
		const order = sandbox.state.orders.get(reference)!;
		for (const voucher of order.vouchers)
			if (!email || voucher.email === email) voucher.status = status;
	}

	/** Rows of `after` that differ from `before`, and how (the columns that changed). */
	function changes(before: RecipientRow[], after: RecipientRow[]) {
		expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
		return after.flatMap((row, i) => {
			const was = before[i] as unknown as Record<string, unknown>;
			const columns = Object.entries(row)
				.filter(([column, value]) => was[column] !== value)
				.map(([column]) => column);
			return columns.length ? [{ id: row.id, columns }] : [];
		});
	}

	beforeAll(async () => {
		rest = await ownerClient();
		scratch = mkdtempSync(join(tmpdir(), 'voucher-e2e-board-'));
		table = await RecipientTable.create(rest);
		await table.add(ROWS, 1, 1);
		await table.update(BAD_ROW, { email: `person${BAD_ROW}.example.com` });
		sandbox = await startSandbox({ port: 0, initialBalanceNgn: 100_000_000 });
		const credentials = {
			voucherServiceApi: await sandboxApiCredential(rest, sandbox, 'Voucher Service account'),
		};
		await example.importBoth(inject('n8nUserFolder'), credentials, scratch);
		await rest.activateWorkflow(example.pageId);
		boardId = (
			await rest.createWorkflow(bindCredentials(structuredClone(statusBoard), credentials))
		).id;
		const totals = totalsOf(await runCampaign());
		expect(totals).toMatchObject({ rows: ROWS, bought: ROWS - 1, refusedOrFailed: 1 });
	}, 180_000);
	afterAll(async () => {
		await rest?.deactivateWorkflow(example.pageId).catch(() => {});
		await table?.drop();
		await sandbox?.close();
		if (scratch) rmSync(scratch, { recursive: true, force: true });
	});

	it('right after the campaign, a refresh writes nothing: every status already agrees', async () => {
		const before = await table.rows();
		expect(new Set(before.map((r) => r.voucher_status))).toEqual(new Set(['DELIVERED', '']));
		const seq = lastSeq(sandbox);
		expect(await refresh()).toEqual([]);
		expect(changes(before, await table.rows())).toEqual([]);
		// Per block of 1,000 IDs (rows 1 to 1,500: blocks 0 and 1), each of its orders, the next
		// Reference, which the service does not hold (where Get Campaign stops reading a block),
		// and the ten blocks of 100 under 0.3.0's names, which hold nothing. No create.
		const books = pagedCampaignBooks(sandbox, example.base);
		expect(books.requestsSince(seq)).toEqual({
			lookUps: books.books().orders.length + 2 * (1 + 10),
			creates: 0,
			refusedCreates: 0,
		});
	});

	it("after the service's statuses change, a refresh writes them into those rows' voucher_status, and into nothing else", async () => {
		// The order of rows 100 to 199 failed as a whole; one voucher of another order was canceled.
		const before = await table.rows();
		const orderOf = (id: number) => before.find((r) => r.id === id)!.order_reference;
		expect(before.filter((r) => r.order_reference === orderOf(150)).map((r) => r.id)).toEqual(
			Array.from({ length: 100 }, (_, i) => 100 + i),
		);
		expect(orderOf(333)).not.toBe(orderOf(150));
		serviceReports(orderOf(150)!, 'FAILED');
		serviceReports(orderOf(333)!, 'CANCELED', 'person333@example.com');
		const t0 = Date.now();
		const writes = await refresh();
		console.log(`status board, ${ROWS} rows: ${Date.now() - t0} ms`);
		expect(writes).toEqual([
			{ firstId: 100, lastId: 199, voucher_status: 'FAILED' },
			{ firstId: 333, lastId: 333, voucher_status: 'CANCELED' },
		]);
		const after = await table.rows();
		const changed = [...Array.from({ length: 100 }, (_, i) => 100 + i), 333];
		expect(changes(before, after)).toEqual(
			changed.map((id) => ({ id, columns: ['voucher_status', 'updatedAt'] })),
		);
		// Every row's result columns, voucher_status included, agree with the books.
		expect(await tally()).toMatchObject({ ...EVERY_TABLE_ROW_ONCE, missing: 1, held: ROWS - 1 });
		expect(await refresh()).toEqual([]);
	});
});
