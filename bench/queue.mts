// Benchmark 3e: events in n8n's queue mode (issue #20 item 3). The cluster the
// queue suite runs (real-n8n/queueCluster.mts: PostgreSQL 17, Redis, one main process,
// two workers at n8n's default concurrency of 10, two webhook processes), two
// active workflows, each trigger → NoOp ("Received"):
// - ours: the Voucher Service Trigger with its run-once election (defaults);
// - the Webhook node route: n8n's plain Webhook node, no run-once guarantee;
// - ours without the election (Suppress Duplicates off): every copy runs, as on the
//   Webhook node route, through the same community-trigger path as ours, so it splits
//   the difference into n8n's share for a community trigger and the election's.
// The same N distinct signed events go to each route in turn (the Webhook node
// route, ours without the election, ours), every event twice, one copy straight to each webhook process,
// the two copies side by side so that they are in flight together,
// BENCH_QUEUE_CONCURRENCY deliveries in flight in all.
//   npm run bench:queue
// Env: BENCH_QUEUE_EVENTS (distinct events, default 500), BENCH_QUEUE_CONCURRENCY
//      (deliveries in flight, default 16), BENCH_QUEUE_TIMEOUT_S (how long to wait
//      for the executions of one route, default 900), BENCH_QUEUE_NO_ELECTION=0 leaves
//      out the route without the election.
// Figures per route, from n8n's own database once its executions have all ended:
// - the time from the first delivery until every event had run (ours: once, in the
//   execution whose "Received" ran; the Webhook node route: all 2 × N executions),
//   and until the last execution ended (ours: the election's losers too);
// - exactly-once: which events ran not once (ours) or not twice (the Webhook node);
// - executions per second per worker (from each worker's log: which executions it ran);
// - answer time at the webhook processes, p50 and p99, both and each;
// - where the time goes: the wait in the queue (createdAt → startedAt), the execution
//   (startedAt → stoppedAt), the trigger node's own time (ours: the election's hold),
//   and the floor the workers' slots put under it; and the CPU time each part of the
//   cluster used from the first delivery until the route's executions had all ended.
// It all runs twice, side by side in one run (a fresh cluster each): under n8n's defaults
// and with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true on the webhook processes
// (BENCH_SETTINGS picks one). It also counts the run-once election's fallbacks in the
// workers' logs (UNSETTLED_ELECTION) and failed executions.
// Goals: ours ≤ 1.5 × the Webhook node route's time (issue #20, defaults); with the lazy
// setting ≤ 1.3 × (issue #27); 0 fallbacks and every event run exactly once.
import { readFileSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';

import { webhookCredential } from '../real-n8n/fixtures.mts';
import { QUEUE_ROLES, startQueueCluster, type QueueCluster } from '../real-n8n/queueCluster.mts';
import { parseFlatted } from '../real-n8n/rest.mts';
import { pgClient, type PgClient } from '../real-n8n/services.mts';
import { packageTarball } from './harness.mts';
import { fireAt, type SpreadResult } from './load.mts';
import { deliveryPlan, listSome, tallyRuns, type RunTally } from './queuePlan.mts';
import { atMost, beginRun, conditionsTable, envInt, fmt, info, machine, percentile, print, say, table, type Row } from './report.mts';
import { SETTINGS, TRIGGER_SECRET, activeTriggerWorkflow, event, plainWebhookNode, signed, voucherTriggerNode, type Setting } from './triggerWorkflows.mts';
import { electionFallbacks } from './triggerFlood.mts';

const EVENTS = envInt('BENCH_QUEUE_EVENTS', 500);
const CONCURRENCY = envInt('BENCH_QUEUE_CONCURRENCY', 16);
const TIMEOUT_MS = envInt('BENCH_QUEUE_TIMEOUT_S', 900) * 1000;
const WARM_UP_EVENTS = 10;
const OURS_HOOK = 'b3c4d5e6-0000-4000-8000-000000queue';
const NO_ELECTION_HOOK = 'b3c4d5e6-0000-4000-8000-0queuenoelect';
const WITH_NO_ELECTION = envInt('BENCH_QUEUE_NO_ELECTION', 1) > 0;
const PLAIN_HOOK = 'b3c4d5e6-0000-4000-8000-00queueplain';
const PLAIN_PATH = 'bench-queue-plain-webhook';
const TRIGGER_NAME = 'Voucher Service Trigger';
const PLAIN_NAME = 'Webhook';
const AFTER_TRIGGER = 'Received';

type RouteName = 'plain' | 'noElection' | 'ours';
interface Route {
	name: RouteName;
	label: string;
	workflowId: string;
	/** One URL per webhook process. */
	urls: string[];
	/** The trigger node's name in the workflow. */
	triggerNode: string;
	/** How often each event must run: the Webhook node runs every copy. */
	runsPerEvent: number;
	/** The event's id in an item that reached "Received". */
	eventOf: (json: Record<string, unknown>) => string;
}

interface ExecutionRow {
	id: number;
	status: string;
	createdMs: number;
	startedMs: number;
	stoppedMs: number;
	/** The trigger node's own time (n8n's executionTime), ms. */
	triggerMs: number;
	/** Ids of the events whose items reached "Received" in this execution. */
	ran: string[];
}

interface Phase {
	route: Route;
	load: SpreadResult;
	startedEpochMs: number;
	executions: ExecutionRow[];
	tally: RunTally;
	/** First delivery → the last execution in which an event ran. */
	allRanSeconds: number;
	/** First delivery → the last execution of the route ended. */
	allEndedSeconds: number;
	failed: number;
	/** Executions per worker, in the order of cluster.workers. */
	perWorker: number[];
	/** CPU seconds by part of the cluster, first delivery → all executions ended. */
	cpu: Record<string, number>;
	/** Wall seconds over which `cpu` was taken. */
	cpuWallSeconds: number;
}

const idOfEvent = (body: string) => (JSON.parse(body) as { data: { orderNumber: string } }).data.orderNumber;

/** Our trigger answers an ignored copy with `ignored`; a started execution gets n8n's "Workflow was started". */
const classify = (status: number, body: string) => (status !== 200 ? `HTTP ${status}` : body.includes('"ignored"') ? 'ignored' : 'started');

async function maxExecutionId(db: PgClient): Promise<number> {
	const { rows } = await db.query('SELECT coalesce(max(id), 0)::int AS id FROM execution_entity');
	return Number(rows[0].id);
}

/** Waits (bounded) until the workflow has `expected` executions after `afterId`, none of them still queued or running. */
async function settle(db: PgClient, workflowId: string, afterId: number, expected: number, timeoutMs = TIMEOUT_MS): Promise<{ total: number; unfinished: number }> {
	const deadline = Date.now() + timeoutMs;
	const count = async () => {
		const { rows } = await db.query(
			`SELECT count(*)::int AS total, count(*) FILTER (WHERE status IN ('new', 'running', 'waiting'))::int AS unfinished
			 FROM execution_entity WHERE "workflowId" = $1 AND id > $2`,
			[workflowId, afterId],
		);
		return { total: Number(rows[0].total), unfinished: Number(rows[0].unfinished) };
	};
	let c = await count();
	while ((c.total < expected || c.unfinished > 0) && Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 250));
		c = await count();
	}
	if (c.total < expected || c.unfinished > 0) say(`gave up waiting: ${c.total} of ${expected} executions, ${c.unfinished} unfinished`);
	return c;
}

type RunData = Record<string, Array<{ executionTime?: number; data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>>;

/** The route's executions after `afterId`, with what ran in each, from n8n's database. */
async function executionsOf(db: PgClient, route: Route, afterId: number): Promise<ExecutionRow[]> {
	const { rows } = await db.query(
		`SELECT e.id, e.status, e."createdAt", e."startedAt", e."stoppedAt", d.data
		 FROM execution_entity e JOIN execution_data d ON d."executionId" = e.id
		 WHERE e."workflowId" = $1 AND e.id > $2 ORDER BY e.id`,
		[route.workflowId, afterId],
	);
	return rows.map((row) => {
		const data = parseFlatted(String(row.data)) as { resultData: { runData: RunData } };
		const runData = data.resultData?.runData ?? {};
		const received = runData[AFTER_TRIGGER]?.[0]?.data?.main?.[0] ?? [];
		const ms = (v: unknown) => (v instanceof Date ? v.getTime() : v ? Date.parse(String(v)) : NaN);
		return {
			id: Number(row.id),
			status: String(row.status),
			createdMs: ms(row.createdAt),
			startedMs: ms(row.startedAt),
			stoppedMs: ms(row.stoppedAt),
			triggerMs: runData[route.triggerNode]?.[0]?.executionTime ?? NaN,
			ran: received.map((item) => route.eventOf(item.json)),
		};
	});
}

/** Which worker ran each execution, from the workers' own log lines ("Worker finished execution 12 (job 3)"). */
function executionsPerWorker(cluster: QueueCluster, ids: Set<number>): number[] {
	return cluster.workers.map((w) => {
		const finished = [...readFileSync(w.logFile, 'utf8').matchAll(/Worker finished execution (\d+)/g)].map((m) => Number(m[1]));
		return new Set(finished.filter((id) => ids.has(id))).size;
	});
}

/** The concurrency each worker reported at start-up (" * Concurrency: 10"). */
function workerConcurrency(cluster: QueueCluster): number[] {
	return cluster.workers.map((w) => Number(/Concurrency: (\d+)/.exec(readFileSync(w.logFile, 'utf8'))?.[1] ?? NaN));
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS = 100;

/**
 * CPU time (user + system) used so far, in seconds, by each part of the cluster: every
 * process in an n8n process's group (it leads its group; its task runner is in it),
 * PostgreSQL's postmaster and its backends, Redis, and this process (the load client).
 */
function cpuSeconds(cluster: QueueCluster): Record<string, number> {
	const procs = readdirSync('/proc')
		.filter((d) => /^\d+$/.test(d))
		.flatMap((d) => {
			try {
				const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
				const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
				return [{ pid: Number(d), ppid: Number(f[1]), pgrp: Number(f[2]), ticks: Number(f[11]) + Number(f[12]) }];
			} catch {
				return []; // gone meanwhile
			}
		});
	const sum = (keep: (p: (typeof procs)[number]) => boolean) => procs.filter(keep).reduce((t, p) => t + p.ticks, 0) / TICKS;
	const group = (pid: number) => sum((p) => p.pgrp === pid);
	const postmaster = Number(readFileSync(`${cluster.postgres.dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
	const own = process.cpuUsage();
	return {
		'webhook processes': cluster.webhooks.reduce((t, w) => t + group(w.pid), 0),
		workers: cluster.workers.reduce((t, w) => t + group(w.pid), 0),
		main: group(cluster.main.pid),
		PostgreSQL: sum((p) => p.pid === postmaster || p.ppid === postmaster),
		Redis: sum((p) => p.pid === cluster.redis.pid),
		'load client': (own.user + own.system) / 1e6,
	};
}

async function deliver(db: PgClient, cluster: QueueCluster, route: Route, bodies: string[], concurrency: number): Promise<Phase> {
	const plan = deliveryPlan(bodies.length, route.urls.length);
	const afterId = await maxExecutionId(db);
	const cpuBefore = cpuSeconds(cluster);
	const startedEpochMs = Date.now();
	const load = await fireAt(route.urls, concurrency, plan.length, (i) => ({ ...signed(bodies[plan[i].event]), target: plan[i].target }), classify);
	const started = load.answers.started ?? 0;
	say(`${route.name}: ${plan.length} deliveries in ${fmt(load.seconds, 2)} s, answers ${JSON.stringify(load.answers)}, p50 ${fmt(load.p50)} ms, p99 ${fmt(load.p99)} ms; waiting for ${started} executions`);
	await settle(db, route.workflowId, afterId, started);
	const cpuAfter = cpuSeconds(cluster);
	const cpuWallSeconds = (Date.now() - startedEpochMs) / 1000;
	const cpu = Object.fromEntries(Object.entries(cpuAfter).map(([k, v]) => [k, v - cpuBefore[k]]));
	const executions = await executionsOf(db, route, afterId);
	const ran = executions.flatMap((e) => e.ran);
	const lastRan = Math.max(...executions.filter((e) => e.ran.length > 0).map((e) => e.stoppedMs));
	const lastEnded = Math.max(...executions.map((e) => e.stoppedMs));
	return {
		route,
		load,
		startedEpochMs,
		executions,
		tally: tallyRuns(bodies.map(idOfEvent), ran, route.runsPerEvent),
		allRanSeconds: (lastRan - startedEpochMs) / 1000,
		allEndedSeconds: (lastEnded - startedEpochMs) / 1000,
		failed: executions.filter((e) => e.status !== 'success').length,
		perWorker: executionsPerWorker(cluster, new Set(executions.map((e) => e.id))),
		cpu,
		cpuWallSeconds,
	};
}

const stats = (values: number[]) => {
	const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
	const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
	return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean, sum: mean * sorted.length };
};
const spread = (s: ReturnType<typeof stats>) => `p50 ${fmt(s.p50, 0)} ms, p99 ${fmt(s.p99, 0)} ms, mean ${fmt(s.mean, 0)} ms`;

function routeRows(p: Phase, slots: number): Row[] {
	const { route, load, tally } = p;
	const name = route.label;
	const once = route.runsPerEvent === 1 ? 'once' : `${route.runsPerEvent} times`;
	const workers = p.perWorker.map((n, i) => `worker ${i + 1}: ${n} = ${fmt(n / p.allEndedSeconds)}/s`).join(', ');
	return [
		info(`${name}: deliveries, answers`, `${load.count} in ${fmt(load.seconds, 2)} s`, `statuses ${JSON.stringify(load.statuses)}, answers ${JSON.stringify(load.answers)}`),
		info(`${name}: executions`, `${p.executions.length}`, `${p.failed} not successful`),
		info(`${name}: time until every event had run ${once}`, `${fmt(p.allRanSeconds, 2)} s`, 'first delivery → the last execution in which an event reached Received ended'),
		info(`${name}: time until the last execution ended`, `${fmt(p.allEndedSeconds, 2)} s`),
		info(`${name}: events that ran exactly ${once}`, `${tally.exact} of ${EVENTS}`, `missing ${listSome(tally.missing)}; more often ${listSome(tally.over)}; less often ${listSome(tally.under)}; not sent ${listSome(tally.unknown)}`),
		info(`${name}: executions per second per worker`, `${fmt(p.executions.length / p.allEndedSeconds / p.perWorker.length)}/s`, `${workers} (first delivery → last execution ended)`),
		info(`${name}: answer time at the webhook processes, p50 / p99`, `${fmt(load.p50)} / ${fmt(load.p99)} ms`, load.byTarget.map((t, i) => `webhook ${i + 1}: ${t.count}, p50 ${fmt(t.p50)} ms, p99 ${fmt(t.p99)} ms`).join('; ')),
		info(`${name}: wait in the queue (created → started)`, spread(stats(p.executions.map((e) => e.startedMs - e.createdMs)))),
		info(`${name}: execution (started → stopped)`, spread(stats(p.executions.map((e) => e.stoppedMs - e.startedMs)))),
		info(`${name}: the trigger node's own time${route.name === 'ours' ? ' (the election)' : ''}`, spread(stats(p.executions.map((e) => e.triggerMs)))),
		info(
			`${name}: the workers' slots' floor`,
			`${fmt(stats(p.executions.map((e) => e.stoppedMs - e.startedMs)).sum / slots / 1000, 2)} s`,
			`the executions' time ÷ ${slots} slots, if every slot were busy all along`,
		),
		info(
			`${name}: CPU time by part, first delivery → executions all ended (${fmt(p.cpuWallSeconds, 1)} s × ${cpus().length} CPUs = ${fmt(p.cpuWallSeconds * cpus().length, 1)} CPU s)`,
			`${fmt(Object.values(p.cpu).reduce((a, b) => a + b, 0), 1)} CPU s`,
			Object.entries(p.cpu)
				.map(([part, sec]) => `${part} ${fmt(sec, 1)} s`)
				.join(', '),
		),
	];
}

async function runSetting(setting: Setting): Promise<Row[]> {
say(`--- queue cluster with ${setting.name} on the webhook processes: ${JSON.stringify(setting.env)}`);
const cluster = await startQueueCluster({ tarball: await packageTarball(), webhookEnv: setting.env });
const db = pgClient(cluster.postgres);
await db.connect();
try {
	const { rest } = cluster;
	const credential = await webhookCredential(rest, 'Voucher webhooks (bench queue)', TRIGGER_SECRET);
	const hooks = cluster.webhooks.map((w) => w.url);
	const routes: Record<RouteName, Route> = {
		plain: {
			name: 'plain',
			label: 'Webhook node route',
			workflowId: await activeTriggerWorkflow(cluster, 'bench queue plain webhook', plainWebhookNode(PLAIN_HOOK, PLAIN_PATH)),
			urls: hooks.map((h) => `${h}/webhook/${PLAIN_PATH}`),
			triggerNode: PLAIN_NAME,
			runsPerEvent: 2,
			eventOf: (json) => String((json.body as { data: { orderNumber: string } }).data.orderNumber),
		},
		noElection: {
			name: 'noElection',
			label: 'ours without the election',
			workflowId: WITH_NO_ELECTION ? await activeTriggerWorkflow(cluster, 'bench queue voucher trigger without election', voucherTriggerNode(NO_ELECTION_HOOK, credential, { suppressDuplicates: false })) : '',
			urls: hooks.map((h) => `${h}/webhook/${NO_ELECTION_HOOK}/webhook`),
			triggerNode: TRIGGER_NAME,
			runsPerEvent: 2,
			eventOf: (json) => String((json.data as { orderNumber: string }).orderNumber),
		},
		ours: {
			name: 'ours',
			label: 'ours',
			workflowId: await activeTriggerWorkflow(cluster, 'bench queue voucher trigger', voucherTriggerNode(OURS_HOOK, credential)),
			urls: hooks.map((h) => `${h}/webhook/${OURS_HOOK}/webhook`),
			triggerNode: TRIGGER_NAME,
			runsPerEvent: 1,
			eventOf: (json) => String((json.data as { orderNumber: string }).orderNumber),
		},
	};
	const used = Object.values(routes).filter((r) => r.workflowId !== '');
	for (const route of used) for (const url of route.urls) await rest.waitForWebhook(url, 60_000);
	const concurrency = workerConcurrency(cluster);
	const slots = concurrency.reduce((a, b) => a + b, 0);
	say(`workers' concurrency ${concurrency.join(', ')}; warming up`);
	for (const route of used) {
		const warm = Array.from({ length: WARM_UP_EVENTS }, () => event());
		await deliver(db, cluster, route, warm, 4);
	}
	await new Promise((r) => setTimeout(r, 2000));

	const bodies = Array.from({ length: EVENTS }, () => event());
	const plain = await deliver(db, cluster, routes.plain, bodies, CONCURRENCY);
	await new Promise((r) => setTimeout(r, 2000));
	const noElection = WITH_NO_ELECTION ? await deliver(db, cluster, routes.noElection, bodies, CONCURRENCY) : undefined;
	if (noElection) await new Promise((r) => setTimeout(r, 2000));
	const ours = await deliver(db, cluster, routes.ours, bodies, CONCURRENCY);

	const rows: Row[] = [
		info('cluster', `${QUEUE_ROLES.webhook.count} webhook processes, ${QUEUE_ROLES.worker.count} workers`, `worker concurrency ${concurrency.join(' / ')} (n8n's default); PostgreSQL ${cluster.postgres.version}, Redis`),
		info('deliveries', `${EVENTS} events × 2 to each route`, `one copy to each webhook process, side by side; ${CONCURRENCY} in flight; in turn: ${used.map((r) => r.label).join(', ')}`),
		...routeRows(plain, slots),
		...(noElection ? routeRows(noElection, slots) : []),
		...routeRows(ours, slots),
		atMost('time until every event had run: ours (exactly once) vs the Webhook node route (every copy, no run-once guarantee)', ours.allRanSeconds, plain.allRanSeconds, 1.5, 's', 2),
		{ ...atMost('answer time p99 at the webhook processes, ours vs the Webhook node route', ours.load.p99, plain.load.p99, 1, 'ms'), goal: undefined, met: undefined },
		...(noElection
			? [
					{ ...atMost("where it goes: time until every copy had run, ours without the election vs the Webhook node route (n8n's share for a community trigger)", noElection.allRanSeconds, plain.allRanSeconds, 1, 's', 2), goal: undefined, met: undefined },
					{ ...atMost("where it goes: time until every event had run, ours vs ours without the election (the election's share)", ours.allRanSeconds, noElection.allRanSeconds, 1, 's', 2), goal: undefined, met: undefined },
					{ ...atMost('answer time p99 at the webhook processes, ours without the election vs the Webhook node route', noElection.load.p99, plain.load.p99, 1, 'ms'), goal: undefined, met: undefined },
				]
			: []),
		info(
			'exactly once (ours)',
			ours.tally.exact === EVENTS && ours.tally.unknown.length === 0 && ours.failed === 0 ? 'yes' : 'NO',
			`duplicates ${listSome(ours.tally.over)}; missing ${listSome(ours.tally.missing)}; failed executions ${ours.failed}`,
		),
	];
	const fallbacks = cluster.workers.reduce((n, w) => n + electionFallbacks(w.logFile), 0);
	const exactlyOnce = ours.tally.exact === EVENTS && ours.tally.unknown.length === 0 && ours.failed === 0;
	rows.push({ ...info('run-once election fallbacks (workers\' logs)', String(fallbacks)), goal: '0', met: fallbacks === 0 });
	print(table(`Benchmark 3e (${setting.name}): ${EVENTS} events, each delivered twice over two webhook processes, in queue mode — ${machine()}`, rows));
	const limit = setting.name === 'lazy' ? 1.3 : 1.5;
	return [
		atMost(`[${setting.name}] time until every event had run once: ours vs the Webhook node route (issue #${setting.name === 'lazy' ? 27 : 20})`, ours.allRanSeconds, plain.allRanSeconds, limit, 's', 2),
		{ ...info(`[${setting.name}] every event exactly once, 0 election fallbacks`, exactlyOnce && fallbacks === 0 ? 'yes' : 'NO', `fallbacks ${fallbacks}, failed ${ours.failed}, duplicates ${listSome(ours.tally.over)}, missing ${listSome(ours.tally.missing)}`), goal: 'yes', met: exactlyOnce && fallbacks === 0 },
		{ ...info(`[${setting.name}] answer time p99 at the webhook processes: ours / Webhook node route`, `${fmt(ours.load.p99)} / ${fmt(plain.load.p99)} ms`) },
	];
} finally {
	await db.end().catch(() => {});
	await cluster.stop();
}
}
await beginRun();
const summary: Row[] = [];
for (const setting of SETTINGS) summary.push(...(await runSetting(setting)));
print(table(`Issue #27's queue-mode goals, side by side — ${machine()}`, summary));
print(conditionsTable('bench:queue'));
