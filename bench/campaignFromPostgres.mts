// Benchmark 1 from PostgreSQL (issue 33): examples/campaign-from-postgres as it is (pages of
// 1,000 IDs, one sub-workflow execution each, Row ID Column `id`) at several sizes, beside one
// execution with the whole sheet (the whole-sheet campaign of campaign.mts, no Row ID) where
// that fits, and the HTTP Request route per row.
//   BENCH_CAMPAIGN_SOURCE=postgres npm run bench:campaign
// Env: BENCH_CAMPAIGN_SIZES (default 10000,100000,1000000), BENCH_CAMPAIGN_WHOLE_MAX (largest
//      whole sheet, default 100000), BENCH_CAMPAIGN_DIY_N (HTTP Request route's rows, default
//      2000), BENCH_CAMPAIGN_QUEUE=1 (the example in queue mode too: the worker's peak RSS),
//      BENCH_LATENCY_MS (default 25), BENCH_RUN_TIMEOUT_S.
// Each size in a fresh n8n (and a fresh queue cluster): the example saved, its page published,
// a warm-up over 1,000 rows, then the table refilled with the size's rows; the example's first
// run, a re-run that buys nothing, then the whole sheet twice. Each run is awaited through the
// executions list while the peak RSS of the processes that may run it is watched (peakRss.mts);
// its requests are the sandbox's, its doubles and missing rows the sandbox's books.
import { setTimeout as sleep } from 'node:timers/promises';

import {
	campaignTotals,
	createRecipientsTable,
	fillRecipients,
	postgresExample,
	saveCampaignExample,
} from '../real-n8n/campaignFromPostgres.mts';
import { postgresCredential } from '../real-n8n/fixtures.mts';
import { startQueueCluster } from '../real-n8n/queueCluster.mts';
import { nodeOutput, type Execution, type N8nRest } from '../real-n8n/rest.mts';
import { ensureQueueServices, pgClient, startPostgres, type PgClient, type Postgres } from '../real-n8n/services.mts';
import { campaignBooks } from '../test/nodes/VoucherService/campaignBooks.mts';
import {
	MEASURED,
	campaignWorkflow,
	createApiCredentials,
	diyWorkflow,
	packageTarball,
	runMeasured,
	runQuietly,
	runTimeoutMs,
	startBenchN8n,
	startBenchSandbox,
	type Credentials,
} from './harness.mts';
import { mib, watchPeakRss, type PeakRss } from './peakRss.mts';
import { atMost, beginRun, conditionsTable, envInt, fmt, machine, print, render, say, table, type Row } from './report.mts';

const SIZES = (process.env.BENCH_CAMPAIGN_SIZES || '10000,100000,1000000').split(',').map(Number);
const WHOLE_MAX = envInt('BENCH_CAMPAIGN_WHOLE_MAX', 100_000);
const DIY_N = envInt('BENCH_CAMPAIGN_DIY_N', 2000);
const LATENCY = envInt('BENCH_LATENCY_MS', 25);
const QUEUE = envInt('BENCH_CAMPAIGN_QUEUE', 0) > 0;
const WARM_ROWS = 1000;
/** Issue 33's goal with 100 recipients per order, on the first run and on a re-run. */
const REQUESTS_PER_ROW = 0.02;

await beginRun();
const { sandbox, probe } = await startBenchSandbox(LATENCY);
const books = campaignBooks(sandbox);

/** Where runs happen: a REST client, and the n8n processes that may run them. */
interface Target {
	rest: N8nRest;
	processes: Array<{ name: string; pid: number }>;
	logTail(): string;
}

/** What the run's own output says of its rows. */
interface Reported {
	reported: number;
	bought: number;
	held: number;
	refusedOrFailed: number;
}

interface Figures extends Reported {
	run: string;
	rows: number;
	wallMs: number;
	/** GETs: look-ups, and the node's once-per-execution probe of how the service answers an unknown order. */
	reads: number;
	creates: number;
	rss: PeakRss;
	/** The process that ran it: the one whose RSS grew most. */
	process: string;
	doubled: number;
	missing: number;
}

const perRow = (f: Figures) => f.wallMs / f.rows;
const requestsPerRow = (f: Figures) => (f.reads + f.creates) / f.rows;
const allRight = (f: Figures) =>
	f.doubled === 0 && f.missing === 0 && f.reported === f.rows && f.bought + f.held === f.rows && f.refusedOrFailed === 0;

const pagedReport = (ex: Execution): Reported => {
	const { rows, bought, held, refusedOrFailed } = campaignTotals(ex);
	return { reported: rows, bought, held, refusedOrFailed };
};
const wholeReport = (ex: Execution): Reported => {
	const out = nodeOutput(ex, MEASURED);
	const held = out.filter((o) => o.alreadyExisted).length;
	const refusedOrFailed = out.filter((o) => o.error).length;
	return { reported: out.length, bought: out.length - held - refusedOrFailed, held, refusedOrFailed };
};

async function measure(
	target: Target,
	run: string,
	workflow: { id: string; trigger: string; base: string },
	rows: number,
	report: (ex: Execution) => Reported,
): Promise<Figures> {
	await sleep(3000); // the last run's garbage settles before the idle RSS
	probe.reset();
	const windows = target.processes.map((p) => watchPeakRss(p.pid));
	let executionId = '';
	let peaks: Array<PeakRss | undefined> = [];
	try {
		executionId = await runQuietly(target.rest, workflow.id, runTimeoutMs(rows), workflow.trigger);
	} finally {
		peaks = windows.map((w) => w.close());
	}
	if (peaks.some((p) => !p)) throw new Error(`${run}: an n8n process exited:\n${target.logTail()}`);
	const growth = (p: PeakRss | undefined) => p!.peakKb - p!.idleKb;
	const ran = peaks.reduce((best, p, i) => (growth(p) > growth(peaks[best]) ? i : best), 0);
	// Read back once the peak is taken: n8n serialising the execution for us is not measured.
	const ex = (await target.rest.getExecution(executionId)) as Execution & { startedAt: string; stoppedAt: string };
	if (ex.status !== 'success')
		throw new Error(`${run}: execution ${executionId} ${ex.status}: ${JSON.stringify(ex.data.resultData.error ?? {}).slice(0, 600)}`);
	const held = [...books.vouchersPerRecipient(workflow.base).values()];
	const f: Figures = {
		run,
		rows,
		wallMs: Date.parse(ex.stoppedAt) - Date.parse(ex.startedAt),
		reads: probe.served.filter((r) => r.method === 'GET').length,
		creates: probe.served.filter((r) => r.method === 'POST').length,
		rss: peaks[ran]!,
		process: target.processes[ran].name,
		doubled: held.filter((values) => values.length > 1).length,
		missing: rows - held.length,
		...report(ex),
	};
	say(
		`${run}, ${rows} rows: ${fmt(f.wallMs / 1000, 1)} s, ${f.reads} reads + ${f.creates} creates, ` +
			`${f.process} ${fmt(mib(f.rss.idleKb), 0)} → ${fmt(mib(f.rss.peakKb), 0)} MiB, ${f.doubled} doubled, ${f.missing} missing`,
	);
	return f;
}

/**
 * Our credentials, the example saved and its page published, a warm-up run over WARM_ROWS
 * rows (then forgotten by the sandbox), and the table refilled with `rows` rows.
 */
async function prepareExample(target: Target, pg: Postgres, db: PgClient, filesDir: string, rows: number) {
	const creds = await createApiCredentials(target.rest, sandbox);
	const postgres = await postgresCredential(target.rest, pg, 'Campaign table (bench)');
	const id = await saveCampaignExample(target.rest, { postgres, voucherServiceApi: creds.ours }, filesDir);
	await db.query('TRUNCATE campaign_recipients');
	await fillRecipients(db, 1, WARM_ROWS);
	await runQuietly(target.rest, id, runTimeoutMs(WARM_ROWS), postgresExample.start);
	sandbox.reset();
	await db.query('TRUNCATE campaign_recipients');
	const t0 = Date.now();
	await fillRecipients(db, 1, rows);
	say(`table filled with ${rows} rows in ${fmt((Date.now() - t0) / 1000, 1)} s`);
	return { creds, example: { id, trigger: postgresExample.start, base: postgresExample.base } };
}

async function exampleTwice(target: Target, example: { id: string; trigger: string; base: string }, rows: number, mode: string) {
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
		const { creds, example } = await prepareExample(target, pg, db, bench.filesDir, rows);
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
		const { example } = await prepareExample(target, cluster.postgres, db, `${cluster.main.userFolder}/files`, rows);
		return await exampleTwice(target, example, rows, ', queue mode');
	} finally {
		await db.end().catch(() => {});
		await cluster.stop();
	}
}

const cells = (f: Figures) => [
	f.run,
	`${fmt(f.wallMs / 1000, 1)} s`,
	`${fmt(perRow(f), 3)} ms`,
	`${fmt(requestsPerRow(f), 4)} (${fmt(f.reads, 0)} + ${fmt(f.creates, 0)})`,
	`${f.process}: ${fmt(mib(f.rss.idleKb), 0)} → ${fmt(mib(f.rss.peakKb), 0)} MiB`,
	`${f.doubled} / ${f.missing}`,
	`${fmt(f.reported, 0)} (${fmt(f.bought, 0)} / ${fmt(f.held, 0)} / ${fmt(f.refusedOrFailed, 0)})`,
];
const HEAD = [
	'run',
	'wall',
	'wall per row',
	'requests per row (reads + creates)',
	'peak RSS (idle → peak)',
	'doubled / missing',
	'rows reported (bought / held / refused or failed)',
];

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
		print(render(`Campaign from PostgreSQL, ${fmt(rows, 0)} rows @${LATENCY} ms — ${machine()}`, HEAD, [...figures.map(cells), ...notRun.map(pad)]));
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
			goals.push({ measure: `requests per row at ${largeRows} rows, ${run}${mode}`, value: fmt(x, 4), goal: `≤ ${REQUESTS_PER_ROW}`, met: x <= REQUESTS_PER_ROW });
		}
	}
	const runs = [...bySize.values()].flat();
	const wrong = runs.filter((f) => !allRight(f)).length;
	goals.push({ measure: 'runs with a row doubled, missing or not reported', value: `${wrong} of ${runs.length}`, goal: '0', met: wrong === 0 });
	print(table(`Issue 33's goals, side by side — ${machine()}`, goals));
}
print(conditionsTable('bench:campaign (from PostgreSQL)'));
