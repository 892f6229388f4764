// Builds our package (when dist is stale) and packs it with `npm pack`, so
// n8n gets exactly what a user would install from the registry.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from './paths.mts';

function newestMtime(path: string): number {
	if (!existsSync(path)) return 0;
	const st = statSync(path);
	if (!st.isDirectory()) return st.mtimeMs;
	let newest = st.mtimeMs;
	for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
	return newest;
}

function oldestBuildOutput(): number {
	const pkg = JSON.parse(
		spawnSync('node', ['-p', 'JSON.stringify(require("./package.json").n8n)'], {
			cwd: REPO_ROOT,
			encoding: 'utf8',
		}).stdout,
	) as { nodes: string[]; credentials: string[] };
	let oldest = Infinity;
	for (const f of [...pkg.nodes, ...pkg.credentials]) {
		const p = join(REPO_ROOT, f);
		if (!existsSync(p)) return 0;
		oldest = Math.min(oldest, statSync(p).mtimeMs);
	}
	return oldest;
}

function distIsStale(): boolean {
	const sources = Math.max(
		newestMtime(join(REPO_ROOT, 'nodes')),
		newestMtime(join(REPO_ROOT, 'credentials')),
		newestMtime(join(REPO_ROOT, 'package.json')),
	);
	return oldestBuildOutput() < sources;
}

function run(cmd: string, args: string[]): string {
	const r = spawnSync(cmd, args, { cwd: REPO_ROOT, encoding: 'utf8', env: process.env });
	if (r.status !== 0) {
		throw new Error(
			`${cmd} ${args.join(' ')} failed (${r.status})\n${r.stdout?.slice(-3000)}\n${r.stderr?.slice(-3000)}`,
		);
	}
	return r.stdout;
}

/** Returns the path of a fresh tarball of the package. */
export function buildAndPack(opts: { forceBuild?: boolean } = {}): string {
	if (opts.forceBuild || distIsStale()) run('npm', ['run', 'build']);
	const dest = mkdtempSync(join(tmpdir(), 'voucher-pack-'));
	const out = run('npm', ['pack', '--json', '--pack-destination', dest]);
	const [{ filename }] = JSON.parse(out) as Array<{ filename: string }>;
	return join(dest, filename);
}

/** Removes a tarball of buildAndPack() and the temp folder it was packed into. */
export function removePackedTarball(tarball: string): void {
	rmSync(dirname(tarball), { recursive: true, force: true });
}
