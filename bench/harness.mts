// A real n8n for the benchmarks, from real-n8n/ (imported, not copied): the cached
// n8n 2.41.1 and startInstance (a throwaway user folder, our packed package installed
// like a manual community install, an owner account), and the credentials.
// Plus the in-process sandbox and a probe that counts its requests in flight.
import { execFileSync } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

import { ACTION_NODE, API_CREDENTIAL, sandboxApiCredential } from '../real-n8n/fixtures.mts';
import { ensureN8nInstalled } from '../real-n8n/install.mts';
import { startInstance, type Instance } from '../real-n8n/instance.mts';
import { buildAndPack, removePackedTarball } from '../real-n8n/package-under-test.mts';
import { MANUAL_START, linearWorkflow, type Execution, type N8nRest, type WorkflowJson } from '../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../sandbox/server.mts';
import { say } from './report.mts';

export const MINIMAL_TRIGGER_NODE = 'n8n-nodes-bench-minimal-trigger.minimalTrigger';
export const MINIMAL_SECRET_TRIGGER_NODE = 'n8n-nodes-bench-minimal-trigger.minimalSecretTrigger';

let tarball: string | undefined;

/**
 * Builds (when stale) and packs our package once per process, or takes
 * BENCH_TARBALL. Others may rebuild dist at the same moment (n8n-node build
 * empties it first), so a failed build is tried again.
 */
export async function packageTarball(): Promise<string> {
	if (tarball) return tarball;
	if (process.env.BENCH_TARBALL) return (tarball = process.env.BENCH_TARBALL);
	await ensureN8nInstalled();
	for (let attempt = 1; ; attempt++) {
		try {
			tarball = buildAndPack({ forceBuild: attempt > 1 });
			break;
		} catch (error) {
			if (attempt >= 3) throw error;
			say(`build or pack failed (${String(error).split('\n')[0]}); trying again`);
			await new Promise((r) => setTimeout(r, 5000));
		}
	}
	process.once('exit', () => removePackedTarball(tarball!));
	return tarball;
}

let minimalTarball: string | undefined;

/** The dev-only floor trigger in bench/minimal-trigger, packed with `npm pack` like ours. */
export function minimalTriggerTarball(): string {
	if (minimalTarball) return minimalTarball;
	const dest = mkdtempSync(join(tmpdir(), 'voucher-bench-floor-'));
	const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
		cwd: new URL('./minimal-trigger/', import.meta.url).pathname,
		encoding: 'utf8',
	});
	process.once('exit', () => rmSync(dest, { recursive: true, force: true }));
	return (minimalTarball = join(dest, (JSON.parse(out) as Array<{ filename: string }>)[0].filename));
}

export type BenchN8n = Instance;

/**
 * A fresh n8n with our package (and `alsoInstall`, tarballs installed the same way);
 * `env` adds to real-n8n's environment (e.g. NODE_OPTIONS).
 */
export async function startBenchN8n(env: Record<string, string> = {}, alsoInstall: string[] = []): Promise<BenchN8n> {
	let startSeconds = 0;
	const instance = await startInstance({
		tarballs: [await packageTarball(), ...alsoInstall],
		folderPrefix: 'voucher-bench-n8n-',
		// Quiet logs: per-request log lines would be part of what is measured.
		env: { N8N_LOG_LEVEL: 'warn', ...env },
		keepUserFolder: Boolean(process.env.BENCH_KEEP_N8N_FOLDER),
		step: async (step, run) => {
			const t0 = Date.now();
			try {
				return await run();
			} finally {
				if (step === 'start') startSeconds = (Date.now() - t0) / 1000;
			}
		},
	});
	say(`n8n up in ${startSeconds.toFixed(1)} s at ${instance.n8n.url} (pid ${instance.n8n.pid})`);
	return instance;
}

export interface Credentials {
	ours: { id: string; name: string };
	basic: { id: string; name: string };
}

export async function createApiCredentials(rest: N8nRest, sandbox: Sandbox): Promise<Credentials> {
	const ours = await sandboxApiCredential(rest, sandbox, 'Voucher sandbox (bench)');
	const basic = await rest.createCredential('Sandbox basic auth (bench)', 'httpBasicAuth', {
		user: sandbox.keys.publicKey,
		password: sandbox.keys.secretKey,
	});
	return { ours: { id: ours.id, name: ours.name }, basic: { id: basic.id, name: basic.name } };
}

/** One request as the sandbox served it, on the bench's performance.now() clock (ms). */
export interface ServedRequest {
	method: string;
	path: string;
	startMs: number;
	finishMs?: number;
}

/** Requests the sandbox is serving at once, from Node's own HTTP server diagnostics channels. */
export class InFlightProbe {
	current = 0;
	peak = 0;
	started = 0;
	firstStartMs = Infinity;
	lastFinishMs = 0;
	/** Every request since the last reset, in arrival order. */
	served: ServedRequest[] = [];
	/**
	 * This process's event loop at the first request and at the last answer: the sandbox
	 * shares the machine with n8n, so its own busy time bounds how fast it can answer.
	 */
	private loopAtFirstStart?: EventLoopUtilization;
	private loopAtLastFinish?: EventLoopUtilization;
	private readonly byResponse = new WeakMap<object, ServedRequest>();
	constructor() {
		subscribe('http.server.request.start', (message) => {
			const { request, response } = message as { request: { method?: string; url?: string }; response: object };
			const now = performance.now();
			this.current++;
			this.started++;
			this.peak = Math.max(this.peak, this.current);
			this.firstStartMs = Math.min(this.firstStartMs, now);
			this.loopAtFirstStart ??= performance.eventLoopUtilization();
			const served = { method: request.method ?? '', path: request.url ?? '', startMs: now };
			this.served.push(served);
			this.byResponse.set(response, served);
		});
		subscribe('http.server.response.finish', (message) => {
			const now = performance.now();
			this.current--;
			this.lastFinishMs = now;
			this.loopAtLastFinish = performance.eventLoopUtilization();
			const served = this.byResponse.get((message as { response: object }).response);
			if (served) served.finishMs = now;
		});
	}
	reset(): void {
		this.peak = this.current;
		this.started = 0;
		this.firstStartMs = Infinity;
		this.lastFinishMs = 0;
		this.served = [];
		this.loopAtFirstStart = undefined;
		this.loopAtLastFinish = undefined;
	}
	/** Time the sandbox's process was busy from the first request in to the last answer out, ms. */
	get serviceBusyMs(): number {
		if (!this.loopAtFirstStart || !this.loopAtLastFinish) return 0;
		return performance.eventLoopUtilization(this.loopAtLastFinish, this.loopAtFirstStart).active;
	}
	/** First request in to last answer out, in ms. */
	get windowMs(): number {
		return this.started ? this.lastFinishMs - this.firstStartMs : 0;
	}
}

/** Maps a performance.now() reading onto the monotonic clock V8 profiles use, µs. */
export function performanceToMonoUs(ms: number): number {
	return monoUs() - (performance.now() - ms) * 1000;
}

export async function startBenchSandbox(latencyMs: number): Promise<{ sandbox: Sandbox; probe: InFlightProbe }> {
	// Enough money for every order of a run; the default wallet would do too, but
	// a bench must never measure a refusal.
	const sandbox = await startSandbox({ port: 0, latencyMs, initialBalanceNgn: 10_000_000_000 });
	return { sandbox, probe: new InFlightProbe() };
}

// ---- workflows ---------------------------------------------------------------

type Node = WorkflowJson['nodes'][number];

/**
 * How many fields of an order a route takes from the row: 4 (reference, product code, amount,
 * quantity: a sheet with one order per row) or 2 (reference and amount; the product and quantity
 * fixed in the workflow).
 */
export type MappedFields = 2 | 4;

/** A Code node that makes `rows` items, each usable by every route below; with 4 mapped fields each row also names its product and quantity. */
function rowsNode(rows: number, prefix: string, mapped: MappedFields = 2): Node {
	const orderColumns = mapped === 4 ? `, productCode: 'VCH-INSTANT', quantity: 1` : '';
	const jsCode = [
		`const out = [];`,
		`for (let i = 0; i < ${rows}; i++) {`,
		`  out.push({ json: { reference: '${prefix}-' + i, amount: 100${orderColumns}, firstName: 'First' + i, lastName: 'Last' + i, email: 'r' + i + '@example.com' } });`,
		`}`,
		`return out;`,
	].join('\n');
	return { id: 'rows', name: 'Rows', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode } };
}

export const MEASURED = 'Measured';

/**
 * The anchor's route: HTTP Request node v4.2, Basic auth, a JSON body built by one expression per
 * row, which takes the product code and quantity from the row too when 4 fields are mapped.
 */
export function diyWorkflow(rows: number, prefix: string, sandboxUrl: string, creds: Credentials, mapped: MappedFields = 2): WorkflowJson {
	const body =
		mapped === 4
			? '={{ JSON.stringify({reference: $json.reference, productCode: $json.productCode, amount: $json.amount, quantity: $json.quantity}) }}'
			: "={{ JSON.stringify({reference: $json.reference, productCode: 'VCH-INSTANT', amount: $json.amount, quantity: 1}) }}";
	return linearWorkflow(`bench DIY ${prefix}`, [
		MANUAL_START,
		rowsNode(rows, prefix, mapped),
		{
			id: 'diy',
			name: MEASURED,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url: `${sandboxUrl}/v2/orders`,
				authentication: 'genericCredentialType',
				genericAuthType: 'httpBasicAuth',
				sendBody: true,
				specifyBody: 'json',
				jsonBody: body,
				options: {},
			},
			credentials: { httpBasicAuth: creds.basic },
		},
	]);
}

/** Our action node as the measured step after the rows; `node` adds node settings (e.g. onError). */
function oursAfterRows(name: string, rows: number, prefix: string, creds: Credentials, parameters: Record<string, unknown>, node: Partial<Node> = {}, mapped: MappedFields = 2): WorkflowJson {
	return linearWorkflow(`bench ${name} ${prefix}`, [
		MANUAL_START,
		rowsNode(rows, prefix, mapped),
		{ id: name, name: MEASURED, type: ACTION_NODE, typeVersion: 1, parameters, credentials: { [API_CREDENTIAL]: creds.ours }, ...node },
	]);
}

/**
 * Ours: Order → Create, default options unless `maxConcurrency` is given, with `mapped` fields
 * from expressions (`={{ $json.… }}`; default 4: reference, product code, amount and quantity; 2:
 * reference and amount). `continueOnFail` turns failed rows into error items to count.
 */
export function ordersWorkflow(rows: number, prefix: string, creds: Credentials, settings: { maxConcurrency?: number; continueOnFail?: boolean; mapped?: MappedFields } = {}): WorkflowJson {
	const mapped = settings.mapped ?? 4;
	return oursAfterRows(
		'orders',
		rows,
		prefix,
		creds,
		{
			resource: 'order',
			operation: 'create',
			reference: '={{ $json.reference }}',
			productCode: mapped === 4 ? '={{ $json.productCode }}' : 'VCH-INSTANT',
			amount: '={{ $json.amount }}',
			quantity: mapped === 4 ? '={{ $json.quantity }}' : 1,
			options: settings.maxConcurrency === undefined ? {} : { concurrency: settings.maxConcurrency },
		},
		settings.continueOnFail ? { onError: 'continueRegularOutput' } : {},
		mapped,
	);
}

/** Ours: Create for Recipients, recipients from input items (default columns, 100 per order). */
export function campaignWorkflow(rows: number, prefix: string, creds: Credentials): WorkflowJson {
	return oursAfterRows('campaign', rows, prefix, creds, {
		resource: 'order',
		operation: 'createForRecipients',
		reference: prefix,
		productCode: 'VCH-INSTANT',
		amount: 100,
		templateId: 1,
		recipientsSource: 'inputItems',
		options: {},
	});
}

export interface RunResult {
	execution: Execution;
	/** The measured node's own time, as n8n recorded it. */
	nodeMs: number;
	/** Whole execution, n8n's startedAt → stoppedAt. */
	executionMs: number;
	items: number;
	/** Bench-side monotonic clock around the run, µs (same clock as V8 profiles). */
	monoStartUs: number;
	monoEndUs: number;
	/** The measured node's run on the same monotonic clock, µs. */
	nodeMonoStartUs: number;
	nodeMonoEndUs: number;
}

const monoUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Above this many rows a DIY route (one HTTP Request per row) runs at this size and is
 * compared per row, or scaled: at 100,000 rows its own run would take about 4 minutes at
 * 0 ms latency and 10 at 25 ms (2 to 6 ms a row), and n8n's RSS would grow by 3 to 8 GiB
 * for it (30 to 80 KiB a row, measured at 2,000 and 10,000 rows), up to and past n8n's
 * default heap limit of about 4 GiB.
 */
export const DIY_MAX_ROWS = 10_000;

/** How long one workflow run of `rows` rows may take: BENCH_RUN_TIMEOUT_S, else 10 minutes or 60 ms a row, whichever is longer. */
export function runTimeoutMs(rows: number): number {
	const seconds = Number(process.env.BENCH_RUN_TIMEOUT_S ?? 0);
	return seconds > 0 ? seconds * 1000 : Math.max(600_000, rows * 60);
}

/** Saves and runs a workflow like the editor's button, and reads back the measured node's time. */
export async function runMeasured(rest: N8nRest, wf: WorkflowJson, timeoutMs = 600_000): Promise<RunResult> {
	const { id } = await rest.createWorkflow(wf);
	const monoStartUs = monoUs();
	const execution = await rest.runWorkflow(id, 'Start', timeoutMs);
	const monoEndUs = monoUs();
	const runs = execution.data.resultData.runData[MEASURED];
	if (execution.status !== 'success' || !runs?.length) {
		throw new Error(`${wf.name}: execution ${execution.id} ${execution.status}: ${JSON.stringify(execution.data.resultData.error ?? {}).slice(0, 600)}`);
	}
	const run = runs[0] as (typeof runs)[number] & { executionTime: number };
	const ex = execution as Execution & { startedAt: string; stoppedAt: string };
	// n8n stamps the node's start in epoch ms; map it onto the monotonic clock.
	const epochToMonoUs = monoUs() - Date.now() * 1000;
	const nodeMonoStartUs = run.startTime * 1000 + epochToMonoUs;
	return {
		execution,
		nodeMs: run.executionTime,
		executionMs: Date.parse(ex.stoppedAt) - Date.parse(ex.startedAt),
		items: run.data?.main?.[0]?.length ?? 0,
		monoStartUs,
		monoEndUs,
		nodeMonoStartUs,
		nodeMonoEndUs: nodeMonoStartUs + run.executionTime * 1000,
	};
}

/**
 * Starts a saved workflow and waits for it through the executions list only,
 * so no full execution is serialised by n8n while something is being measured.
 */
export async function runQuietly(rest: N8nRest, workflowId: string, timeoutMs = 600_000, trigger = MANUAL_START.name): Promise<string> {
	const executionId = await rest.startWorkflow(workflowId, trigger);
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const listed = await rest.listExecutions(workflowId);
		const status = listed.find((e) => String(e.id) === executionId)?.status;
		if (status && !['new', 'running', 'waiting'].includes(status)) return executionId;
		if (Date.now() > deadline) throw new Error(`execution ${executionId} still ${status} after ${timeoutMs} ms`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

/** How many executions a workflow has (n8n's count, without their data). */
export async function executionCount(rest: N8nRest, workflowId: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const res = await rest.request('GET', `/rest/executions?filter=${filter}&limit=1`);
	return Number(res?.count ?? 0);
}
