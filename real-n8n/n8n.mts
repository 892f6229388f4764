// Starts and stops a real n8n from the cached install (see install.mts), of the version
// the full suites use or of any version in versions.mts, on that version's Node and with
// the settings it needs there.
//
//   const n8n = await startN8n({ userFolder });   // free loopback port, waits for /healthz
//   const old = await startN8n({ version: '1.85.3' });
//   ...
//   await n8n.stop();                             // SIGTERM by pid, then SIGKILL of its group
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { envFor, ensureNode } from './node.mts';
import { N8N_VERSION, installDir, isInstalled, n8nBin } from './paths.mts';
import { versionFacts } from './versions.mts';

export interface StartOptions {
	/** An n8n version of versions.mts; the full suites' version by default. */
	version?: string;
	/**
	 * `start` (the main process, the default), `worker` or `webhook` (queue mode).
	 * A worker serves only its health check, on `port`.
	 */
	command?: 'start' | 'worker' | 'webhook';
	/** Arguments after the command, e.g. ['--concurrency=5']. */
	args?: string[];
	/** Throwaway by default (a new temp folder). n8n keeps its data in <userFolder>/.n8n */
	userFolder?: string;
	/** Port for the editor, REST API and webhooks; a free one by default. */
	port?: number;
	/** Extra environment (wins over the defaults below). */
	env?: Record<string, string>;
	/** A folder put first on n8n's PATH, e.g. one with an `npm` stand-in (npm-shim.mts). */
	pathFirst?: string;
	/** Milliseconds to wait for /healthz. */
	timeoutMs?: number;
	/** Echo n8n's output to this process's stderr as well as to the log file. */
	echo?: boolean;
}

export interface RunningN8n {
	version: string;
	url: string;
	port: number;
	userFolder: string;
	pid: number;
	logFile: string;
	/** Last lines of n8n's output. */
	logTail(lines?: number): string;
	/** SIGTERM and a wait for a clean exit; with SIGKILL, a crash (nothing is finished or saved). */
	stop(signal?: StopSignal): Promise<void>;
}

export type StopSignal = 'SIGTERM' | 'SIGKILL';

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address() as { port: number };
			srv.close(() => resolve(port));
		});
	});
}

export function portIsFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const srv = createServer();
		srv.unref();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

/** A free port other than n8n's defaults (5678 editor, 5679 task broker). */
export async function freePortAvoidingDefaults(): Promise<number> {
	for (;;) {
		const p = await freePort();
		if (p !== 5678 && p !== 5679) return p;
	}
}

export function makeUserFolder(prefix = 'voucher-n8n-'): string {
	return mkdtempSync(join(tmpdir(), prefix));
}

/** The environment that makes n8n (of `version`) quiet, local and testable. */
function n8nEnv(
	port: number,
	brokerPort: number,
	userFolder: string,
	version = N8N_VERSION,
): Record<string, string> {
	const facts = versionFacts(version);
	return {
		// vitest sets NODE_ENV=test, with which n8n exits at once without a word.
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		// 2.x reads N8N_WEBHOOK_URL (then WEBHOOK_URL), 1.x only WEBHOOK_URL.
		[facts.webhookUrlVariable]: `http://127.0.0.1:${port}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ONBOARDING_FLOW_DISABLED: 'true',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_ENCRYPTION_KEY: 'voucher-service-e2e-not-a-secret',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		DB_TYPE: 'sqlite',
		DB_SQLITE_POOL_SIZE: '4',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		NO_COLOR: '1',
		// What this version needs here (versions.mts), e.g. 2.x's mcp-registry module off.
		...facts.env,
	};
}

/**
 * Waits for n8n's health check and, for a main process (`rest`), for its REST API: n8n
 * 1.85 answers /healthz (and 404 for /healthz/readiness) before it has mounted /rest.
 */
async function waitForHealth(
	url: string,
	child: ChildProcess,
	timeoutMs: number,
	tail: () => string,
	rest: boolean,
): Promise<void> {
	const restUp = async () =>
		!rest ||
		(await fetch(`${url}/rest/settings`, { signal: AbortSignal.timeout(2000) })).status === 200;
	const deadline = Date.now() + timeoutMs;
	let exited: string | undefined;
	child.once('exit', (code, sig) => (exited = `n8n exited early (${code ?? sig})`));
	while (Date.now() < deadline) {
		if (exited) throw new Error(`${exited}\n${tail()}`);
		try {
			const res = await fetch(`${url}/healthz/readiness`, { signal: AbortSignal.timeout(2000) });
			if (res.ok && (await restUp())) return;
			// n8n without readiness endpoint: fall back to /healthz
			if (res.status === 404) {
				const h = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
				if (h.ok && (await restUp())) return;
			}
		} catch {
			/* not listening yet */
		}
		await new Promise((r) => setTimeout(r, 500));
	}
	throw new Error(`n8n did not become healthy within ${timeoutMs} ms\n${tail()}`);
}

export async function startN8n(opts: StartOptions = {}): Promise<RunningN8n> {
	const version = opts.version ?? N8N_VERSION;
	const dir = installDir(undefined, version);
	if (!isInstalled(dir, version)) {
		throw new Error(
			`n8n ${version} is not installed in ${dir}; run: bash scripts/with-node24.sh node real-n8n/install.mts ${version}`,
		);
	}
	const node = ensureNode(versionFacts(version).nodeMajor);
	const userFolder = opts.userFolder ?? makeUserFolder();
	mkdirSync(userFolder, { recursive: true });
	const port = opts.port ?? (await freePortAvoidingDefaults());
	let brokerPort = await freePortAvoidingDefaults();
	while (brokerPort === port) brokerPort = await freePortAvoidingDefaults();
	const logFile = join(userFolder, 'n8n.log');
	const log = createWriteStream(logFile, { flags: 'a' });
	const command = opts.command ?? 'start';
	const workerHealth: Record<string, string> =
		command === 'worker'
			? {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(port),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				}
			: {};
	const env = {
		...envFor(node),
		...n8nEnv(port, brokerPort, userFolder, version),
		...workerHealth,
		...opts.env,
	};
	if (opts.pathFirst) env.PATH = `${opts.pathFirst}${delimiter}${env.PATH ?? ''}`;
	// The child leads its own process group, so stop() can reach n8n's task
	// runner too -- by this pid, never by a process name.
	const child = spawn(node.bin, [n8nBin(dir), command, ...(opts.args ?? [])], {
		cwd: userFolder,
		env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	// If this process dies without calling stop(), take n8n (and its runner) along.
	const killOnExit = () => {
		try {
			process.kill(-child.pid!, 'SIGKILL');
		} catch {
			/* gone */
		}
	};
	process.once('exit', killOnExit);
	let buf = '';
	const onData = (d: Buffer) => {
		log.write(d);
		buf = (buf + d.toString()).slice(-20000);
		if (opts.echo) process.stderr.write(d);
	};
	child.stdout!.on('data', onData);
	child.stderr!.on('data', onData);
	const logTail = (lines = 40) => buf.split('\n').slice(-lines).join('\n');
	const url = `http://127.0.0.1:${port}`;
	let stopped: Promise<void> | undefined;
	const stop = (signal: StopSignal = 'SIGTERM'): Promise<void> => {
		stopped ??= (async () => {
			if (child.exitCode === null && child.signalCode === null) {
				const exit = new Promise<void>((r) => child.once('exit', () => r()));
				try {
					process.kill(child.pid!, signal);
				} catch {
					/* already gone */
				}
				const timedOut = await Promise.race([
					exit.then(() => false),
					new Promise<boolean>((r) => setTimeout(() => r(true), 20_000).unref()),
				]);
				if (timedOut) {
					try {
						process.kill(-child.pid!, 'SIGKILL');
					} catch {
						/* gone */
					}
					await exit;
				}
			}
			// Reap anything left in n8n's process group (its task runner).
			try {
				process.kill(-child.pid!, 'SIGKILL');
			} catch {
				/* group empty */
			}
			process.removeListener('exit', killOnExit);
			log.end();
		})();
		return stopped;
	};
	try {
		await waitForHealth(url, child, opts.timeoutMs ?? 180_000, logTail, command === 'start');
	} catch (e) {
		await stop();
		throw e;
	}
	return { version, url, port, userFolder, pid: child.pid!, logFile, logTail, stop };
}

/**
 * Runs an n8n command (`import:workflow`, `publish:workflow`, …) on the data in `userFolder`,
 * with the settings startN8n gives n8n there, as a user runs it beside their n8n; its output.
 */
export async function runN8nCommand(
	userFolder: string,
	args: string[],
	version = N8N_VERSION,
): Promise<string> {
	const node = ensureNode(versionFacts(version).nodeMajor);
	// A command listens on no port; the ports only complete the settings.
	const env = { ...envFor(node), ...n8nEnv(0, 0, userFolder, version) };
	return await runCommand(
		node.bin,
		[n8nBin(installDir(undefined, version)), ...args],
		userFolder,
		env,
	);
}

/**
 * Installs a community package tarball the way n8n's docs describe a manual
 * install: `npm install <package>` inside <userFolder>/.n8n/nodes. Peer
 * dependencies are left out (n8n provides n8n-workflow; its own GUI installer
 * strips peerDependencies before installing too). `--legacy-peer-deps` does
 * that without resolving the peer tree from the registry: 2 s instead of 10 s.
 */
export async function installCommunityPackage(userFolder: string, tarball: string): Promise<void> {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	const pkgJson = join(nodesDir, 'package.json');
	if (!existsSync(pkgJson)) {
		writeFileSync(
			pkgJson,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	}
	await runCommand(
		'npm',
		[
			'install',
			'--omit=peer',
			'--legacy-peer-deps',
			'--no-audit',
			'--no-fund',
			'--ignore-scripts',
			'--loglevel=warn',
			tarball,
		],
		nodesDir,
	);
}

function runCommand(
	cmd: string,
	args: string[],
	cwd: string,
	env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '';
		let err = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (err += d));
		child.on('error', reject);
		child.on('exit', (code) => {
			if (code === 0) resolve(out);
			else
				reject(
					new Error(
						`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code}\n${err.slice(-4000)}\n${out.slice(-2000)}`,
					),
				);
		});
	});
}
