// Installs the pinned n8n (real-n8n/package.json + package-lock.json) into
//   ${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-voucher-service/n8n-<version>/<key>/
// where <key> hashes the manifest and the lock. Run it with Node 24 first on
// PATH and npm_config_nodedir set (scripts/with-node24.sh does both):
//   bash scripts/with-node24.sh node real-n8n/install.mts
//
// Idempotent: returns at once when the marker file exists. Safe against
// partial installs: it installs into a staging folder, renames it into place,
// and writes the marker last; a folder without the marker is removed and
// redone. A lock folder keeps two concurrent runs from racing.
//
// Why these steps (see the project's toolchain notes):
// - `--ignore-scripts`: n8n's optional @confluentinc/kafka-javascript wants
//   to download a binary or build against libcurl/zstd; neither works here.
// - `npm rebuild sqlite3 isolated-vm`: the two native modules n8n needs,
//   built offline against the Node 24 headers (npm_config_nodedir).
// - the `linkedom` override in real-n8n/package.json: 0.18.15 needs a package
//   the registry lacks.
import { execFileSync, spawnSync } from 'node:child_process';
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
import {
	REAL_N8N_DIR,
	MARKER,
	N8N_VERSION,
	installDir,
	installKey,
	isInstalled,
	n8nBin,
	versionDir,
} from './paths.mts';

const NATIVE = ['sqlite3', 'isolated-vm'];

function log(msg: string): void {
	process.stderr.write(`[n8n-install] ${msg}\n`);
}

function run(cmd: string, args: string[], cwd: string): void {
	log(`${cmd} ${args.join(' ')}  (in ${cwd})`);
	const r = spawnSync(cmd, args, {
		cwd,
		stdio: ['ignore', 'inherit', 'inherit'],
		env: process.env,
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

export async function ensureN8nInstalled(): Promise<string> {
	const dir = installDir();
	if (isInstalled(dir)) return dir;
	const major = Number(process.versions.node.split('.')[0]);
	if (major < 24)
		throw new Error(`n8n ${N8N_VERSION} needs Node 24; run via scripts/with-node24.sh`);
	if (!process.env.npm_config_nodedir) {
		throw new Error('npm_config_nodedir is not set; run via scripts/with-node24.sh');
	}
	mkdirSync(versionDir(), { recursive: true });
	const key = installKey();
	await withLock(join(versionDir(), `.lock-${key}`), () => {
		if (isInstalled(dir)) return;
		const t0 = Date.now();
		if (existsSync(dir)) {
			log(`removing incomplete install ${dir}`);
			rmSync(dir, { recursive: true, force: true });
		}
		const staging = join(versionDir(), `.staging-${key}-${process.pid}`);
		rmSync(staging, { recursive: true, force: true });
		mkdirSync(staging, { recursive: true });
		copyFileSync(join(REAL_N8N_DIR, 'package.json'), join(staging, 'package.json'));
		const lock = join(REAL_N8N_DIR, 'package-lock.json');
		const common = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'];
		if (existsSync(lock)) {
			// `npm install` with the lock, not `npm ci`: npm 11 leaves optional platform
			// packages (@msgpackr-extract/*) out of the lock it writes, and `npm ci`
			// then refuses that very lock. `npm install` keeps every locked version.
			copyFileSync(lock, join(staging, 'package-lock.json'));
			run('npm', ['install', ...common], staging);
		} else {
			log('real-n8n/package-lock.json is missing: resolving a new one (commit it afterwards)');
			run('npm', ['install', ...common], staging);
			copyFileSync(join(staging, 'package-lock.json'), lock);
		}
		run(
			'npm',
			['rebuild', ...NATIVE, '--ignore-scripts=false', '--foreground-scripts=false'],
			staging,
		);
		// Keying by the lock written above (bootstrap case) keeps the next run a hit.
		const finalDir = installDir(installKey());
		rmSync(finalDir, { recursive: true, force: true });
		renameSync(staging, finalDir);
		// Smoke check: the binary loads on this Node.
		const version = execFileSync(process.execPath, [n8nBin(finalDir), '--version'], {
			cwd: finalDir,
			encoding: 'utf8',
			env: { ...process.env, N8N_USER_FOLDER: join(finalDir, '.smoke-user') },
		}).trim();
		rmSync(join(finalDir, '.smoke-user'), { recursive: true, force: true });
		writeFileSync(
			join(finalDir, MARKER),
			JSON.stringify({ n8n: version, node: process.version, seconds: (Date.now() - t0) / 1000 }) +
				'\n',
		);
		log(`n8n ${version} installed in ${finalDir} in ${Math.round((Date.now() - t0) / 1000)} s`);
	});
	const finalDir = installDir();
	if (!isInstalled(finalDir)) throw new Error(`install finished but ${finalDir} is not complete`);
	return finalDir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const dir = await ensureN8nInstalled();
	process.stdout.write(dir + '\n');
}
