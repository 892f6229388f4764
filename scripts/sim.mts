/**
 * `npm run sim -- --runs N [--seed S] [--workers W] [--skip a,b]`: the campaign simulator of
 * issue 39 for long runs. Starts W workers (one per core by default), each a vitest process
 * running test/sim/simWorker.mts with a sandbox of its own, shares the runs between them and
 * sums up: cases, cases per second, and each failure shrunk to its smallest case. A failure
 * that breaks a set of rules no kept case breaks is added to test/sim/regressions.json, which
 * the unit suite replays.
 *
 * `npm run sim -- --seed S --path P` replays the case fast-check names so, and
 * `npm run sim -- --regression N` the N-th kept case (1-based), printing every execution.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
	options: {
		runs: { type: 'string', default: '1000' },
		seed: { type: 'string' },
		workers: { type: 'string', default: String(availableParallelism()) },
		skip: { type: 'string', default: '' },
		path: { type: 'string' },
		regression: { type: 'string' },
	},
});

const root = new URL('..', import.meta.url).pathname;
const regressionsFile = join(root, 'test/sim/regressions.json');
const vitest = join(root, 'node_modules/.bin/vitest');
const scratch = mkdtempSync(join(tmpdir(), 'sim-'));

interface Failure {
	seed: number;
	path: string;
	case: unknown;
	violations: string;
	shrinkMs: number;
}

function worker(env: Record<string, string>, quiet: boolean): Promise<void> {
	const args = ['run', '--config', 'test/sim/vitest.config.mts', '--reporter', 'dot'];
	const child = spawn(vitest, args, {
		cwd: root,
		env: { ...process.env, ...env },
		stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
	});
	return new Promise((resolve, reject) =>
		child.on('exit', (code) =>
			code === 0 ? resolve() : reject(new Error(`worker exited ${code}`)),
		),
	);
}

interface Kept {
	invariants: string[];
	found: string;
	seed: number;
	path: string;
	case: unknown;
}

const kept = JSON.parse(readFileSync(regressionsFile, 'utf8')) as Kept[];

if (values.path !== undefined || values.regression !== undefined) {
	const env: Record<string, string> = { SIM_SEED: values.seed ?? '0' };
	if (values.path !== undefined) env.SIM_PATH = values.path;
	else {
		const file = join(scratch, 'case.json');
		writeFileSync(file, JSON.stringify(kept[Number(values.regression) - 1].case));
		env.SIM_CASE = file;
	}
	await worker(env, false);
	process.exit(0);
}

const runs = Number(values.runs);
const workers = Math.max(1, Math.min(Number(values.workers), runs));
const seed = Number(values.seed ?? Date.now() % 2 ** 31);
const started = performance.now();
const reports = await Promise.all(
	Array.from({ length: workers }, async (_, index) => {
		const out = join(scratch, `worker-${index}.json`);
		await worker(
			{
				SIM_RUNS: String(Math.ceil(runs / workers)),
				// Far apart: a worker moves to its next seed after each failure.
				SIM_SEED: String(seed + index * 1_000_003),
				SIM_SKIP: values.skip,
				SIM_OUT: out,
				SIM_KNOWN: JSON.stringify(
					kept.map((entry) => JSON.stringify([...entry.invariants].sort())),
				),
			},
			true,
		);
		return JSON.parse(readFileSync(out, 'utf8')) as {
			runs: number;
			ms: number;
			shrinkMs: number;
			repeats: Record<string, number>;
			failures: Failure[];
		};
	}),
);
const seconds = (performance.now() - started) / 1000;
const total = reports.reduce((sum, report) => sum + report.runs, 0);
const failures = reports.flatMap((report) => report.failures);
// Cases per second of the workers' time spent on cases, shrinking left out, times the workers.
const caseSeconds = reports.reduce((sum, report) => sum + (report.ms - report.shrinkMs), 0) / 1000;
const rate = (total / caseSeconds) * workers;
console.log(
	`${total} cases from seed ${seed} on ${workers} workers in ${seconds.toFixed(1)} s: ${rate.toFixed(1)} cases/s (shrinking aside), ${failures.length} failed`,
);

// The node's code as run: the last commit that changed it.
const repeats = new Map<string, number>();
for (const report of reports)
	for (const [signature, count] of Object.entries(report.repeats))
		repeats.set(signature, (repeats.get(signature) ?? 0) + count);
for (const [signature, count] of repeats)
	console.log(`${count} more cases broke ${signature}, a set already shrunk (not shrunk again)`);

const commit = execFileSync('git', ['log', '-1', '--format=%h', '--', 'nodes', 'credentials'], {
	cwd: root,
})
	.toString()
	.trim();
const known = new Set(kept.map((entry) => JSON.stringify([...entry.invariants].sort())));
for (const failure of failures) {
	const invariants = [
		...new Set([...failure.violations.matchAll(/^C\d+ (\S+)/gm)].map((m) => m[1])),
	].sort();
	console.log(
		`\nseed ${failure.seed} path ${failure.path} (shrunk in ${(failure.shrinkMs / 1000).toFixed(1)} s):\n${failure.violations}\n${JSON.stringify(failure.case)}`,
	);
	if (known.has(JSON.stringify(invariants))) continue;
	known.add(JSON.stringify(invariants));
	const found = `${new Date().toISOString().slice(0, 10)} at ${commit}`;
	kept.push({
		invariants,
		found,
		seed: failure.seed,
		path: failure.path,
		case: failure.case,
	} as never);
	console.log(`kept as regression ${kept.length}`);
}
writeFileSync(regressionsFile, JSON.stringify(kept));
execFileSync(join(root, 'node_modules/.bin/prettier'), ['--write', regressionsFile]);
process.exit(failures.length > 0 || repeats.size > 0 ? 1 : 0);
