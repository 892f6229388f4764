// Runs once before the queue-mode files: installs what a fresh machine lacks
// (n8n into the per-user cache; Debian's redis-server; the embedded
// PostgreSQL 17 is a dev dependency), packs our package, starts PostgreSQL,
// Redis and n8n in queue mode (one main process, two workers, two webhook
// processes, a router in front; real-n8n/queueCluster.mts, which also creates the
// owner account). It provides what test/e2e's files inject, so the
// same files run against the cluster: REST calls go to the main process,
// production webhooks to the webhook processes, executions run on workers.
import type { TestProject } from 'vitest/node';

import { ensureN8nInstalled } from '../../real-n8n/install.mts';
import { buildAndPack, removePackedTarball } from '../../real-n8n/package-under-test.mts';
import { startQueueCluster, type QueueCluster } from '../../real-n8n/queueCluster.mts';
import { checkMachine, provideN8nUnderTest, setupLog } from '../../real-n8n/suites.mts';
import { startRestartControl } from '../e2e/restartControl.mts';

declare module 'vitest' {
	export interface ProvidedContext {
		/** The cluster's PostgreSQL, where a test may also keep its own table. */
		postgres: { host: string; port: number; database: string; user: string };
		/** The router in front of the cluster, as the compose file's proxy service. */
		routerUrl: string;
		/** The main process's log file, and the webhook processes'. */
		queueLogs: { main: string; webhooks: string[] };
	}
}

const say = setupLog('queue');

export default async function setup(project: TestProject) {
	checkMachine('queue');
	const t0 = Date.now();
	await ensureN8nInstalled();
	const tarball = buildAndPack();
	let cluster: QueueCluster | undefined;
	try {
		cluster = await startQueueCluster({ tarball });
	} finally {
		removePackedTarball(tarball);
	}
	say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; main ${cluster.main.url}`);
	const control = await startRestartControl((signal) => cluster!.restart(signal));

	provideN8nUnderTest(project, {
		n8nUrl: cluster.main.url,
		n8nUserFolder: cluster.main.userFolder,
		n8nFilesDir: `${cluster.main.userFolder}/files`,
		ownerCookie: cluster.rest.cookie,
		timings: {},
		webhookUrls: cluster.webhooks.map((w) => w.url),
		restartUrl: control.url,
		executorLogs: cluster.workers.map((w) => w.logFile),
	});
	const { host, port, database, user } = cluster.postgres;
	project.provide('postgres', { host, port, database, user });
	project.provide('routerUrl', cluster.router.url);
	project.provide('queueLogs', {
		main: cluster.main.logFile,
		webhooks: cluster.webhooks.map((w) => w.logFile),
	});

	return async () => {
		await control.close();
		await cluster?.stop();
		say(`stopped; whole run ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	};
}
