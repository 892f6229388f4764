// What the real-n8n suites (test/e2e, test/compat, test/install, test/queue) share: their vitest
// settings, their setup's log line, and the n8n under test that the e2e files inject, which the
// e2e setup provides from one n8n and the queue setup from its cluster, so that the same files
// run against either.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { defineConfig, type ViteUserConfig } from 'vitest/config';
import type { TestProject } from 'vitest/node';

import { REPO_ROOT } from './paths.mts';
import { OWNER } from './rest.mts';

/** What the e2e files inject (test/e2e/n8nUnderTest.mts), but the owner, which is always OWNER. */
export interface N8nUnderTest {
	n8nUrl: string;
	n8nUserFolder: string;
	/** n8n may read files here (N8N_RESTRICT_FILE_ACCESS_TO). */
	n8nFilesDir: string;
	/** The owner's session: files share it, as n8n allows only 5 logins a minute. */
	ownerCookie: string;
	timings: Record<string, number>;
	/** Base URLs that serve production webhooks (the webhook processes in queue mode). */
	webhookUrls: string[];
	/** POST here to restart every n8n process (see test/e2e/restartControl.mts). */
	restartUrl: string;
	/** Log files of the processes that run executions (the workers in queue mode). */
	executorLogs: string[];
}

declare module 'vitest' {
	export interface ProvidedContext extends N8nUnderTest {
		owner: typeof OWNER;
	}
}

/**
 * A suite's vitest config: paths from the repository's root, and its files one after another in
 * forked processes, as they share the n8n its global setup started.
 */
export function realN8nSuiteConfig(test: {
	include: string[];
	globalSetup: string;
	testTimeout: number;
	hookTimeout: number;
}): ViteUserConfig {
	return defineConfig({
		root: REPO_ROOT,
		test: {
			include: test.include,
			globalSetup: [test.globalSetup],
			fileParallelism: false,
			pool: 'forks',
			testTimeout: test.testTimeout,
			hookTimeout: test.hookTimeout,
			teardownTimeout: 60_000,
			reporters: ['default'],
		},
	});
}

/** A global setup's progress on stderr, marked with its suite. */
export function setupLog(suite: string): (msg: string) => void {
	return (msg) => process.stderr.write(`[${suite} setup] ${msg}\n`);
}

/** Provides what the e2e files inject, the owner included. */
export function provideN8nUnderTest(project: TestProject, n8n: N8nUnderTest): void {
	project.provide('n8nUrl', n8n.n8nUrl);
	project.provide('n8nUserFolder', n8n.n8nUserFolder);
	project.provide('n8nFilesDir', n8n.n8nFilesDir);
	project.provide('owner', OWNER);
	project.provide('ownerCookie', n8n.ownerCookie);
	project.provide('timings', n8n.timings);
	project.provide('webhookUrls', n8n.webhookUrls);
	project.provide('restartUrl', n8n.restartUrl);
	project.provide('executorLogs', n8n.executorLogs);
}

/**
 * Stops a suite's setup at once where the machine lacks what it needs and apt-get cannot install
 * it: scripts/check-machine.sh has then printed each missing thing and how to get it, so the
 * error adds no stack trace to those lines.
 */
export function checkMachine(suite: 'e2e' | 'queue'): void {
	const r = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'check-machine.sh'), suite], {
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	if (r.status === 0) return;
	const error = new Error(`this machine lacks what test/${suite} needs: see the lines above`);
	error.stack = error.message;
	throw error;
}
