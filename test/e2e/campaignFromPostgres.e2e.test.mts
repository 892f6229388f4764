// examples/campaign-from-postgres as a user runs it: imported with `n8n import:workflow`, its
// credentials picked (by id: other files make credentials of the same names), its sub-workflow
// published, 20,000 rows of a real PostgreSQL bought in pages of 1,000 against the sandbox.
// After n8n is killed mid-way, a re-run, a re-run that buys nothing, rows added and two
// executions at once, the sandbox's own books show each ID holding exactly one voucher of its
// amount, and one debit per order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { type N8nRest } from '../../real-n8n/rest.mts';
import {
	ensureQueueServices,
	pgClient,
	startPostgres,
	type PgClient,
	type Postgres,
} from '../../real-n8n/services.mts';
import { postgresCredential } from '../../real-n8n/fixtures.mts';
import {
	campaignTotals,
	createRecipientsTable,
	fillRecipients,
	postgresExample as example,
} from '../../real-n8n/campaignFromPostgres.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ownerClient, restartN8n, sandboxApiCredential, until } from './n8nUnderTest.mts';
import {
	EVERY_ROW_ONCE,
	campaignRuns,
	createAnswers,
	lastSeq as lastSeqOf,
	pagedCampaignBooks,
} from './pagedCampaignBooks.mts';

const { base: BASE, start: START, campaignId: CAMPAIGN_ID, pageId: PAGE_ID } = example;
const EACH_PAGE = 'Each page';

const ROWS = 20_000;
/**
 * Orders a block of 1,000 IDs holds: fillRecipients changes the order's fields from hundred to
 * hundred of IDs, so each hundred is one order of 100 recipients (IDs 1 to 99 and 900 share one
 * in block 0, whose ID 0 is absent); block 20 holds ID 20000 alone.
 */
const ORDERS_PER_BLOCK = 10;
const RUN_TIMEOUT_MS = 240_000;
/** The service's answer time: it keeps creates in flight when n8n is killed. */
const LATENCY_MS = 50;
/** Under the node's 60 s request timeout, so a barrier's refusal is what the run sees. */
const BARRIER_TIMEOUT_MS = 45_000;

describe('a campaign from PostgreSQL, page by page (examples/campaign-from-postgres)', () => {
	let rest: N8nRest;
	let pg: Postgres;
	let db: PgClient;
	let sandbox: Sandbox;
	let scratch: string;
	/** The credentials the example's nodes use, by type. */
	let credentials: Record<string, { id: string; name: string }>;

	const requestsSince = (seq: number, base: string) =>
		pagedCampaignBooks(sandbox, base).requestsSince(seq);
	const lastSeq = () => lastSeqOf(sandbox);

	/** The campaign's vouchers per row ID, and its orders and debits, from the sandbox's books. */
	function books(base: string) {
		const { orders, debits } = pagedCampaignBooks(sandbox, base).books();
		const vouchers = new Map<string, number[]>();
		for (const order of orders)
			for (const voucher of order.vouchers) {
				const id = /^person(\d+)@/.exec(voucher.email ?? '')![1];
				vouchers.set(id, [...(vouchers.get(id) ?? []), voucher.value]);
			}
		return { orders, vouchers, debits };
	}

	/** Rows of the table with no voucher, and with more than one (or another amount). */
	async function tally(base: string) {
		const { rows } = await db.query(
			'SELECT id::text AS id, amount::float AS amount FROM campaign_recipients',
		);
		const { orders, vouchers, debits } = books(base);
		const wanted = new Map(rows.map((r) => [String(r.id), Number(r.amount)]));
		return {
			missing: rows.filter((r) => !vouchers.has(String(r.id))).length,
			doubled: [...vouchers.values()].filter((values) => values.length > 1).length,
			wrongValue: [...vouchers].filter(([id, [value]]) => wanted.get(id) !== value).length,
			strangers: [...vouchers.keys()].filter((id) => !wanted.has(id)).length,
			ordersPaidTwice: debits.length - new Set(debits.map((d) => d.reference)).size,
			ordersUnpaid: orders.length - new Set(debits.map((d) => d.reference)).size,
			held: vouchers.size,
			orders: orders.length,
		};
	}
	const { run: runCampaign, totalsOf } = campaignRuns(
		() => rest,
		example,
		campaignTotals,
		RUN_TIMEOUT_MS,
	);

	beforeAll(async () => {
		rest = await ownerClient();
		scratch = mkdtempSync(join(tmpdir(), 'voucher-e2e-pg-'));
		pg = await startPostgres(ensureQueueServices());
		db = pgClient(pg);
		await db.connect();
		await createRecipientsTable(db);
		await fillRecipients(db, 1, ROWS);
		sandbox = await startSandbox({
			port: 0,
			latencyMs: LATENCY_MS,
			initialBalanceNgn: 1_000_000_000,
		});
		credentials = {
			voucherServiceApi: await sandboxApiCredential(rest, sandbox, 'Voucher Service account'),
			postgres: await postgresCredential(rest, pg, 'Your PostgreSQL'),
		};
		await example.importBoth(inject('n8nUserFolder'), credentials, scratch);
		await rest.activateWorkflow(PAGE_ID);
	}, 180_000);
	afterAll(async () => {
		await rest?.deactivateWorkflow(PAGE_ID).catch(() => {});
		await db?.end();
		await pg?.stop();
		await sandbox?.close();
		if (scratch) rmSync(scratch, { recursive: true, force: true });
	});

	it('n8n killed mid-way, restarted: nothing doubled; a re-run buys the rest, each ID once', async () => {
		const t0 = Date.now();
		// The last full block cannot be bought before the kill, however fast the run: its order
		// is held (sandbox/README.md, createBarrier) until released after it.
		sandbox.configure({
			createBarrier: { creates: 2, reference: `${BASE}-k19-n1`, timeoutMs: BARRIER_TIMEOUT_MS },
		});
		await rest.startWorkflow(CAMPAIGN_ID, START);
		// A few pages in: their orders are bought, the later ones not yet.
		await until('a few pages bought', () => books(BASE).orders.length >= 50, RUN_TIMEOUT_MS);
		await restartN8n({ kill: true });
		const killed = await tally(BASE);
		sandbox.configure({ createBarrier: null });
		console.log(`killed after ${killed.held} rows bought (${Date.now() - t0} ms)`);
		expect(killed).toMatchObject({ doubled: 0, wrongValue: 0, ordersPaidTwice: 0 });
		expect(killed.held).toBeLessThan(ROWS);

		const seq = lastSeq();
		const t1 = Date.now();
		const totals = totalsOf(await runCampaign());
		console.log(
			`re-run after the crash: ${JSON.stringify(totals)}, ${JSON.stringify(requestsSince(seq, BASE))}, ${Date.now() - t1} ms`,
		);
		expect(await tally(BASE)).toMatchObject({ ...EVERY_ROW_ONCE, held: ROWS });
		expect(totals).toMatchObject({ pages: ROWS / 1000 + 1, rows: ROWS, refusedOrFailed: 0 });
		expect(totals.bought + totals.held).toBe(ROWS);
		expect(totals.held).toBeGreaterThanOrEqual(killed.held);
	}, 600_000);

	it(
		'a re-run buys nothing, with one look-up per order and no create',
		async () => {
			const seq = lastSeq();
			const t0 = Date.now();
			const totals = totalsOf(await runCampaign());
			const requests = requestsSince(seq, BASE);
			console.log(
				`re-run: ${JSON.stringify(totals)}, ${JSON.stringify(requests)}, ${Date.now() - t0} ms`,
			);
			expect(totals).toMatchObject({
				rows: ROWS,
				bought: 0,
				held: ROWS,
				refusedOrFailed: 0,
				spentNgn: 0,
			});
			expect(requests).toEqual({
				lookUps: (ROWS / 1000) * ORDERS_PER_BLOCK + 1,
				creates: 0,
				refusedCreates: 0,
			});
			expect(await tally(BASE)).toMatchObject({ ...EVERY_ROW_ONCE, held: ROWS });
		},
		RUN_TIMEOUT_MS,
	);

	it(
		'rows added to the table: a re-run buys only those, and names the row it cannot buy',
		async () => {
			// ID 0 joins block 0 (IDs 1 to 999 bought), 20001 to 20251 block 20 (20000 bought).
			await fillRecipients(db, 0, 0);
			await fillRecipients(db, ROWS + 1, ROWS + 251);
			// A typo in one row: the row fails alone, and the page's summary names it.
			const bad = { id: String(ROWS + 251), email: 'person20251.example.com' };
			await db.query(`UPDATE campaign_recipients SET email = $1 WHERE id = $2`, [
				bad.email,
				bad.id,
			]);
			const added = await db.query(
				`SELECT (sum(amount) FILTER (WHERE id = 0))::float AS first, (sum(amount) FILTER (WHERE id BETWEEN ${ROWS + 1} AND ${ROWS + 250}))::float AS last FROM campaign_recipients`,
			);
			const spent = added.rows[0] as { first: number; last: number };
			const seq = lastSeq();
			const t0 = Date.now();
			const ex = await runCampaign();
			const totals = totalsOf(ex);
			const requests = requestsSince(seq, BASE);
			console.log(
				`rows added: ${JSON.stringify(totals)}, ${JSON.stringify(requests)}, ${Date.now() - t0} ms`,
			);
			// Each page's summary, as Each page hands them to Totals so far.
			const pages = ex.data.resultData.runData[EACH_PAGE].at(-1)!.data!.main![0]!.map(
				(i) => i.json,
			);
			expect(pages).toHaveLength(21);
			expect(pages[0]).toEqual({
				firstId: '0',
				lastId: '999',
				rows: 1000,
				bought: 1,
				held: 999,
				refusedOrFailed: 0,
				spentNgn: spent.first,
				failures: [],
			});
			const failures = [{ ...bad, error: expect.stringContaining('email') }];
			expect(pages[20]).toEqual({
				firstId: '20000',
				lastId: '20999',
				rows: 252,
				bought: 250,
				held: 1,
				refusedOrFailed: 1,
				spentNgn: spent.last,
				failures,
			});
			expect(totals).toMatchObject({
				rows: ROWS + 252,
				bought: 251,
				held: ROWS,
				refusedOrFailed: 1,
				spentNgn: spent.first + spent.last,
				failures,
			});
			// k0-n11 beside block 0's ten orders; k20-n2 to -n4 (one per hundred of IDs 20001 to
			// 20250) beside k20-n1.
			expect(requests.creates).toBe(4);
			expect(await tally(BASE)).toMatchObject({ ...EVERY_ROW_ONCE, missing: 1, held: ROWS + 251 });
			await db.query('DELETE FROM campaign_recipients WHERE id = $1', [bad.id]);
		},
		RUN_TIMEOUT_MS,
	);

	it(
		'two executions at once over the same pages buy each ID once between them',
		async () => {
			const base = `${BASE}-twice`;
			await example.importWithBase(inject('n8nUserFolder'), credentials, scratch, base);
			const seq = lastSeq();
			const t0 = Date.now();
			// They race for certain, at any speed: block 0's first order is held until both
			// executions have sent it, so both read the block before either bought in it.
			sandbox.configure({
				createBarrier: { creates: 2, reference: `${base}-k0-n1`, timeoutMs: BARRIER_TIMEOUT_MS },
			});
			const ids = await Promise.all([1, 2].map(() => rest.startWorkflow(CAMPAIGN_ID, START)));
			const both = await Promise.all(ids.map((id) => rest.waitForExecution(id, RUN_TIMEOUT_MS)));
			const [a, b] = both.map(totalsOf);
			const requests = requestsSince(seq, base);
			console.log(
				`two at once: ${JSON.stringify([a, b])}, ${JSON.stringify(requests)}, ${Date.now() - t0} ms`,
			);
			const rows = ROWS + 251;
			expect(await tally(base)).toMatchObject({ ...EVERY_ROW_ONCE, held: rows });
			expect(a.bought + b.bought).toBe(rows);
			for (const totals of [a, b]) expect(totals).toMatchObject({ rows, refusedOrFailed: 0 });
			// They did race: creates of the same order, the second refused as a used Reference.
			expect(createAnswers(sandbox, seq, `${base}-k0-n1`)).toEqual(['00', '09']);
			expect(requests.refusedCreates).toBeGreaterThan(0);
		},
		RUN_TIMEOUT_MS,
	);
});
