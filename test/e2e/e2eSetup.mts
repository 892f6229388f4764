// Runs once before the e2e files: installs what a fresh machine lacks (n8n
// into the per-user cache, Debian's chromium), packs our package and starts one
// n8n for all files with real-n8n/instance.mts (the tarball installed into a
// throwaway user folder like a manual community-package install, the owner
// account created).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import type { TestProject } from 'vitest/node';

import { ensureN8nInstalled } from '../../real-n8n/install.mts';
import { startInstance, type Instance, type InstanceStep } from '../../real-n8n/instance.mts';
import { buildAndPack, removePackedTarball } from '../../real-n8n/package-under-test.mts';
import { REPO_ROOT } from '../../real-n8n/paths.mts';
import { checkMachine, provideN8nUnderTest, setupLog } from '../../real-n8n/suites.mts';
import { startRestartControl } from './restartControl.mts';

const say = setupLog('e2e');

async function timed<T>(
	label: string,
	timings: Record<string, number>,
	fn: () => Promise<T> | T,
): Promise<T> {
	const t0 = Date.now();
	const result = await fn();
	timings[label] = (Date.now() - t0) / 1000;
	say(`${label}: ${timings[label].toFixed(1)} s`);
	return result;
}

function ensureChromium(): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn('bash', [join(REPO_ROOT, 'scripts', 'ensure-chromium.sh')], {
			stdio: ['ignore', 'inherit', 'inherit'],
		});
		child.on('error', reject);
		child.on('exit', (code) =>
			code === 0 ? resolve() : reject(new Error(`ensure-chromium.sh exited ${code}`)),
		);
	});
}

/** The steps of startInstance that the timings list, by their label there. */
const TIMED_STEPS: Partial<Record<InstanceStep, string>> = {
	'install package': 'install tarball into .n8n/nodes',
	start: 'n8n start',
};

export default async function setup(project: TestProject) {
	checkMachine('e2e');
	const timings: Record<string, number> = {};
	// The browser installs in the background (apt-get, a child process) while
	// n8n is installed (a cache hit is instant) and our package is packed.
	const chromium = timed('chromium (background)', timings, ensureChromium);
	await timed('n8n install', timings, ensureN8nInstalled);
	const tarball = await timed('build + npm pack', timings, () => buildAndPack());
	let instance: Instance;
	try {
		instance = await startInstance({
			tarballs: [tarball],
			folderPrefix: 'voucher-e2e-n8n-',
			restrictFileAccess: true,
			keepUserFolder: Boolean(process.env.E2E_KEEP_N8N_FOLDER),
			step: (step, run) => {
				const label = TIMED_STEPS[step];
				return label ? timed(label, timings, run) : run();
			},
		});
	} finally {
		removePackedTarball(tarball);
	}
	const { n8n, rest, userFolder, filesDir } = instance;
	say(`n8n ${n8n.url} (pid ${n8n.pid}, user folder ${userFolder}, log ${n8n.logFile})`);
	await chromium.catch((e) => say(`chromium unavailable: ${(e as Error).message}`));
	const control = await startRestartControl((signal) => instance.restart(signal));

	provideN8nUnderTest(project, {
		n8nUrl: n8n.url,
		n8nUserFolder: userFolder,
		n8nFilesDir: filesDir,
		ownerCookie: rest.cookie,
		timings,
		webhookUrls: [n8n.url],
		restartUrl: control.url,
		executorLogs: [n8n.logFile],
	});

	return async () => {
		const t0 = Date.now();
		await control.close();
		await instance.stop();
		say(`n8n stopped in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
		if (process.env.E2E_KEEP_N8N_FOLDER) say(`kept ${userFolder}`);
	};
}
