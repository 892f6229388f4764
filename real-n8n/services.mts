// PostgreSQL and Redis for n8n's queue mode, as plain child processes on free
// loopback ports in throwaway folders. No service manager: Debian's packages
// are installed by scripts/ensure-queue-services.sh, which prints the folder
// of PostgreSQL's binaries. PostgreSQL refuses to run as root, so as root
// initdb and pg_ctl run as the `postgres` user that Debian's package creates.
//
//   const pg = await startPostgres();    // { host, port, database, user, stop() }
//   const redis = await startRedis();    // { host, port, stop() }
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortAvoidingDefaults } from './n8n.mts';
import { REPO_ROOT } from './paths.mts';

export interface Postgres {
	host: string;
	port: number;
	database: string;
	user: string;
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

/** Installs the Debian packages when missing; returns PostgreSQL's bin folder. */
export function ensureQueueServices(): string {
	const r = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'ensure-queue-services.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	if (r.status !== 0) throw new Error(`ensure-queue-services.sh exited ${r.status}`);
	return r.stdout.trim().split('\n').pop()!;
}

const isRoot = () => process.getuid?.() === 0;

/** As root, the command runs as the `postgres` user; otherwise as ourselves. */
function asPostgresUser(cmd: string, args: string[]): [string, string[]] {
	return isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

function run(cmd: string, args: string[]): void {
	const [c, a] = asPostgresUser(cmd, args);
	const r = spawnSync(c, a, { encoding: 'utf8', cwd: tmpdir() });
	if (r.status !== 0) {
		throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stderr}\n${r.stdout}`);
	}
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

async function waitForPort(port: number, what: string, timeoutMs = 30_000): Promise<void> {
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

async function stopPid(
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
 * /var/run/postgresql, so several suites can run side by side.
 */
export async function startPostgres(binDir: string): Promise<Postgres> {
	const dataDir = mkdtempSync(join(tmpdir(), 'voucher-pg-'));
	if (isRoot()) {
		const { uid, gid } = postgresUid();
		chownSync(dataDir, uid, gid);
	}
	const port = await freePortAvoidingDefaults();
	const user = 'n8n';
	run(join(binDir, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', user, '-E', 'UTF8']);
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
		run(join(binDir, 'createdb'), ['-h', HOST, '-p', String(port), '-U', user, 'n8n']);
	} catch (e) {
		await stop();
		throw e;
	}
	return { host: HOST, port, database: 'n8n', user, dataDir, stop };
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
