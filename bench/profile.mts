// Summarises a V8 .cpuprofile (written by `node --cpu-prof`) over a time
// window: self time by category, top functions by self time, and inclusive
// time under a few named functions (credential reads, authentication, ...).
// V8 stamps samples with the monotonic clock in µs, the same clock as
// process.hrtime() here, so a window measured by the bench selects the samples.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startBenchN8n, type BenchN8n } from './harness.mts';
import { fmt, print, say, table, type Row } from './report.mts';

interface CallFrame {
	functionName: string;
	url: string;
	lineNumber: number;
}
interface ProfileNode {
	id: number;
	callFrame: CallFrame;
	children?: number[];
}
interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** The main n8n process's profile in `dir` (V8 names them CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile). */
export function readProfile(dir: string, pid: number): CpuProfile {
	const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.split('.')[3] === String(pid));
	if (!file) throw new Error(`no profile of pid ${pid} in ${dir} (${readdirSync(dir).join(', ')})`);
	return JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
}

/** Our installed package (n8n's own cache folder also carries our name, so match the install path). */
const OURS = /node_modules\/n8n-nodes-voucher-service\//;

/** Self-time categories, first match wins. Matched on the frame's URL (or name for V8's own). */
const CATEGORIES: Array<[string, (f: CallFrame) => boolean]> = [
	['idle', (f) => f.functionName === '(idle)'],
	['GC', (f) => f.functionName === '(garbage collector)'],
	['V8/native (program)', (f) => f.functionName === '(program)'],
	['our node code', (f) => OURS.test(f.url)],
	[
		'expression evaluation',
		(f) => /expression|tournament|riot-tmpl|esprima|recast|ast-types|isolated-vm|workflow-data-proxy|jmespath/i.test(f.url),
	],
	['credential access/decryption', (f) => /credential|cipher|crypto-js|\/crypto\//i.test(f.url) || /^(decrypt|pbkdf|createDecipher)/.test(f.functionName)],
	['database (typeorm/sqlite)', (f) => /typeorm|sqlite|\/@n8n\/db\//.test(f.url)],
	[
		'HTTP helper + sockets',
		(f) => /backend-network|axios|follow-redirects|request-helper|form-data|proxy-agent|agent-base|node:_http|node:http|node:net|node:internal\/(http|stream|streams|net|dns|url)|node:stream|node:zlib|node:buffer/.test(f.url),
	],
	['HTTP Request node', (f) => /nodes-base\/dist\/nodes\/HttpRequest/.test(f.url)],
	['other n8n-nodes-base', (f) => /n8n-nodes-base/.test(f.url)],
	['n8n-workflow (parameters, data)', (f) => /n8n-workflow\/dist/.test(f.url)],
	['n8n-core (execution engine)', (f) => /n8n-core\/dist/.test(f.url)],
	['n8n server (cli)', (f) => /node_modules\/n8n\/dist|@n8n\//.test(f.url)],
	['node internals', (f) => f.url.startsWith('node:')],
	['other', () => true],
];

/** Inclusive probes: time of samples with a matching frame anywhere on the stack. */
export const PROBES: Array<[string, (f: CallFrame) => boolean]> = [
	['getCredentials (read + decrypt, any caller)', (f) => f.functionName === 'getCredentials' || f.functionName === '_getCredentials'],
	['credentialsHelper.getDecrypted', (f) => f.functionName === 'getDecrypted'],
	['credentialsHelper.authenticate', (f) => f.functionName === 'authenticate' && /credentials-helper/.test(f.url)],
	['httpRequestWithAuthentication', (f) => f.functionName === 'httpRequestWithAuthentication'],
	['expression resolution', (f) => /^(resolveSimpleParameterValue|getParameterValue|resolveExpression|evaluateExpression)$/.test(f.functionName)],
	['our node (route, all of it)', (f) => OURS.test(f.url) && f.functionName === 'route'],
];

export interface Summary {
	busyMs: number;
	windowMs: number;
	categories: Map<string, number>;
	top: Array<{ name: string; ms: number }>;
	probes: Map<string, number>;
}

export function summarise(profile: CpuProfile, fromUs: number, toUs: number, topN = 15): Summary {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const categoryOf = new Map<number, string>();
	const category = (id: number) => {
		let c = categoryOf.get(id);
		if (c === undefined) {
			const f = byId.get(id)!.callFrame;
			c = CATEGORIES.find(([, m]) => m(f))![0];
			categoryOf.set(id, c);
		}
		return c;
	};
	const probeHits = new Map<number, string[]>();
	const probesOf = (id: number): string[] => {
		let hits = probeHits.get(id);
		if (hits === undefined) {
			const f = byId.get(id)!.callFrame;
			const own = PROBES.filter(([, m]) => m(f)).map(([name]) => name);
			const up = parent.get(id);
			hits = [...new Set([...own, ...(up === undefined ? [] : probesOf(up))])];
			probeHits.set(id, hits);
		}
		return hits;
	};
	const categories = new Map<string, number>();
	const self = new Map<string, number>();
	const probes = new Map<string, number>(PROBES.map(([name]) => [name, 0]));
	let t = profile.startTime;
	let busy = 0;
	for (let i = 0; i < profile.samples.length; i++) {
		t += profile.timeDeltas[i];
		if (t < fromUs || t > toUs) continue;
		// Each sample stands for the time until the next one.
		const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
		const id = profile.samples[i];
		const cat = category(id);
		categories.set(cat, (categories.get(cat) ?? 0) + dt);
		if (cat !== 'idle') busy += dt;
		const f = byId.get(id)!.callFrame;
		const name = `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}`;
		self.set(name, (self.get(name) ?? 0) + dt);
		for (const p of probesOf(id)) probes.set(p, probes.get(p)! + dt);
	}
	const top = [...self.entries()]
		.filter(([name]) => !name.startsWith('(idle)'))
		.sort((a, b) => b[1] - a[1])
		.slice(0, topN)
		.map(([name, ms]) => ({ name, ms }));
	return { busyMs: busy, windowMs: (toUs - fromUs) / 1000, categories, top, probes };
}

function shortUrl(url: string): string {
	const nm = url.lastIndexOf('node_modules/');
	return nm >= 0 ? url.slice(nm + 'node_modules/'.length) : url.replace(/^file:\/\//, '');
}

/** Tables of one summary; per-request figures divide by `requests`. */
export function profileTables(title: string, s: Summary, requests: number): string {
	const per = (ms: number) => `${fmt((ms * 1000) / requests, 0)} µs/req`;
	const pct = (ms: number) => `${fmt((100 * ms) / s.busyMs, 1)} % of busy`;
	const cats: Row[] = [...s.categories.entries()]
		.sort((a, b) => b[1] - a[1])
		.map(([name, ms]) => ({ measure: name, value: `${fmt(ms, 0)} ms`, reference: name === 'idle' ? '' : pct(ms), goal: per(ms) }));
	const probes: Row[] = [...s.probes.entries()].map(([name, ms]) => ({ measure: name, value: `${fmt(ms, 0)} ms`, reference: pct(ms), goal: per(ms) }));
	const top: Row[] = s.top.map(({ name, ms }) => ({ measure: name.slice(0, 110), value: `${fmt(ms, 0)} ms`, reference: pct(ms), goal: per(ms) }));
	const head = `${title}: ${fmt(s.busyMs, 0)} ms busy of ${fmt(s.windowMs, 0)} ms window, ${requests} requests`;
	const columns = ['where', 'CPU time', 'share', '', 'per request', ''];
	return [
		table(`${head} — self time by category`, cats, columns),
		table(`${title} — inclusive time under (a sample counts once per probe)`, probes, columns),
		table(`${title} — top self-time functions`, top, columns),
	].join('\n\n');
}

export interface ProfiledRun {
	title: string;
	/** The measured node's run on the monotonic clock, µs. */
	nodeMonoStartUs: number;
	nodeMonoEndUs: number;
	requests: number;
}

/**
 * Starts an n8n under --cpu-prof (with `alsoInstall` tarballs too), lets `runs` use it, stops it (V8 writes the
 * profile at exit) and prints a summary of each run's node window.
 */
export async function withProfiledN8n(runs: (b: BenchN8n) => Promise<ProfiledRun[]>, alsoInstall: string[] = [], env: Record<string, string> = {}): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), 'voucher-bench-prof-'));
	const profiled = await startBenchN8n({ ...env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` }, alsoInstall);
	let done: ProfiledRun[];
	try {
		done = await runs(profiled);
	} finally {
		await profiled.stop();
	}
	const profile = readProfile(dir, profiled.n8n.pid);
	for (const r of done) print(profileTables(`Profile, ${r.title}`, summarise(profile, r.nodeMonoStartUs, r.nodeMonoEndUs), r.requests));
	if (process.env.BENCH_KEEP_PROFILE) say(`profile kept in ${dir}`);
	else rmSync(dir, { recursive: true, force: true });
}
