// Benchmark 1: a campaign, "Create for Recipients → Recipients: From Input
// Items", against the DIY route of one HTTP Request per row.
//   npm run bench:campaign
// Env: BENCH_CAMPAIGN_N (recipients, default 10000), BENCH_CAMPAIGN_DIY_N (DIY
//      rows, default 2000; compared per row, so at 100,000 recipients run it at
//      10,000: its own run would take about 10 minutes), BENCH_LATENCY_MS (default 25),
//      BENCH_RUN_TIMEOUT_S (per run; default 600, or 60 ms per row if that is longer).
// Both run in the same n8n, one after the other, against the same sandbox.
// Then (unless BENCH_PROFILE=0) the campaign runs again in an n8n under
// --cpu-prof and the profile of the node's run is summarised.
// BENCH_CAMPAIGN_SOURCE=postgres runs examples/campaign-from-postgres instead (campaignFromPostgres.mts),
// BENCH_CAMPAIGN_SOURCE=datatable the Data Table example beside it (campaignFromDataTable.mts).
import { createRequire } from 'node:module';

import {
	campaignWorkflow,
	createApiCredentials,
	diyWorkflow,
	performanceToMonoUs,
	packageTarball,
	runMeasured,
	runTimeoutMs,
	type ServedRequest,
	startBenchN8n,
	startBenchSandbox,
} from './harness.mts';
import { withProfiledN8n } from './profile.mts';
import { atMost, beginRun, conditionsTable, envInt, fmt, info, machine, print, say, table } from './report.mts';

if (process.env.BENCH_CAMPAIGN_SOURCE === 'postgres') {
	await import('./campaignFromPostgres.mts');
	process.exit();
}
if (process.env.BENCH_CAMPAIGN_SOURCE === 'datatable') {
	await import('./campaignFromDataTable.mts');
	process.exit();
}

const N = envInt('BENCH_CAMPAIGN_N', 10_000);
const DIY_N = envInt('BENCH_CAMPAIGN_DIY_N', 2000);
const LATENCY = envInt('BENCH_LATENCY_MS', 25);
/** The node's defaults: 100 recipients per order, Maximum Concurrency (paced adaptively below it). */
const PER_ORDER = 100;

await beginRun();
// nodes/ imports its modules without extensions, which only the build resolves: the default
// Maximum Concurrency comes from dist/ (built here when stale).
await packageTarball();
const { DEFAULT_CONCURRENCY: CONCURRENCY } = createRequire(import.meta.url)('../dist/nodes/VoucherService/shared/concurrency.js') as {
	DEFAULT_CONCURRENCY: number;
};
const { sandbox, probe } = await startBenchSandbox(LATENCY);

/**
 * Discovery's share of a run, from the sandbox's request log: the campaign's Get Order
 * look-ups start after all rows are read, and the first create follows once discovery
 * and the matching are done. Without a create (a re-run), up to the last look-up.
 */
function discoveryWindow(requests: typeof sandbox.state.requests) {
	const lookUps = requests.filter((r) => r.method === 'GET' && /^\/v2\/orders\/bench-camp-\d+$/.test(r.path));
	const lastLookUp = lookUps.at(-1);
	const firstCreate = requests.find((r) => r.method === 'POST' && lastLookUp && r.seq > lastLookUp.seq);
	const end = firstCreate ?? lastLookUp;
	const ms = lookUps.length && end ? Date.parse(end.time) - Date.parse(lookUps[0].time) : 0;
	return { lookUps: lookUps.length, ms };
}

/**
 * The network part in phases, from the probe's spans: discovery's look-ups, the matching
 * between the last look-up's answer and the first create, and the creates. Discovery must
 * end before the first create (new orders are numbered after the highest found), so no
 * run can beat one round of look-ups plus ceil(creates ÷ Maximum Concurrency) rounds of creates.
 */
function networkPhases(served: ServedRequest[]) {
	const span = (rs: ServedRequest[]) => {
		const start = Math.min(...rs.map((r) => r.startMs));
		const finish = Math.max(...rs.map((r) => r.finishMs ?? r.startMs));
		const busy = rs.reduce((sum, r) => sum + ((r.finishMs ?? r.startMs) - r.startMs), 0);
		return { start, finish, ms: finish - start, count: rs.length, meanInFlight: busy / Math.max(1, finish - start), meanLatency: busy / Math.max(1, rs.length) };
	};
	const lookUps = span(served.filter((r) => r.method === 'GET'));
	const creates = span(served.filter((r) => r.method === 'POST'));
	return { lookUps, creates, matchingMs: creates.start - lookUps.finish, floorMs: (1 + Math.ceil(creates.count / CONCURRENCY)) * LATENCY };
}

const measure = async (rest: Parameters<typeof runMeasured>[0], label: string, wf: Parameters<typeof runMeasured>[1], rows: number) => {
	sandbox.reset();
	probe.reset();
	const r = await runMeasured(rest, wf, runTimeoutMs(rows));
	if (r.items !== rows) throw new Error(`${label}: ${r.items} items out of ${rows}`);
	const m = {
		...r,
		requests: probe.started,
		peak: probe.peak,
		windowMs: probe.windowMs,
		serviceBusyMs: probe.serviceBusyMs,
		networkMonoUs: [performanceToMonoUs(probe.firstStartMs), performanceToMonoUs(probe.lastFinishMs)] as const,
		phases: networkPhases(probe.served),
		orders: sandbox.state.orders.size,
	};
	say(`${label}: ${rows} rows in ${fmt(r.nodeMs, 0)} ms, ${m.requests} requests, peak ${m.peak} in flight`);
	return m;
};
const bench = await startBenchN8n();
try {
	const creds = await createApiCredentials(bench.rest, sandbox);
	const run = (label: string, wf: Parameters<typeof runMeasured>[1], rows: number) => measure(bench.rest, label, wf, rows);
	// JIT warm-up of both routes
	await run('warm-up campaign', campaignWorkflow(500, 'bench-camp-warm', creds), 500);
	await run('warm-up DIY', diyWorkflow(100, 'bench-diy-warm', sandbox.url, creds), 100);

	const ours = await run('campaign', campaignWorkflow(N, 'bench-camp', creds), N);
	const discovery = discoveryWindow(sandbox.state.requests);
	// The same sheet again: discovery reads all 100 orders, and nothing is bought.
	const logged = sandbox.state.requests.length;
	const rerun = await runMeasured(bench.rest, campaignWorkflow(N, 'bench-camp', creds), runTimeoutMs(N));
	const rerunRequests = sandbox.state.requests.slice(logged);
	const rerunDiscovery = discoveryWindow(rerunRequests);
	const rerunPosts = rerunRequests.filter((r) => r.method === 'POST').length;
	say(`re-run: ${N} rows in ${fmt(rerun.nodeMs, 0)} ms, ${rerunDiscovery.lookUps} look-ups, ${rerunPosts} creates`);
	const diy = await run('DIY', diyWorkflow(DIY_N, 'bench-diy', sandbox.url, creds), DIY_N);

	const oursPerRow = ours.nodeMs / N;
	const diyPerRow = diy.nodeMs / DIY_N;
	const model = (1.15 * ours.requests * LATENCY) / CONCURRENCY;
	print(
		table(`Benchmark 1: campaign of ${N} recipients @${LATENCY} ms vs DIY (${DIY_N} rows, per row) — ${machine()}`, [
			info(`ours: node time for ${N} recipients`, `${fmt(ours.nodeMs / 1000, 2)} s`, `${ours.requests} requests, peak ${ours.peak} in flight`),
			info(`DIY: node time for ${DIY_N} rows`, `${fmt(diy.nodeMs / 1000, 2)} s`, `${diy.requests} requests, peak ${diy.peak} in flight`),
			atMost('time per row, ours vs DIY', oursPerRow, diyPerRow, 0.05, 'ms/row', 3),
			atMost(
				`network part: first request → last answer vs 1.15 × ${ours.requests} req × ${LATENCY} ms ÷ ${CONCURRENCY}`,
				ours.windowMs,
				model,
				1,
				'ms',
				0,
			),
			{
				...atMost(`network part vs the same model at the fixed default before adaptive pacing (5)`, ours.windowMs, (1.15 * ours.requests * LATENCY) / 5, 1, 'ms', 0),
				goal: undefined,
				met: undefined,
			},
			info(
				'network part, phase 1: discovery look-ups, first sent → last answered',
				`${fmt(ours.phases.lookUps.ms, 0)} ms`,
				`${ours.phases.lookUps.count} look-ups, ${fmt(ours.phases.lookUps.meanInFlight, 1)} in flight on average, mean latency ${fmt(ours.phases.lookUps.meanLatency, 1)} ms`,
			),
			info('network part, phase 2: matching rows to vouchers (no request in flight)', `${fmt(ours.phases.matchingMs, 0)} ms`, 'last look-up answered → first create sent'),
			info(
				'network part, phase 3: creates, first sent → last answered',
				`${fmt(ours.phases.creates.ms, 0)} ms`,
				`${ours.phases.creates.count} creates, ${fmt(ours.phases.creates.meanInFlight, 1)} in flight on average, mean latency ${fmt(ours.phases.creates.meanLatency, 1)} ms`,
			),
			info(
				'the service (sandbox, on the same 2 cores) busy during the network part',
				`${fmt(ours.serviceBusyMs, 0)} ms`,
				`of ${fmt(ours.windowMs, 0)} ms (${fmt((100 * ours.serviceBusyMs) / ours.windowMs, 0)} %): its own work on ${ours.orders} orders of ${PER_ORDER} vouchers, beside the ${LATENCY} ms it waits per request`,
			),
			info(
				'network part, floor of any run that discovers before it buys',
				`${fmt(ours.phases.floorMs, 0)} ms`,
				`(1 round of look-ups + ${Math.ceil(ours.phases.creates.count / CONCURRENCY)} rounds of creates) × ${LATENCY} ms = ${fmt(ours.phases.floorMs / ((ours.requests * LATENCY) / CONCURRENCY), 2)} × the model`,
			),
			info('ours: rest of the node time (reading/validating rows, output)', `${fmt(ours.nodeMs - ours.windowMs, 0)} ms`, `${fmt(((ours.nodeMs - ours.windowMs) * 1000) / N, 1)} µs/row`),
			info('ours: requests in flight on average (requests × latency ÷ network window)', fmt((ours.requests * LATENCY) / ours.windowMs, 1), `peak ${ours.peak}; the pacing starts at 16 and grows per round of answers`),
			info('ours: orders placed', String(ours.orders), `${PER_ORDER} recipients per order (default), Maximum Concurrency ${CONCURRENCY} (default)`),
			atMost(
				`discovery of existing orders (${discovery.lookUps} look-ups; first look-up in → first create in) vs the campaign's node time`,
				discovery.ms,
				ours.nodeMs,
				0.1,
				'ms',
				0,
			),
			info(
				`re-run of the same ${N} rows: node time, nothing bought (${rerunPosts} creates)`,
				`${fmt(rerun.nodeMs / 1000, 2)} s`,
				`discovery ${rerunDiscovery.lookUps} look-ups in ${fmt(rerunDiscovery.ms, 0)} ms`,
			),
		]),
	);
} finally {
	await bench.stop();
}
if (envInt('BENCH_PROFILE', 1) > 0) {
	await withProfiledN8n(async ({ rest }) => {
		const creds = await createApiCredentials(rest, sandbox);
		await measure(rest, 'profiled warm-up campaign', campaignWorkflow(500, 'bench-prof-warm', creds), 500);
		const m = await measure(rest, 'profiled campaign', campaignWorkflow(N, 'bench-prof-camp', creds), N);
		const [networkStartUs, networkEndUs] = m.networkMonoUs;
		const { lookUps, creates, matchingMs } = m.phases;
		return [
			{ ...m, title: `campaign of ${N} recipients @${LATENCY} ms` },
			{ ...m, nodeMonoStartUs: networkStartUs, nodeMonoEndUs: networkEndUs, title: `campaign's network part only (first request → last answer, ${fmt(m.windowMs, 0)} ms)` },
			{
				...m,
				nodeMonoStartUs: performanceToMonoUs(lookUps.finish),
				nodeMonoEndUs: performanceToMonoUs(creates.start),
				title: `campaign's matching phase only (last look-up answered → first create sent, ${fmt(matchingMs, 0)} ms)`,
			},
		];
	});
}
await sandbox.close();
print(conditionsTable('bench:campaign'));
