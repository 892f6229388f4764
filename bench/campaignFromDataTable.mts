// Benchmark 1 from a Data Table (issue 40): examples/campaign-from-data-table as it is (pages of
// up to 1,000 rows by id through a sub-workflow, each row's result written back into its row)
// beside examples/campaign-from-postgres, at the same sizes, in the same n8n (default settings,
// SQLite), against the same sandbox.
//   BENCH_CAMPAIGN_SOURCE=datatable npm run bench:campaign
// Env: BENCH_CAMPAIGN_SIZES (default 20000,100000), BENCH_LATENCY_MS (default 25), BENCH_RUN_TIMEOUT_S,
//      BENCH_CAMPAIGN_NODE_TIMES=1 (both pages keep their executions, and each node's time per row
//      is printed: where the time goes; saving them costs time, so those runs' walls are not the figures).
// Each size in a fresh n8n: both examples saved and warmed up on 1,000 rows, n8n's idle RSS
// read after start-up and after each warm-up (its plateau), the Data Table made anew with the
// size's rows through n8n's REST API (as far as N8N_DATA_TABLES_MAX_SIZE_BYTES lets it) and the
// PostgreSQL table filled with as many; then the Data Table example's first run and the
// PostgreSQL example's. After the Data Table run every row is read back and its result columns
// checked against the sandbox's books: any row doubled, missing or disagreeing fails the bench.
import { setTimeout as sleep } from 'node:timers/promises';

import {
	RecipientTable,
	campaignTotals as dataTableTotals,
	dataTableExample,
	dataTablesBytes,
	resultAgrees,
} from '../real-n8n/campaignFromDataTable.mts';
import { campaignTotals as postgresTotals, createRecipientsTable, fillRecipients, postgresExample } from '../real-n8n/campaignFromPostgres.mts';
import { ensureQueueServices, pgClient, startPostgres } from '../real-n8n/services.mts';
import { pagedCampaignBooks } from '../test/e2e/pagedCampaignBooks.mts';
import { runQuietly, runTimeoutMs, startBenchN8n, startBenchSandbox, type Credentials } from './harness.mts';
import {
	HEAD,
	WARM_ROWS,
	allRight,
	cells,
	newestExecutionId,
	pageNodeTimes,
	pagedCampaignRuns,
	perRow,
	reportedByTotals,
	requestsPerRow,
	type Figures,
	type NodeTime,
	type Target,
} from './pagedCampaign.mts';
import { mib, rssKb } from './peakRss.mts';
import { atMost, beginRun, conditionsTable, envInt, fmt, info, machine, print, render, say, table, type Row } from './report.mts';

const SIZES = (process.env.BENCH_CAMPAIGN_SIZES || '20000,100000').split(',').map(Number);
const LATENCY = Number(process.env.BENCH_LATENCY_MS || 25);
const DATA_TABLE_RUN = 'Data Table example, first run';
const POSTGRES_RUN = 'PostgreSQL example, first run';
/** N8N_DATA_TABLES_MAX_SIZE_BYTES when unset, in n8n 2.41.1 (its DataTableConfig). */
const DEFAULT_MAX_BYTES = 200 * 1024 * 1024;
const NODE_TIMES = envInt('BENCH_CAMPAIGN_NODE_TIMES', 0) > 0;

await beginRun();
const { sandbox, probe } = await startBenchSandbox(LATENCY);
const { measure, preparePostgresExample } = pagedCampaignRuns(sandbox, probe);

/**
 * Adds up to `rows` rows, 1,000 at a time, until n8n refuses one for the Data Tables' size
 * limit; how many it holds. Past the limit n8n refuses every write, the example's results too,
 * so a refused table gives back its last tenth for them. Any other refusal is thrown.
 */
async function fillUpTo(recipients: RecipientTable, rows: number): Promise<{ added: number; refusal?: string }> {
	for (let added = 0; added < rows; added += 1000) {
		try {
			await recipients.add(Math.min(1000, rows - added), added + 1, added + 1);
		} catch (error) {
			if (!/size limit/i.test(String(error))) throw error;
			const kept = Math.floor((added * 0.9) / 1000) * 1000;
			await recipients.delete(kept + 1, added);
			return { added: kept, refusal: String(error).split('\n')[0] };
		}
	}
	return { added: rows };
}

/**
 * The Data Table example saved and its page published, a warm-up run over WARM_ROWS rows (then
 * forgotten, table and sandbox), and the table made anew with up to `rows` rows.
 */
async function prepareDataTableExample(target: Target, creds: Credentials, filesDir: string, rows: number) {
	const id = await dataTableExample.saveBoth(target.rest, { voucherServiceApi: creds.ours }, filesDir, NODE_TIMES);
	const warm = await RecipientTable.create(target.rest);
	await warm.add(WARM_ROWS, 1, 1);
	await runQuietly(target.rest, id, runTimeoutMs(WARM_ROWS), dataTableExample.start);
	await warm.drop();
	sandbox.reset();
	const recipients = await RecipientTable.create(target.rest);
	const t0 = Date.now();
	const { added, refusal } = await fillUpTo(recipients, rows);
	say(`Data Table filled with ${added} rows in ${fmt((Date.now() - t0) / 1000, 1)} s${refusal ? `; refused past that: ${refusal}` : ''}`);
	return { recipients, added, refusal, example: { id, trigger: dataTableExample.start, base: dataTableExample.base }, pageId: dataTableExample.pageId };
}

/** Rows whose result columns disagree with the sandbox's books, and rows seen. */
async function resultsWrong(recipients: RecipientTable) {
	const rows = await recipients.rows();
	const { vouchers } = pagedCampaignBooks(sandbox, dataTableExample.base).books();
	return { rows: rows.length, wrong: rows.filter((r) => !resultAgrees(r, vouchers.get(r.email))).length };
}

/** What one size gave: both runs, the idle RSS along the way, the Data Table's own figures. */
interface SizeResult {
	asked: number;
	rows: number;
	refusal?: string;
	dataTable: Figures;
	postgres: Figures;
	idleMib: Array<[string, number]>;
	resultRows: number;
	resultsWrong: number;
	/** The Data Tables' size after the run, as n8n counts it against its limit. */
	tableBytes: number;
	/** BENCH_CAMPAIGN_NODE_TIMES: ms per node of the pages, Data Table and PostgreSQL. */
	nodeTimes?: [Map<string, NodeTime>, Map<string, NodeTime>];
}

async function oneSize(asked: number, pg: Parameters<typeof preparePostgresExample>[1], db: Parameters<typeof preparePostgresExample>[2]): Promise<SizeResult> {
	const bench = await startBenchN8n();
	try {
		const pid = bench.n8n.pid;
		const target: Target = { rest: bench.rest, processes: [{ name: 'main', pid }], logTail: () => bench.n8n.logTail(30) };
		const idleMib: Array<[string, number]> = [];
		const idle = async (when: string) => {
			await sleep(3000);
			idleMib.push([when, mib(rssKb(pid))]);
		};
		await idle('n8n started, owner and nothing run');
		// PostgreSQL first, with the size asked; refilled below if the Data Table holds fewer.
		const { creds, example: postgres } = await preparePostgresExample(target, pg, db, bench.filesDir, asked, NODE_TIMES);
		await idle(`after the PostgreSQL example's warm-up (${WARM_ROWS} rows)`);
		const dt = await prepareDataTableExample(target, creds, bench.filesDir, asked);
		await idle(`after the Data Table example's warm-up (${WARM_ROWS} rows) and filling the table`);
		if (dt.added < asked) {
			await db.query('TRUNCATE campaign_recipients');
			await fillRecipients(db, 1, dt.added);
		}
		const pagesBefore = NODE_TIMES ? [await newestExecutionId(bench.rest, dt.pageId), await newestExecutionId(bench.rest, postgresExample.pageId)] : [];
		const dataTable = await measure(target, DATA_TABLE_RUN, dt.example, dt.added, reportedByTotals(dataTableTotals));
		await idle('after the Data Table run');
		const check = await resultsWrong(dt.recipients);
		const tableBytes = await dataTablesBytes(bench.rest);
		const postgresRun = await measure(target, POSTGRES_RUN, postgres, dt.added, reportedByTotals(postgresTotals));
		await idle('after the PostgreSQL run');
		const nodeTimes = NODE_TIMES
			? ([await pageNodeTimes(bench.rest, dt.pageId, pagesBefore[0]), await pageNodeTimes(bench.rest, postgresExample.pageId, pagesBefore[1])] as [Map<string, NodeTime>, Map<string, NodeTime>])
			: undefined;
		return { asked, rows: dt.added, refusal: dt.refusal, dataTable, postgres: postgresRun, idleMib, resultRows: check.rows, resultsWrong: check.wrong, tableBytes, nodeTimes };
	} finally {
		await bench.stop();
	}
}

const pg = await startPostgres(ensureQueueServices());
const db = pgClient(pg);
await db.connect();
await createRecipientsTable(db);
const results: SizeResult[] = [];
try {
	for (const asked of SIZES) {
		const r = await oneSize(asked, pg, db);
		results.push(r);
		const rss = r.idleMib.map(([when, value]) => [when, `${fmt(value, 0)} MiB`, '', '', '', '', '']);
		print(render(`Campaign from a Data Table beside PostgreSQL, ${fmt(r.rows, 0)} rows @${LATENCY} ms — ${machine()}`, HEAD, [
			...[r.dataTable, r.postgres].map(cells),
			[`Data Table rows read back, result columns against the service's books`, `${fmt(r.resultRows, 0)} rows`, '', '', '', '', `${r.resultsWrong} disagree`],
			[
				`Data Tables' size after the run (n8n's count against N8N_DATA_TABLES_MAX_SIZE_BYTES)`,
				`${fmt(r.tableBytes / 1e6, 1)} MB`,
				`${fmt(r.tableBytes / r.rows, 0)} bytes a row: the default ${fmt(DEFAULT_MAX_BYTES / 2 ** 20, 0)} MiB holds about ${fmt(Math.floor(DEFAULT_MAX_BYTES / (r.tableBytes / r.rows) / 1000) * 1000, 0)} rows`,
				'',
				'',
				'',
				'',
			],
			...rss.map(([when, value]) => [`idle RSS of n8n ${when}`, value, '', '', '', '', '']),
		]));
		if (r.nodeTimes) {
			const [dtTimes, pgTimes] = r.nodeTimes;
			const names = [...new Set([...dtTimes.keys(), ...pgTimes.keys()])];
			const ms = (t: Map<string, NodeTime>, name: string) => {
				const time = t.get(name);
				return time ? `${fmt(time.ms / r.rows, 3)} ms (${fmt(time.items, 0)} items out, ${fmt(time.ms / Math.max(1, time.items), 2)} ms each)` : '';
			};
			print(render(`Where a page's time goes, ${fmt(r.rows, 0)} rows: n8n's time of each node, summed over the pages, per row`, ['node', 'Data Table', 'PostgreSQL'], names.map((name) => [name, ms(dtTimes, name), ms(pgTimes, name)])));
		}
	}
} finally {
	await db.end();
	await pg.stop();
	await sandbox.close();
}

const goals: Row[] = [];
for (const r of results) {
	const n = fmt(r.rows, 0);
	if (r.rows < r.asked) goals.push(info(`rows the Data Table took of ${fmt(r.asked, 0)} (N8N_DATA_TABLES_MAX_SIZE_BYTES default)`, n, r.refusal));
	goals.push(atMost(`wall per row at ${n} rows, Data Table vs PostgreSQL (write-back included)`, perRow(r.dataTable), perRow(r.postgres), 1.5, 'ms', 3));
	goals.push(atMost(`requests to the service per row at ${n} rows, Data Table vs PostgreSQL`, requestsPerRow(r.dataTable), requestsPerRow(r.postgres), 1, 'req', 4));
}
if (results.length > 1) {
	const [small, large] = [results[0], results.at(-1)!];
	// The plateau: n8n's idle RSS once both examples have run (the warm-ups), before the measured runs.
	const plateau = (r: SizeResult) => `${fmt(r.idleMib[2][1], 0)} MiB at ${fmt(r.rows, 0)} rows`;
	goals.push(info(`n8n's plateau: idle RSS after both warm-ups (${WARM_ROWS} rows each)`, plateau(small), plateau(large)));
	goals.push(
		atMost(
			`peak RSS of n8n, Data Table, ${fmt(large.rows, 0)} rows vs ${fmt(small.rows, 0)} (after the warm-ups: the plateau)`,
			mib(large.dataTable.rss.peakKb),
			mib(small.dataTable.rss.peakKb),
			1.2,
			'MiB',
			0,
		),
	);
}
const wrong = results.filter((r) => !allRight(r.dataTable) || !allRight(r.postgres) || r.resultsWrong > 0 || r.resultRows !== r.rows);
goals.push({ measure: 'sizes with a row doubled, missing, not reported or with a result column the books contradict', value: `${wrong.length} of ${results.length}`, goal: '0', met: wrong.length === 0 });
print(table(`Issue 40's goals, side by side — ${machine()}`, goals));
print(conditionsTable('bench:campaign (from a Data Table)'));
if (wrong.length) {
	console.error(`FAILED: ${wrong.map((r) => `${r.rows} rows`).join(', ')}: a row doubled, missing or its result column wrong (tables above)`);
	process.exitCode = 1;
}
