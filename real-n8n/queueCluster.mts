// n8n 2.41.1 in queue mode: PostgreSQL 17 and Redis (services.mts), one main
// process, two `n8n worker` and two `n8n webhook` processes, each in its own
// user folder (like separate containers) sharing one encryption key, database
// and Redis, and a router in front (proxy.mts) that sends WEBHOOK_PROCESS_PATHS
// to the webhook processes and everything else to main.
//
// examples/docker-compose.queue.yml is the same deployment in Docker. The
// constants below are the one source of truth for what both must agree on:
// roles and their numbers, the settings every process shares, the main
// process's own, the variables whose values are per deployment, and the
// router's table. test/deployment/queueCompose.test.mts fails when the
// compose file says otherwise.
//
// The package reaches every process the way n8n documents a manual install
// for queue mode: it is npm-installed once into a `nodes` folder that every
// process mounts as <userFolder>/.n8n/nodes (a symlink here, a shared volume
// in the compose file). Each process loads it at start-up.
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
	freePortAvoidingDefaults,
	installCommunityPackage,
	makeUserFolder,
	startN8n,
	type RunningN8n,
	type StartOptions,
	type StopSignal,
} from './n8n.mts';
import { ownerSession } from './instance.mts';
import { startRouter, type Router } from './proxy.mts';
import type { N8nRest } from './rest.mts';
import {
	ensureQueueServices,
	startPostgres,
	startRedis,
	type Postgres,
	type Redis,
} from './services.mts';

/** The n8n processes by role: the command each runs and how many there are. */
export const QUEUE_ROLES = {
	main: { command: 'start', count: 1 },
	worker: { command: 'worker', count: 2 },
	webhook: { command: 'webhook', count: 2 },
} as const;

const WORKERS = QUEUE_ROLES.worker.count;
const WEBHOOK_PROCESSES = QUEUE_ROLES.webhook.count;

/** Settings with the same value in every n8n process, here and in the compose file. */
export const QUEUE_SETTINGS = {
	EXECUTIONS_MODE: 'queue',
	DB_TYPE: 'postgresdb',
	// The editor's "Execute workflow" runs on workers too, not in the main process.
	// n8n's v3 upgrade check (offload-manual-executions.rule.js) asks for it.
	OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
	// This package is not verified by n8n; the default flips to false in n8n's
	// next major (unverified-packages.rule.js), so it is set explicitly.
	N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
	// The package is installed by hand into the shared nodes folder, not from
	// the database's list; nothing to reinstall at start-up.
	N8N_REINSTALL_MISSING_PACKAGES: 'false',
	// One router in front, which sets X-Forwarded-For.
	N8N_PROXY_HOPS: '1',
} as const;

/** Settings only the main process has. */
export const MAIN_SETTINGS = {
	// Production webhooks go to the webhook processes only.
	N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
} as const;

/** Settings only the workers have: their /healthz, used by the compose file's health check. */
export const WORKER_SETTINGS = {
	QUEUE_HEALTH_CHECK_ACTIVE: 'true',
} as const;

/**
 * Settings only the webhook processes have. The trigger at node version 2 makes n8n
 * evaluate nothing per delivery, so with lazy acquire its deliveries take no expression
 * isolate (bench:queue: 1.12 × the Webhook node route's time with it, 1.51 × without).
 * Workers evaluate in every execution and would gain nothing.
 */
export const WEBHOOK_SETTINGS = {
	N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true',
} as const;

/**
 * Variables every n8n process has, with one value per deployment (addresses,
 * names, secrets): the same in all processes, but not the same here as in
 * the compose file.
 */
export const QUEUE_DEPLOYMENT_VARIABLES = [
	'QUEUE_BULL_REDIS_HOST',
	'QUEUE_BULL_REDIS_PORT',
	'DB_POSTGRESDB_HOST',
	'DB_POSTGRESDB_PORT',
	'DB_POSTGRESDB_DATABASE',
	'DB_POSTGRESDB_USER',
	'DB_POSTGRESDB_PASSWORD',
	// Workers decrypt credentials with it: one key everywhere.
	'N8N_ENCRYPTION_KEY',
	// The public address of the router (n8n 2.x; 1.x reads WEBHOOK_URL).
	'N8N_WEBHOOK_URL',
] as const;

/**
 * The path prefixes a webhook process serves (n8n 2.41.1, abstract-server.js:
 * production webhooks, forms, the Wait node's resume URLs, MCP Server
 * Trigger). The router sends these to the webhook processes and everything
 * else (the editor, /rest/, /webhook-test/, /form-test/, /mcp-test/) to main.
 */
export const WEBHOOK_PROCESS_PATHS = [
	'/webhook/',
	'/webhook-waiting/',
	'/form/',
	'/form-waiting/',
	'/mcp/',
] as const;

const ENCRYPTION_KEY = 'voucher-service-queue-not-a-secret';

export interface QueueCluster {
	main: RunningN8n;
	workers: RunningN8n[];
	webhooks: RunningN8n[];
	/** The router in front: N8N_WEBHOOK_URL of every process. */
	router: Router;
	postgres: Postgres;
	redis: Redis;
	/** Where the package is installed; every process's .n8n/nodes points here. */
	nodesDir: string;
	/** The main process's REST API, logged in as the owner. */
	rest: N8nRest;
	/** Stops every n8n process, then starts them again on the same ports and folders. */
	restart(signal?: StopSignal): Promise<void>;
	stop(): Promise<void>;
}

/** The variables every process shares: QUEUE_SETTINGS and this deployment's values. */
function queueEnv(postgres: Postgres, redis: Redis, router: Router): Record<string, string> {
	const deployment: Record<(typeof QUEUE_DEPLOYMENT_VARIABLES)[number], string> = {
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: '',
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_WEBHOOK_URL: `${router.url}/`,
	};
	return { ...QUEUE_SETTINGS, ...deployment };
}

interface Role {
	name: string;
	options: StartOptions;
}

function say(msg: string): void {
	process.stderr.write(`[queue] ${msg}\n`);
}

export async function startQueueCluster(opts: {
	tarball: string;
	/** Settings for the webhook processes only, on top of the shared ones and WEBHOOK_SETTINGS. */
	webhookEnv?: Record<string, string>;
}): Promise<QueueCluster> {
	const binDir = ensureQueueServices();
	const [postgres, redis] = await Promise.all([startPostgres(binDir), startRedis()]);
	say(`PostgreSQL ${postgres.version} on ${postgres.port}, Redis on ${redis.port}`);
	const root = makeUserFolder('voucher-queue-');
	const nodesDir = join(root, 'nodes');
	await installCommunityPackage(root, opts.tarball);
	// installCommunityPackage installs into <folder>/.n8n/nodes; that folder is the shared one.
	symlinkSync(join(root, '.n8n', 'nodes'), nodesDir);

	let main!: RunningN8n;
	let workers: RunningN8n[] = [];
	let webhooks: RunningN8n[] = [];
	const router = await startRouter({
		main: () => main.url,
		webhooks: () => webhooks.map((w) => w.url),
		webhookPaths: WEBHOOK_PROCESS_PATHS,
	});
	const shared = queueEnv(postgres, redis, router);
	const webhookPorts = await Promise.all(
		Array.from({ length: WEBHOOK_PROCESSES }, () => freePortAvoidingDefaults()),
	);
	const role = (name: string, options: StartOptions): Role => {
		const userFolder = join(root, name);
		mkdirSync(join(userFolder, '.n8n'), { recursive: true });
		symlinkSync(nodesDir, join(userFolder, '.n8n', 'nodes'));
		return { name, options: { ...options, userFolder } };
	};
	const mainRole = role('main', {
		port: await freePortAvoidingDefaults(),
		env: { ...shared, ...MAIN_SETTINGS },
	});
	const workerRoles = await Promise.all(
		Array.from({ length: WORKERS }, async (_, i) =>
			role(`worker-${i + 1}`, {
				command: 'worker',
				port: await freePortAvoidingDefaults(),
				env: { ...shared, ...WORKER_SETTINGS },
			}),
		),
	);
	const webhookRoles = webhookPorts.map((port, i) =>
		role(`webhook-${i + 1}`, {
			command: 'webhook',
			port,
			env: { ...shared, ...WEBHOOK_SETTINGS, ...opts.webhookEnv },
		}),
	);

	const startAll = async () => {
		const t0 = Date.now();
		// The main process migrates the database; the others start once it is ready, together.
		main = await startN8n(mainRole.options);
		[workers, webhooks] = await Promise.all([
			Promise.all(workerRoles.map((r) => startN8n(r.options))),
			Promise.all(webhookRoles.map((r) => startN8n(r.options))),
		]);
		say(
			`main, ${WORKERS} workers, ${WEBHOOK_PROCESSES} webhook processes up in ${Date.now() - t0} ms`,
		);
	};
	const stopAll = async (signal?: StopSignal) => {
		await Promise.all([...webhooks, ...workers, main].filter(Boolean).map((p) => p.stop(signal)));
	};
	const cluster: Omit<QueueCluster, 'rest'> = {
		get main() {
			return main;
		},
		get workers() {
			return workers;
		},
		get webhooks() {
			return webhooks;
		},
		router,
		postgres,
		redis,
		nodesDir,
		async restart(signal) {
			await stopAll(signal);
			await startAll();
		},
		async stop() {
			await stopAll().catch(() => {});
			await Promise.all([router.close(), postgres.stop(), redis.stop()]);
			if (!process.env.E2E_KEEP_N8N_FOLDER) rmSync(root, { recursive: true, force: true });
		},
	};
	try {
		await startAll();
		return Object.assign(cluster, { rest: await ownerSession(main.url) });
	} catch (e) {
		await cluster.stop();
		throw e;
	}
}
