// Runs once before the compatibility suite: installs every n8n version of the matrix
// (real-n8n/versions.mts) that the per-user cache lacks, the missing ones at the same
// time as each other and as the build, packs our package, and starts one n8n per version
// with real-n8n/instance.mts: the tarball installed into a throwaway user folder the way
// users install it by hand (`npm install --omit=peer <tarball>` in .n8n/nodes), n8n on its
// own Node with the settings it needs, its owner created.
//
// COMPAT_VERSIONS=1.123.81,2.41.1 runs a part of the matrix (ids of versions.mts's rows).
import type { TestProject } from 'vitest/node';

import { ensureInstalledConcurrently } from '../../real-n8n/install.mts';
import { startInstance, type Instance } from '../../real-n8n/instance.mts';
import { buildAndPack, removePackedTarball } from '../../real-n8n/package-under-test.mts';
import { installDir, installedWithNode } from '../../real-n8n/paths.mts';
import { setupLog } from '../../real-n8n/suites.mts';
import { N8N_VERSIONS, versionFacts } from '../../real-n8n/versions.mts';

export interface CompatInstance {
	/** The row of real-n8n/versions.mts: the n8n version, or `<version>-node<major>`. */
	id: string;
	/** The n8n version. */
	version: string;
	/** The Node that runs it, e.g. v22.23.3. */
	node: string;
	url: string;
	userFolder: string;
	logFile: string;
	ownerCookie: string;
}

declare module 'vitest' {
	export interface ProvidedContext {
		compatInstances: CompatInstance[];
		compatTimings: Record<string, number>;
	}
}

const say = setupLog('compat');

/** The matrix, or the part named by COMPAT_VERSIONS. */
export function selectedVersions(): string[] {
	const all = N8N_VERSIONS.map((v) => v.id);
	const wanted = process.env.COMPAT_VERSIONS?.split(',')
		.map((v) => v.trim())
		.filter(Boolean);
	if (!wanted?.length) return all;
	const unknown = wanted.filter((v) => !all.includes(v));
	if (unknown.length)
		throw new Error(
			`COMPAT_VERSIONS names ${unknown.join(', ')}; the matrix has ${all.join(', ')}`,
		);
	return wanted;
}

const running: Instance[] = [];
const keepFolders = Boolean(process.env.COMPAT_KEEP_FOLDERS);

export default async function setup(project: TestProject) {
	const timings: Record<string, number> = {};
	const since = (t0: number) => (Date.now() - t0) / 1000;
	const versions = selectedVersions();
	const t0 = Date.now();
	const installs = ensureInstalledConcurrently(versions).then((seconds) => {
		for (const [version, s] of Object.entries(seconds)) timings[`install ${version}`] = s;
	});
	// Building while the installs download: the child processes run on their own.
	const packStart = Date.now();
	const tarball = buildAndPack();
	timings['build + npm pack'] = since(packStart);
	await installs;
	timings['installs (wall)'] = since(t0);
	// All n8n processes start at once: each spends much of its start-up waiting on its
	// database, so together they are ready sooner than one after another.
	const starts = Date.now();
	let instances: CompatInstance[];
	try {
		instances = await Promise.all(
			versions.map(async (version): Promise<CompatInstance> => {
				const started = Date.now();
				const instance = await startInstance({
					tarballs: [tarball],
					version,
					folderPrefix: `voucher-compat-${version}-`,
					keepUserFolder: keepFolders,
				});
				running.push(instance);
				const { n8n, rest, userFolder } = instance;
				timings[`start ${version}`] = since(started);
				const node = installedWithNode(installDir(undefined, version)) ?? '?';
				say(`n8n ${version} on Node ${node}: ${n8n.url} (log ${n8n.logFile})`);
				return {
					id: version,
					version: versionFacts(version).version,
					node,
					url: n8n.url,
					userFolder,
					logFile: n8n.logFile,
					ownerCookie: rest.cookie,
				};
			}),
		);
		timings['starts (wall)'] = since(starts);
	} catch (e) {
		await teardown();
		throw e;
	} finally {
		removePackedTarball(tarball);
	}
	project.provide('compatInstances', instances);
	project.provide('compatTimings', timings);
	say(`ready in ${since(t0).toFixed(0)} s: ${JSON.stringify(timings)}`);
	return teardown;
}

async function teardown(): Promise<void> {
	await Promise.all(running.map((instance) => instance.stop()));
	if (keepFolders) say(`kept ${running.map((instance) => instance.userFolder).join(' ')}`);
}
