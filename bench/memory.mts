// Benchmark 6: peak RSS of the n8n process for the campaign against the DIY
// route on the same rows, each in a fresh n8n.
//   npm run bench:memory
// Env: BENCH_MEMORY_N (rows, default 10000), BENCH_MEMORY_DIY_N (rows of the DIY
//      route, default BENCH_MEMORY_N up to 10000: above that its own run takes minutes
//      and nears n8n's heap limit, so its growth is scaled linearly to BENCH_MEMORY_N
//      and the table says so),
//      BENCH_MEMORY_LATENCY_MS (default 0: memory does not depend on it, and the DIY
//      route takes ~11 ms/row anyway), BENCH_RUN_TIMEOUT_S (per run; default 600, or
//      60 ms per row of the larger run if that is longer).
// Idle = VmRSS after start-up, login and credentials, settled. The peak counter
// (VmHWM) is then reset through /proc/<pid>/clear_refs, so start-up does not
// count, and VmRSS is also sampled every 50 ms as a cross-check. The workflow
// is waited for through the executions list, so serialising the big execution
// for this client is not counted. Only n8n's main process is measured: the
// Code node that makes the rows runs in n8n's task runner, the same for both.
import {
	DIY_MAX_ROWS,
	campaignWorkflow,
	createApiCredentials,
	diyWorkflow,
	runQuietly,
	runTimeoutMs,
	startBenchN8n,
	startBenchSandbox,
	type Credentials,
} from './harness.mts';
import type { WorkflowJson } from '../real-n8n/rest.mts';
import { mib, watchPeakRss, type PeakRss } from './peakRss.mts';
import { atMost, beginRun, conditionsTable, envInt, fmt, info, machine, print, say, table } from './report.mts';

const N = envInt('BENCH_MEMORY_N', 10_000);
const DIY_N = envInt('BENCH_MEMORY_DIY_N', Math.min(N, DIY_MAX_ROWS));
const LATENCY = envInt('BENCH_MEMORY_LATENCY_MS', 0);
const TIMEOUT_MS = runTimeoutMs(Math.max(N, DIY_N));

async function measure(label: string, build: (creds: Credentials, sandboxUrl: string) => WorkflowJson) {
	const { sandbox, probe } = await startBenchSandbox(LATENCY);
	const bench = await startBenchN8n();
	try {
		const creds = await createApiCredentials(bench.rest, sandbox);
		const { id } = await bench.rest.createWorkflow(build(creds, sandbox.url));
		const pid = bench.n8n.pid;
		await new Promise((r) => setTimeout(r, 5000)); // let start-up garbage settle
		const window = watchPeakRss(pid);
		const t0 = Date.now();
		let peak: PeakRss | undefined;
		try {
			await runQuietly(bench.rest, id, TIMEOUT_MS);
		} finally {
			peak = window.close();
		}
		if (!peak) throw new Error(`n8n (pid ${pid}) exited during the run:\n${bench.n8n.logTail(30)}`);
		const { idleKb: idle, peakKb, hwmKb: hwm, sampledKb: sampled, hwmReset: resetHwm } = peak;
		say(`${label}: ${probe.started} requests in ${((Date.now() - t0) / 1000).toFixed(1)} s; idle ${fmt(mib(idle))} MiB, peak ${fmt(mib(peakKb))} MiB (VmHWM ${fmt(mib(hwm))}, sampled ${fmt(mib(sampled))})`);
		return { idle, peak: peakKb, growth: peakKb - idle, requests: probe.started, hwmReset: resetHwm };
	} finally {
		await bench.stop();
		await sandbox.close();
	}
}

await beginRun();
const ours = await measure('campaign', (creds) => campaignWorkflow(N, 'bench-mem-camp', creds));
const diy = await measure('DIY', (creds, url) => diyWorkflow(DIY_N, 'bench-mem-diy', url, creds));
/** The DIY route's growth at N rows: measured when it ran N rows, else scaled linearly from its DIY_N. */
const diyGrowthAtN = (diy.growth * N) / DIY_N;
const scaled = DIY_N === N ? '' : ` (measured on ${DIY_N} rows, scaled linearly × ${fmt(N / DIY_N, 2)})`;
print(
	table(`Benchmark 6: n8n main-process memory, ${N} rows @${LATENCY} ms, each in a fresh n8n${DIY_N === N ? '' : `, DIY on ${DIY_N} rows scaled to ${N}`} — ${machine()}`, [
		info('ours (campaign): idle → peak RSS', `${fmt(mib(ours.idle))} → ${fmt(mib(ours.peak))} MiB`, `${N} rows, ${ours.requests} requests`),
		info('DIY (HTTP Request per row): idle → peak RSS', `${fmt(mib(diy.idle))} → ${fmt(mib(diy.peak))} MiB`, `${DIY_N} rows, ${diy.requests} requests`),
		info('RSS growth per row, ours / DIY', `${fmt(ours.growth / N, 2)} / ${fmt(diy.growth / DIY_N, 2)} KiB/row`),
		atMost(`RSS growth over idle at ${N} rows, ours vs DIY${scaled}`, mib(ours.growth), mib(diyGrowthAtN), 0.5, 'MiB'),
		info('peak counter reset before the run', ours.hwmReset && diy.hwmReset ? 'yes (clear_refs 5)' : 'no: sampled VmRSS only'),
	]),
);
print(conditionsTable('bench:memory'));
