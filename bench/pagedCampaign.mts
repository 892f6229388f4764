// What the benchmarks of the paged campaign examples share (campaignFromPostgres.mts,
// campaignFromDataTable.mts): one run of an example awaited through the executions list while
// the peak RSS of the n8n processes that may run it is watched (peakRss.mts), its requests the
// sandbox's, its doubles and missing rows the sandbox's books; the PostgreSQL example made ready
// in an n8n; and the table the figures are printed in.
import { setTimeout as sleep } from 'node:timers/promises';

import { fillRecipients, postgresExample } from '../real-n8n/campaignFromPostgres.mts';
import { postgresCredential } from '../real-n8n/fixtures.mts';
import type { Execution, N8nRest } from '../real-n8n/rest.mts';
import type { PgClient, Postgres } from '../real-n8n/services.mts';
import type { Sandbox } from '../sandbox/server.mts';
import { campaignBooks } from '../test/nodes/VoucherService/campaignBooks.mts';
import { createApiCredentials, runQuietly, runTimeoutMs, type Credentials, type InFlightProbe } from './harness.mts';
import { mib, watchPeakRss, type PeakRss } from './peakRss.mts';
import { fmt, say } from './report.mts';

/** Rows of the run that warms an n8n up before anything is measured in it. */
export const WARM_ROWS = 1000;

/** Where runs happen: a REST client, and the n8n processes that may run them. */
export interface Target {
	rest: N8nRest;
	processes: Array<{ name: string; pid: number }>;
	logTail(): string;
}

/** A saved campaign: its id, the node it starts from, its base Reference. */
export interface SavedCampaign {
	id: string;
	trigger: string;
	base: string;
}

/** What the run's own output says of its rows. */
export interface Reported {
	reported: number;
	bought: number;
	held: number;
	refusedOrFailed: number;
}

export interface Figures extends Reported {
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

/** What an example's Totals so far say after its last page, as Reported. */
export const reportedByTotals =
	(totals: (ex: Execution) => { rows: number; bought: number; held: number; refusedOrFailed: number }) =>
	(ex: Execution): Reported => {
		const { rows, bought, held, refusedOrFailed } = totals(ex);
		return { reported: rows, bought, held, refusedOrFailed };
	};

/** The id of a workflow's newest execution, 0 without one. */
export async function newestExecutionId(rest: N8nRest, workflowId: string): Promise<number> {
	return Number((await rest.listExecutions(workflowId))[0]?.id ?? 0);
}

/** A node's time summed over a campaign's pages, and the items it output. */
export interface NodeTime {
	ms: number;
	items: number;
}

/**
 * Where a page sub-workflow's time went in its executions after execution `afterId`: each
 * node's own time (n8n's executionTime) and output items summed over the pages, and the pages'
 * whole time. Read by id, as n8n numbers executions in order (its list pages only by cursor).
 */
export async function pageNodeTimes(rest: N8nRest, pageId: string, afterId: number): Promise<Map<string, NodeTime>> {
	const times = new Map<string, NodeTime>();
	const add = (name: string, ms: number, items: number) => {
		const t = times.get(name) ?? { ms: 0, items: 0 };
		times.set(name, { ms: t.ms + ms, items: t.items + items });
	};
	for (let id = afterId + 1; id <= (await newestExecutionId(rest, pageId)); id++) {
		const ex = (await rest.getExecution(String(id))) as Execution & { startedAt: string; stoppedAt: string; workflowId: string };
		if (ex.workflowId !== pageId) continue;
		add('(each page, start to stop)', Date.parse(ex.stoppedAt) - Date.parse(ex.startedAt), 1);
		for (const [name, runs] of Object.entries(ex.data.resultData.runData))
			for (const run of runs as Array<{ executionTime?: number; data?: { main?: Array<unknown[] | null> } }>)
				add(name, run.executionTime ?? 0, run.data?.main?.[0]?.length ?? 0);
	}
	return times;
}

export const perRow = (f: Figures) => f.wallMs / f.rows;
export const requestsPerRow = (f: Figures) => (f.reads + f.creates) / f.rows;
export const allRight = (f: Figures) =>
	f.doubled === 0 && f.missing === 0 && f.reported === f.rows && f.bought + f.held === f.rows && f.refusedOrFailed === 0;

/**
 * Measures runs against this sandbox, its request probe and its books. `mixedAmounts`: the
 * measured table's amounts (fillRecipients; 0, its default, changes them by the hundred).
 */
export function pagedCampaignRuns(sandbox: Sandbox, probe: InFlightProbe, mixedAmounts = 0) {
	const books = campaignBooks(sandbox);

	async function measure(target: Target, run: string, workflow: SavedCampaign, rows: number, report: (ex: Execution) => Reported): Promise<Figures> {
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
	 * Our credentials, the PostgreSQL example saved and its page published, a warm-up run over
	 * WARM_ROWS rows (then forgotten by the sandbox), and the table refilled with `rows` rows.
	 * `savePages`: see campaignExample's saveBoth.
	 */
	async function preparePostgresExample(target: Target, pg: Postgres, db: PgClient, filesDir: string, rows: number, savePages = false) {
		const creds: Credentials = await createApiCredentials(target.rest, sandbox);
		const postgres = await postgresCredential(target.rest, pg, 'Campaign table (bench)');
		const id = await postgresExample.saveBoth(target.rest, { postgres, voucherServiceApi: creds.ours }, filesDir, savePages);
		await db.query('TRUNCATE campaign_recipients');
		await fillRecipients(db, 1, WARM_ROWS, mixedAmounts);
		await runQuietly(target.rest, id, runTimeoutMs(WARM_ROWS), postgresExample.start);
		sandbox.reset();
		await db.query('TRUNCATE campaign_recipients');
		const t0 = Date.now();
		await fillRecipients(db, 1, rows, mixedAmounts);
		say(`table filled with ${rows} rows in ${fmt((Date.now() - t0) / 1000, 1)} s`);
		return { creds, example: { id, trigger: postgresExample.start, base: postgresExample.base } };
	}

	return { measure, preparePostgresExample };
}

export const HEAD = [
	'run',
	'wall',
	'wall per row',
	'requests per row (reads + creates)',
	'peak RSS (idle → peak)',
	'doubled / missing',
	'rows reported (bought / held / refused or failed)',
];

export const cells = (f: Figures) => [
	f.run,
	`${fmt(f.wallMs / 1000, 1)} s`,
	`${fmt(perRow(f), 3)} ms`,
	`${fmt(requestsPerRow(f), 4)} (${fmt(f.reads, 0)} + ${fmt(f.creates, 0)})`,
	`${f.process}: ${fmt(mib(f.rss.idleKb), 0)} → ${fmt(mib(f.rss.peakKb), 0)} MiB`,
	`${f.doubled} / ${f.missing}`,
	`${fmt(f.reported, 0)} (${fmt(f.bought, 0)} / ${fmt(f.held, 0)} / ${fmt(f.refusedOrFailed, 0)})`,
];
