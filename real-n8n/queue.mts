// n8n 2.41.1 in queue mode: PostgreSQL and Redis (services.mts), one main
// process, two `n8n worker` and two `n8n webhook` processes, each in its own
// user folder (like separate containers) sharing one encryption key, database
// and Redis. examples/docker-compose.queue.yml uses exactly queueEnv()'s variables.
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
} from './n8n.mts';
import {
	ensureQueueServices,
	startPostgres,
	startRedis,
	type Postgres,
	type Redis,
} from './services.mts';

const WORKERS = 2;
const WEBHOOK_PROCESSES = 2;

export interface QueueCluster {
	main: RunningN8n;
	workers: RunningN8n[];
	webhooks: RunningN8n[];
	postgres: Postgres;
	redis: Redis;
	/** Where the package is installed; every process's .n8n/nodes points here. */
	nodesDir: string;
	/** Stops every n8n process, then starts them again on the same ports and folders. */
	restart(): Promise<void>;
	stop(): Promise<void>;
}

/** The variables every process shares: queue mode, Redis, PostgreSQL, one encryption key. */
function queueEnv(postgres: Postgres, redis: Redis): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: '',
		// The editor's "Execute workflow" runs on workers too, not in the main process.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	};
}

interface Role {
	name: string;
	options: StartOptions;
}

function say(msg: string): void {
	process.stderr.write(`[queue] ${msg}\n`);
}

export async function startQueueCluster(opts: { tarball: string }): Promise<QueueCluster> {
	const binDir = ensureQueueServices();
	const [postgres, redis] = await Promise.all([startPostgres(binDir), startRedis()]);
	const root = makeUserFolder('voucher-queue-');
	const nodesDir = join(root, 'nodes');
	await installCommunityPackage(root, opts.tarball);
	// installCommunityPackage installs into <folder>/.n8n/nodes; that folder is the shared one.
	symlinkSync(join(root, '.n8n', 'nodes'), nodesDir);

	const shared = queueEnv(postgres, redis);
	const webhookPorts = await Promise.all(
		Array.from({ length: WEBHOOK_PROCESSES }, () => freePortAvoidingDefaults()),
	);
	const webhookUrl = `http://127.0.0.1:${webhookPorts[0]}/`;
	const role = (name: string, options: StartOptions): Role => {
		const userFolder = join(root, name);
		mkdirSync(join(userFolder, '.n8n'), { recursive: true });
		symlinkSync(nodesDir, join(userFolder, '.n8n', 'nodes'));
		return { name, options: { ...options, userFolder } };
	};
	const mainRole = role('main', {
		port: await freePortAvoidingDefaults(),
		env: {
			...shared,
			// Production webhooks go to the webhook processes only.
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
			N8N_WEBHOOK_URL: webhookUrl,
		},
	});
	const workerRoles = await Promise.all(
		Array.from({ length: WORKERS }, async (_, i) =>
			role(`worker-${i + 1}`, {
				command: 'worker',
				port: await freePortAvoidingDefaults(),
				env: { ...shared, N8N_WEBHOOK_URL: webhookUrl },
			}),
		),
	);
	const webhookRoles = webhookPorts.map((port, i) =>
		role(`webhook-${i + 1}`, {
			command: 'webhook',
			port,
			env: { ...shared, N8N_WEBHOOK_URL: `http://127.0.0.1:${port}/` },
		}),
	);

	let main!: RunningN8n;
	let workers: RunningN8n[] = [];
	let webhooks: RunningN8n[] = [];
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
	const stopAll = async () => {
		await Promise.all([...webhooks, ...workers, main].filter(Boolean).map((p) => p.stop()));
	};
	const cluster: QueueCluster = {
		get main() {
			return main;
		},
		get workers() {
			return workers;
		},
		get webhooks() {
			return webhooks;
		},
		postgres,
		redis,
		nodesDir,
		async restart() {
			await stopAll();
			await startAll();
		},
		async stop() {
			await stopAll().catch(() => {});
			await Promise.all([postgres.stop(), redis.stop()]);
			if (!process.env.E2E_KEEP_N8N_FOLDER) rmSync(root, { recursive: true, force: true });
		},
	};
	try {
		await startAll();
	} catch (e) {
		await cluster.stop();
		throw e;
	}
	return cluster;
}
