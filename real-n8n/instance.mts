// The one way to start a real n8n with our package, for the e2e and compatibility suites,
// the benchmarks and the demo (queueCluster.mts starts its processes itself, one level down, and
// shares ownerSession()):
//
//   await ensureN8nInstalled(version);            // install.mts: cached per user
//   const tarball = buildAndPack();               // package-under-test.mts: what users install
//   const instance = await startInstance({ tarballs: [tarball], version });
//   removePackedTarball(tarball);                 // installed; no longer needed
//   await sandboxApiCredential(instance.rest, sandbox, 'Voucher');   // fixtures.mts
//   ...
//   await instance.stop();                        // n8n, then its user folder
//
// startInstance makes a throwaway user folder, npm-installs each tarball into its
// .n8n/nodes the way users install a community package by hand, starts n8n (the version's
// own Node and settings, versions.mts) and sets up the owner account. When a step fails it
// stops what it started and removes the folder before it rethrows.
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import {
	installCommunityPackage,
	makeUserFolder,
	startN8n,
	type RunningN8n,
	type StopSignal,
} from './n8n.mts';
import { N8N_VERSION } from './paths.mts';
import { N8nRest, OWNER } from './rest.mts';

/** The steps of startInstance, in order, as `step` sees them. */
export type InstanceStep = 'install package' | 'start' | 'owner';

export interface InstanceOptions {
	/**
	 * Packed packages (`npm pack` tarballs), installed into .n8n/nodes in this order; none for
	 * an n8n that installs from its editor.
	 */
	tarballs: string[];
	/** A row of versions.mts; the full suites' version by default. */
	version?: string;
	/** Prefix of the throwaway user folder's name (in the system's temp folder). */
	folderPrefix?: string;
	/** Port for the editor, REST API and webhooks; a free one by default. */
	port?: number;
	/** Extra environment for n8n (wins over real-n8n's defaults). */
	env?: Record<string, string>;
	/** A folder put first on n8n's PATH, e.g. one with an `npm` stand-in (npm-shim.mts). */
	pathFirst?: string;
	/** Lets n8n read and write files only in `filesDir` (N8N_RESTRICT_FILE_ACCESS_TO). */
	restrictFileAccess?: boolean;
	/** Echo n8n's output to this process's stderr too. */
	echo?: boolean;
	/** Leave the user folder in place when the instance stops (to look at it). */
	keepUserFolder?: boolean;
	/** Runs each step; a caller times them or prints progress. By default, just runs it. */
	step?: <T>(step: InstanceStep, run: () => Promise<T>) => Promise<T>;
}

export interface Instance {
	/** The running n8n; a new process (same folder, port and settings) after restart(). */
	readonly n8n: RunningN8n;
	/** A REST client logged in as the owner (OWNER of rest.mts). */
	readonly rest: N8nRest;
	readonly userFolder: string;
	/** <userFolder>/files: where n8n may read files when `restrictFileAccess` is set. */
	readonly filesDir: string;
	/** Stops n8n (SIGKILL: kills it, as a crash would) and starts it again on the same port, folder and settings. */
	restart(signal?: StopSignal): Promise<void>;
	/** Stops n8n and removes its user folder (unless `keepUserFolder`). */
	stop(): Promise<void>;
}

/** A REST client for the n8n at `url`, logged in as the owner (created on a fresh n8n). */
export async function ownerSession(url: string, version = N8N_VERSION): Promise<N8nRest> {
	const rest = new N8nRest(url, version);
	await rest.ensureOwner(OWNER);
	if (!rest.cookie) throw new Error(`n8n ${version} at ${url}: no session cookie for the owner`);
	return rest;
}

export async function startInstance(opts: InstanceOptions): Promise<Instance> {
	const version = opts.version ?? N8N_VERSION;
	const step = opts.step ?? ((_step, run) => run());
	const userFolder = makeUserFolder(opts.folderPrefix);
	const filesDir = join(userFolder, 'files');
	const env = {
		...(opts.restrictFileAccess ? { N8N_RESTRICT_FILE_ACCESS_TO: filesDir } : {}),
		...opts.env,
	};
	const start = (port = opts.port) =>
		startN8n({ version, userFolder, port, env, echo: opts.echo, pathFirst: opts.pathFirst });
	let n8n: RunningN8n | undefined;
	const stop = async () => {
		await n8n?.stop();
		if (!opts.keepUserFolder) rmSync(userFolder, { recursive: true, force: true });
	};
	try {
		await step('install package', async () => {
			for (const tarball of opts.tarballs) await installCommunityPackage(userFolder, tarball);
		});
		n8n = await step('start', () => start());
		const rest = await step('owner', () => ownerSession(n8n!.url, version));
		return {
			get n8n() {
				return n8n!;
			},
			rest,
			userFolder,
			filesDir,
			async restart(signal) {
				const { port } = n8n!;
				await n8n!.stop(signal);
				n8n = await start(port);
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}
