// Benchmark 2: download orders, one request per row, ours against the DIY route.
//   npm run bench:orders
// Env: BENCH_ORDERS_N (rows, default 2000), BENCH_LATENCY_MS (default 25),
//      BENCH_ORDERS_HIGH_CONCURRENCY (default 16), BENCH_PROFILE=0 to skip the profile.
// One n8n runs every timed variant side by side: the DIY route (HTTP Request
// node v4.2, Basic auth, JSON body from an expression), and our Order → Create
// (reference/amount from expressions) at the default concurrency 5 and at 16,
// first at the injected latency, then at 0 ms for the per-request CPU cost.
// A second n8n, started with --cpu-prof, runs both 0 ms variants again and its
// profile is summarised over exactly the measured node's run.
import {
	createApiCredentials,
	diyWorkflow,
	ordersWorkflow,
	runMeasured,
	startBenchN8n,
	startBenchSandbox,
	type RunResult,
} from './instance.mts';
import { withProfiledN8n, type ProfiledRun } from './profile.mts';
import { atMost, envInt, fmt, info, machine, print, say, table, type Row } from './report.mts';

const N = envInt('BENCH_ORDERS_N', 2000);
const LATENCY = envInt('BENCH_LATENCY_MS', 25);
const HIGH = envInt('BENCH_ORDERS_HIGH_CONCURRENCY', 16);
const PROFILE = envInt('BENCH_PROFILE', 1) > 0;
const WARMUP = Math.min(100, N);

type Variant = { label: string; build: (rows: number, prefix: string) => Parameters<typeof runMeasured>[1] };

interface Measured extends RunResult {
	label: string;
	requests: number;
	peak: number;
	networkWindowMs: number;
}

async function main(): Promise<void> {
	const { sandbox, probe } = await startBenchSandbox(LATENCY);
	let run = 0;
	const variantsFor = (creds: Awaited<ReturnType<typeof createApiCredentials>>): Record<string, Variant> => ({
		diy: { label: 'DIY: HTTP Request node v4.2', build: (rows, p) => diyWorkflow(rows, p, sandbox.url, creds) },
		ours: { label: 'ours: Order → Create, concurrency 5 (default)', build: (rows, p) => ordersWorkflow(rows, p, creds) },
		oursHigh: { label: `ours: Order → Create, concurrency ${HIGH}`, build: (rows, p) => ordersWorkflow(rows, p, creds, HIGH) },
	});
	const measure = async (rest: Parameters<typeof runMeasured>[0], v: Variant, rows: number, latency: number): Promise<Measured> => {
		sandbox.configure({ latencyMs: latency });
		sandbox.reset();
		probe.reset();
		const r = await runMeasured(rest, v.build(rows, `bench-orders-${++run}`));
		if (r.items !== rows) throw new Error(`${v.label}: ${r.items} items out of ${rows}`);
		const m = { ...r, label: v.label, requests: probe.started, peak: probe.peak, networkWindowMs: probe.windowMs };
		say(`${v.label} @${latency} ms: ${rows} rows in ${fmt(r.nodeMs, 0)} ms (${m.requests} requests, peak ${m.peak} in flight)`);
		return m;
	};

	// --- timed runs, side by side in one n8n
	const timed = await startBenchN8n();
	const at: Record<string, Measured> = {};
	const zero: Record<string, Measured> = {};
	try {
		const v = variantsFor(await createApiCredentials(timed.rest, sandbox));
		for (const variant of Object.values(v)) await measure(timed.rest, variant, WARMUP, LATENCY); // JIT warm-up
		for (const [key, variant] of Object.entries(v)) at[key] = await measure(timed.rest, variant, N, LATENCY);
		for (const key of ['diy', 'ours'] as const) zero[key] = await measure(timed.rest, v[key], N, 0);
	} finally {
		await timed.stop();
	}

	const perRow = (m: Measured) => m.nodeMs / N;
	const rows: Row[] = [
		...Object.values(at).map((m) => info(`${m.label} @${LATENCY} ms: node time`, `${fmt(m.nodeMs / 1000, 2)} s`, `${fmt(perRow(m), 2)} ms/row, peak ${m.peak} in flight, ${m.requests} requests`)),
		atMost(`wall time @${LATENCY} ms, ours (c=5) vs DIY`, at.ours.nodeMs / 1000, at.diy.nodeMs / 1000, 0.5, 's', 2),
		atMost(`wall time @${LATENCY} ms, ours (c=${HIGH}) vs DIY`, at.oursHigh.nodeMs / 1000, at.diy.nodeMs / 1000, 0.5, 's', 2),
		...Object.values(zero).map((m) => info(`${m.label} @0 ms: node time`, `${fmt(m.nodeMs / 1000, 2)} s`, `peak ${m.peak} in flight`)),
		atMost('per-request overhead @0 ms, ours (c=5) vs DIY', perRow(zero.ours), perRow(zero.diy), 0.3, 'ms/req', 2),
	];
	print(table(`Benchmark 2: download orders, ${N} rows, one request per row — ${machine()}`, rows));

	if (PROFILE) await profileRuns(sandbox, variantsFor, measure);
	await sandbox.close();
}

async function profileRuns(
	sandbox: Awaited<ReturnType<typeof startBenchSandbox>>['sandbox'],
	variantsFor: (creds: Awaited<ReturnType<typeof createApiCredentials>>) => Record<string, Variant>,
	measure: (rest: Parameters<typeof runMeasured>[0], v: Variant, rows: number, latency: number) => Promise<Measured>,
): Promise<void> {
	await withProfiledN8n(async ({ rest }) => {
		const v = variantsFor(await createApiCredentials(rest, sandbox));
		for (const key of ['diy', 'ours'] as const) await measure(rest, v[key], WARMUP, 0);
		const runs: ProfiledRun[] = [];
		for (const key of ['diy', 'ours'] as const) runs.push({ ...(await measure(rest, v[key], N, 0)), title: `${v[key].label} @0 ms` });
		// Where the time goes while requests wait on the network, at the default concurrency.
		const rows = Math.min(N, 600);
		runs.push({ ...(await measure(rest, v.ours, rows, LATENCY)), title: `${v.ours.label} @${LATENCY} ms (${rows} rows)` });
		return runs;
	});
}

await main();
