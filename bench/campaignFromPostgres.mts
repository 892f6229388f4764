// Benchmark 1 from PostgreSQL (issue 33): examples/campaign-from-postgres as it is (pages of
// 1,000 IDs, one sub-workflow execution each, Row ID Column `id`) at several sizes, beside one
// execution with the whole sheet (the whole-sheet campaign of campaign.mts, no Row ID) where
// that fits, and the HTTP Request route per row.
//   BENCH_CAMPAIGN_SOURCE=postgres npm run bench:campaign
// Env: BENCH_CAMPAIGN_SIZES (default 10000,100000,1000000), BENCH_CAMPAIGN_WHOLE_MAX (largest
//      whole sheet, default 100000), BENCH_CAMPAIGN_DIY_N (HTTP Request route's rows, default
//      2000), BENCH_CAMPAIGN_QUEUE=1 (the example in queue mode too: the worker's peak RSS),
//      BENCH_LATENCY_MS (default 25), BENCH_RUN_TIMEOUT_S, BENCH_AMOUNTS (n amounts mixed in
//      every hundred of IDs, one product and template; default 0: product, template and amount
//      change from hundred to hundred, one order each).
//   Issue 41's mixed amounts: BENCH_AMOUNTS=3 BENCH_CAMPAIGN_SIZES=10000 BENCH_CAMPAIGN_WHOLE_MAX=0.
// Each size in a fresh n8n (and a fresh queue cluster): the example saved, its page published,
// a warm-up over 1,000 rows, then the table refilled with the size's rows; the example's first
// run, a re-run that buys nothing, then the whole sheet twice. Each run is awaited through the
// executions list while the peak RSS of the processes that may run it is watched (peakRss.mts);
// its requests are the sandbox's, its doubles and missing rows the sandbox's books.
import { campaignTotals, createRecipientsTable } from '../real-n8n/campaignFromPostgres.mts';
import { startQueueCluster } from '../real-n8n/queueCluster.mts';
import { nodeOutput, type Execution } from '../real-n8n/rest.mts';
import { ensureQueueServices, pgClient, startPostgres, type PgClient, type Postgres } from '../real-n8n/services.mts';
import {
	MEASURED,
	campaignWorkflow,
	diyWorkflow,
	packageTarball,
	runMeasured,
	runTimeoutMs,
	startBenchN8n,
	startBenchSandbox,
	type Credentials,
} from './harness.mts';
import { HEAD, allRight, cells, pagedCampaignRuns, reportedByTotals, perRow, requestsPerRow, type Figures, type Reported, type SavedCampaign, type Target } from './pagedCampaign.mts';
import { mib } from './peakRss.mts';
import { atMost, beginRun, conditionsTable, envInt, fmt, machine, print, render, say, table, type Row } from './report.mts';

const SIZES = (process.env.BENCH_CAMPAIGN_SIZES || '10000,100000,1000000').split(',').map(Number);
const WHOLE_MAX = envInt('BENCH_CAMPAIGN_WHOLE_MAX', 100_000);
const DIY_N = envInt('BENCH_CAMPAIGN_DIY_N', 2000);
const LATENCY = envInt('BENCH_LATENCY_MS', 25);
const QUEUE = envInt('BENCH_CAMPAIGN_QUEUE', 0) > 0;
const AMOUNTS = envInt('BENCH_AMOUNTS', 0);
/** Issue 33's goal with 100 recipients per order, on the first run and on a re-run. */
const REQUESTS_PER_ROW = 0.02;
/** Issue 41's goals with three amounts mixed in every block (BENCH_AMOUNTS=3). */
const MIXED_REQUESTS_PER_ROW: Record<string, number> = { 'first run': 0.025, 're-run': 0.012 };

await beginRun();
const { sandbox, probe } = await startBenchSandbox(LATENCY);
const { measure, preparePostgresExample } = pagedCampaignRuns(sandbox, probe, AMOUNTS);
const mixed = AMOUNTS > 0 ? `, ${AMOUNTS} amounts in every block` : '';

const pagedReport = reportedByTotals(campaignTotals);
const wholeReport = (ex: Execution): Reported => {
	const out = nodeOutput(ex, MEASURED);
	const held = out.filter((o) => o.alreadyExisted).length;
	const refusedOrFailed = out.filter((o) => o.error).length;
	return { reported: out.length, bought: out.length - held - refusedOrFailed, held, refusedOrFailed };
};

async function exampleTwice(target: Target, example: SavedCampaign, rows: number, mode: string) {
	return [
		await measure(target, `example, first run${mode}`, example, rows, pagedReport),
		await measure(target, `example, re-run${mode}`, example, rows, pagedReport),
	];
}

/** The HTTP Request route's node time per row, measured once in the first n8n. */
let diyPerRowMs: number | undefined;

async function inOneN8n(pg: Postgres, db: PgClient, rows: number): Promise<Figures[]> {
	const bench = await startBenchN8n();
	try {
		const target: Target = {
			rest: bench.rest,
			processes: [{ name: 'main', pid: bench.n8n.pid }],
			logTail: () => bench.n8n.logTail(30),
		};
		const { creds, example } = await preparePostgresExample(target, pg, db, bench.filesDir, rows);
		const figures = await exampleTwice(target, example, rows, '');
		if (rows <= WHOLE_MAX) figures.push(...(await wholeSheetTwice(target, creds, rows)));
		if (diyPerRowMs === undefined) {
			await runMeasured(bench.rest, diyWorkflow(100, 'bench-diy-warm', sandbox.url, creds), runTimeoutMs(100));
			const diy = await runMeasured(bench.rest, diyWorkflow(DIY_N, 'bench-diy', sandbox.url, creds), runTimeoutMs(DIY_N));
			diyPerRowMs = diy.nodeMs / DIY_N;
			say(`HTTP Request route: ${DIY_N} rows in ${fmt(diy.nodeMs / 1000, 1)} s`);
		}
		return figures;
	} finally {
		await bench.stop();
	}
}

async function wholeSheetTwice(target: Target, creds: Credentials, rows: number): Promise<Figures[]> {
	const base = `bench-whole-${rows}`;
	const { id } = await target.rest.createWorkflow(campaignWorkflow(rows, base, creds));
	const workflow = { id, trigger: 'Start', base };
	return [
		await measure(target, 'whole sheet, first run', workflow, rows, wholeReport),
		await measure(target, 'whole sheet, re-run', workflow, rows, wholeReport),
	];
}

async function inQueueMode(rows: number): Promise<Figures[]> {
	const cluster = await startQueueCluster({ tarball: await packageTarball() });
	const db = pgClient(cluster.postgres);
	try {
		await db.connect();
		await createRecipientsTable(db);
		const target: Target = {
			rest: cluster.rest,
			processes: cluster.workers.map((w, i) => ({ name: `worker ${i + 1}`, pid: w.pid })),
			logTail: () => cluster.workers.map((w) => w.logTail(15)).join('\n'),
		};
		const { example } = await preparePostgresExample(target, cluster.postgres, db, `${cluster.main.userFolder}/files`, rows);
		return await exampleTwice(target, example, rows, ', queue mode');
	} finally {
		await db.end().catch(() => {});
		await cluster.stop();
	}
}

const pg = await startPostgres(ensureQueueServices());
const db = pgClient(pg);
await db.connect();
await createRecipientsTable(db);
const bySize = new Map<number, Figures[]>();
try {
	for (const rows of SIZES) {
		const figures: Figures[] = [];
		const notRun: string[][] = [];
		try {
			figures.push(...(await inOneN8n(pg, db, rows)));
			if (rows > WHOLE_MAX) notRun.push(['whole sheet', 'not run', `one execution of all ${fmt(rows, 0)} rows does not fit n8n's default memory (BENCH_CAMPAIGN_WHOLE_MAX)`]);
			if (QUEUE) figures.push(...(await inQueueMode(rows)));
			bySize.set(rows, figures);
		} catch (error) {
			say(`${rows} rows failed: ${String(error)}`);
			notRun.push(['failed', 'not run', String(error).split('\n')[0]]);
		}
		// What was not run says why in its last cell.
		const pad = ([run, value, why]: string[]) => [run, value, ...Array(HEAD.length - 3).fill(''), why];
		print(render(`Campaign from PostgreSQL, ${fmt(rows, 0)} rows @${LATENCY} ms${mixed} — ${machine()}`, HEAD, [...figures.map(cells), ...notRun.map(pad)]));
	}
} finally {
	await db.end();
	await pg.stop();
	await sandbox.close();
}

const done = [...bySize.keys()];
if (done.length) {
	const of = (rows: number, run: string) => bySize.get(rows)!.find((f) => f.run === run);
	const [small, large] = [done[0], done.at(-1)!];
	const [smallRows, largeRows] = [fmt(small, 0), fmt(large, 0)];
	const goals: Row[] = [];
	for (const mode of QUEUE ? ['', ', queue mode'] : ['']) {
		const [s, l] = [of(small, `example, first run${mode}`)!, of(large, `example, first run${mode}`)!];
		goals.push(atMost(`peak RSS (${l.process}), ${largeRows} rows vs ${smallRows}, first run${mode}`, mib(l.rss.peakKb), mib(s.rss.peakKb), 1.5, 'MiB', 0));
		goals.push(atMost(`wall per row, ${largeRows} rows vs ${smallRows}${mode}`, perRow(l), perRow(s), 1.2, 'ms', 3));
		if (diyPerRowMs) goals.push(atMost(`wall per row at ${largeRows} rows vs the HTTP Request route's (${DIY_N} rows)${mode}`, perRow(l), diyPerRowMs, 0.05, 'ms', 3));
		for (const run of ['first run', 're-run']) {
			const f = of(large, `example, ${run}${mode}`)!;
			const x = requestsPerRow(f);
			const most = AMOUNTS === 3 ? MIXED_REQUESTS_PER_ROW[run] : REQUESTS_PER_ROW;
			const whose = AMOUNTS === 3 ? " (issue 41's goal)" : '';
			goals.push({ measure: `requests per row at ${largeRows} rows, ${run}${mode}${whose}`, value: fmt(x, 4), goal: `≤ ${most}`, met: x <= most });
		}
	}
	const runs = [...bySize.values()].flat();
	const wrong = runs.filter((f) => !allRight(f)).length;
	goals.push({ measure: 'runs with a row doubled, missing or not reported', value: `${wrong} of ${runs.length}`, goal: '0', met: wrong === 0 });
	print(table(`Issue 33's goals, side by side${mixed} — ${machine()}`, goals));
}
print(conditionsTable('bench:campaign (from PostgreSQL)'));
