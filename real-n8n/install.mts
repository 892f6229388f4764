// Installs a pinned n8n into
//   ${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-voucher-service/n8n-<version>/<key>/
// where <key> hashes the version's manifest and lock (real-n8n/package.json for the
// version the full suites use, real-n8n/versions/<version>/ for the others; see
// versions.mts). Each version is installed and run with the Node major its row of
// versions.mts gives (node.mts fetches it when this process runs another):
//   bash scripts/with-node24.sh node real-n8n/install.mts [version ...]
//   bash scripts/with-node24.sh node real-n8n/install.mts --matrix   # every row, at once
//
// Idempotent: returns at once when the marker file exists. Safe against
// partial installs: it installs into a staging folder, renames it into place,
// and writes the marker last; a folder without the marker is removed and
// redone. A lock folder keeps two concurrent runs from racing.
//
// Why these steps (see the project's toolchain notes):
// - `--ignore-scripts`: n8n's optional @confluentinc/kafka-javascript wants
//   to download a binary or build against libcurl/zstd; neither works here.
// - `npm rebuild sqlite3 isolated-vm`: the native modules n8n needs, built
//   offline against the headers of the Node that runs it (npm_config_nodedir).
// - the `linkedom` override in real-n8n/package.json: 0.18.15 needs a package
//   the registry lacks; the `xlsx` override of the 1.x manifests: n8n-nodes-base
//   1.x pins xlsx to a tarball outside the registry.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { envFor, ensureNode } from './node.mts';
import {
	MARKER,
	N8N_VERSION,
	REAL_N8N_DIR,
	installDir,
	installKey,
	isInstalled,
	n8nBin,
	versionDir,
} from './paths.mts';
import { N8N_VERSIONS, versionFacts } from './versions.mts';

function log(msg: string): void {
	process.stderr.write(`[n8n-install] ${msg}\n`);
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
	log(`${cmd} ${args.join(' ')}  (in ${cwd})`);
	const r = spawnSync(cmd, args, {
		cwd,
		stdio: ['ignore', 'inherit', 'inherit'],
		env,
	});
	if (r.status !== 0)
		throw new Error(`${cmd} ${args.join(' ')} failed with ${r.status ?? r.signal}`);
}

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
}

async function withLock<T>(lockDir: string, fn: () => T): Promise<T> {
	const started = Date.now();
	for (;;) {
		try {
			mkdirSync(lockDir);
			writeFileSync(join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
			let owner = 0;
			try {
				owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
			} catch {
				/* being created right now */
			}
			if (owner && !pidAlive(owner)) {
				log(`removing stale lock of dead pid ${owner}`);
				rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (Date.now() - started > 30 * 60_000) throw new Error(`timed out waiting for ${lockDir}`);
			if (Date.now() - started < 1000) log(`waiting for another install (pid ${owner || '?'})`);
			await new Promise((r) => setTimeout(r, 2000));
		}
	}
	try {
		return fn();
	} finally {
		rmSync(lockDir, { recursive: true, force: true });
	}
}

/** Installs `version` (default: the full suites' one) unless cached; returns its folder. */
export async function ensureN8nInstalled(version = N8N_VERSION): Promise<string> {
	const dir = installDir(undefined, version);
	if (isInstalled(dir, version)) return dir;
	const facts = versionFacts(version);
	const node = ensureNode(facts.nodeMajor);
	if (!node.nodedir) {
		throw new Error(
			`no headers for Node ${node.major} (${node.bin}) to build n8n's native modules against; set npm_config_nodedir`,
		);
	}
	const env = envFor(node);
	mkdirSync(versionDir(version), { recursive: true });
	const key = installKey(version);
	await withLock(join(versionDir(version), `.lock-${key}`), () => {
		if (isInstalled(dir, version)) return;
		const t0 = Date.now();
		if (existsSync(dir)) {
			log(`removing incomplete install ${dir}`);
			rmSync(dir, { recursive: true, force: true });
		}
		const staging = join(versionDir(version), `.staging-${key}-${process.pid}`);
		rmSync(staging, { recursive: true, force: true });
		mkdirSync(staging, { recursive: true });
		copyFileSync(join(facts.manifestDir, 'package.json'), join(staging, 'package.json'));
		const lock = join(facts.manifestDir, 'package-lock.json');
		const common = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'];
		if (existsSync(lock)) {
			// `npm install` with the lock, not `npm ci`: npm 11 leaves optional platform
			// packages (@msgpackr-extract/*) out of the lock it writes, and `npm ci`
			// then refuses that very lock. `npm install` keeps every locked version.
			copyFileSync(lock, join(staging, 'package-lock.json'));
			run('npm', ['install', ...common], staging, env);
		} else {
			log(`${lock} is missing: resolving a new one (commit it afterwards)`);
			run('npm', ['install', ...common], staging, env);
			copyFileSync(join(staging, 'package-lock.json'), lock);
		}
		run(
			'npm',
			['rebuild', ...facts.nativeModules, '--ignore-scripts=false', '--foreground-scripts=false'],
			staging,
			env,
		);
		// Keying by the lock written above (bootstrap case) keeps the next run a hit.
		const finalDir = installDir(installKey(version), version);
		rmSync(finalDir, { recursive: true, force: true });
		renameSync(staging, finalDir);
		// Smoke check: the binary loads on its Node, with the settings it needs there.
		const installed = execFileSync(node.bin, [n8nBin(finalDir), '--version'], {
			cwd: finalDir,
			encoding: 'utf8',
			env: { ...env, ...facts.env, N8N_USER_FOLDER: join(finalDir, '.smoke-user') },
		}).trim();
		rmSync(join(finalDir, '.smoke-user'), { recursive: true, force: true });
		writeFileSync(
			join(finalDir, MARKER),
			JSON.stringify({
				n8n: installed,
				node: execFileSync(node.bin, ['--version'], { encoding: 'utf8' }).trim(),
				seconds: (Date.now() - t0) / 1000,
			}) + '\n',
		);
		log(`n8n ${installed} installed in ${finalDir} in ${Math.round((Date.now() - t0) / 1000)} s`);
	});
	const finalDir = installDir(undefined, version);
	if (!isInstalled(finalDir, version))
		throw new Error(`install finished but ${finalDir} is not complete`);
	return finalDir;
}

/** install.mts for one version in a child process (this process's event loop stays free). */
function installInChildProcess(version: string): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [join(REAL_N8N_DIR, 'install.mts'), version], {
			stdio: ['ignore', 'ignore', 'inherit'],
		});
		child.on('error', reject);
		child.on('exit', (code) =>
			code === 0 ? resolve() : reject(new Error(`installing n8n ${version} exited ${code}`)),
		);
	});
}

/**
 * Installs the versions the cache lacks, all at the same time, each in its own process;
 * resolves to the seconds each install took (none for a cache hit).
 */
export async function ensureInstalledConcurrently(
	versions: string[],
): Promise<Record<string, number>> {
	const seconds: Record<string, number> = {};
	await Promise.all(
		versions.map(async (version) => {
			if (isInstalled(installDir(undefined, version), version)) return;
			const t0 = Date.now();
			log(`installing n8n ${version} in a child process`);
			await installInChildProcess(version);
			seconds[version] = (Date.now() - t0) / 1000;
		}),
	);
	return seconds;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const args = process.argv.slice(2);
	if (args.includes('--matrix')) {
		await ensureInstalledConcurrently(N8N_VERSIONS.map((v) => v.id));
	} else {
		for (const version of args.length ? args : [N8N_VERSION])
			process.stdout.write((await ensureN8nInstalled(version)) + '\n');
	}
}
