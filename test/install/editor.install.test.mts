// Our package installed, updated and uninstalled through n8n's editor installer (the REST
// calls of Settings → Community Nodes), on the oldest and the newest n8n of the matrix.
//
// Real: n8n and its installer (its npm commands, name and API-version checks, loading
// without a restart, `npm outdated` for updates), npm itself (publish, view, pack, install,
// outdated, remove), the packed package, and the sandbox the node calls.
// Standing in: the npm registry (real-n8n/registry.mts on loopback, two releases published
// with the real `npm publish`: this version, then a patch release that differs only in its
// number) and an `npm` first on n8n's PATH that points every npm command at it
// (real-n8n/npm-shim.mts), because n8n refuses an unlicensed custom registry.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import {
	ACTION_NODE,
	ACTION_TOOL_NODE,
	API_CREDENTIAL,
	TRIGGER_NODE,
	WEBHOOK_CREDENTIAL,
	sandboxApiCredential,
	until,
} from '../../real-n8n/fixtures.mts';
import { startInstance, type Instance } from '../../real-n8n/instance.mts';
import { writeNpmShim, type NpmShim } from '../../real-n8n/npm-shim.mts';
import {
	publish,
	removeRelease,
	startRegistry,
	withVersion,
	type Registry,
} from '../../real-n8n/registry.mts';
import { linearWorkflow, MANUAL_START, nodeOutput } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';

const PACKAGE = 'n8n-nodes-voucher-service';
const tarball = inject('packedTarball');
const CURRENT = /-(\d+\.\d+\.\d+)\.tgz$/.exec(tarball)![1];
const PATCH_RELEASE = CURRENT.replace(/\d+$/, (patch) => String(Number(patch) + 1));

/** Seconds each installer step took, per version, printed after the suite. */
const timings: Record<string, Record<string, number>> = {};

afterAll(() => {
	process.stderr.write(`[installer] seconds: ${JSON.stringify(timings)}\n`);
});

describe.each(inject('installerVersions'))('n8n %s, from the editor', (version) => {
	let registry: Registry;
	let shim: NpmShim;
	let sandbox: Sandbox;
	let instance: Instance;
	let workflowId: string;
	const seconds: Record<string, number> = (timings[version] = {});

	async function timed<T>(step: string, run: () => Promise<T>): Promise<T> {
		const t0 = Date.now();
		try {
			return await run();
		} finally {
			seconds[step] = (Date.now() - t0) / 1000;
		}
	}

	// n8n 1.85 rewrites /types/*.json after it has answered an install: a read meanwhile gets
	// part of a file. The editor reads them later; so does this, once a file is whole.
	const typesFile = (file: string) =>
		until(`a whole /types/${file}`, () =>
			instance.rest
				.request<Array<{ name: string }>>('GET', `/types/${file}`)
				.catch((e: unknown) => {
					if (e instanceof SyntaxError) return undefined;
					throw e;
				}),
		);
	const ourTypes = async () =>
		(await typesFile('nodes.json'))
			.map((t) => t.name)
			.filter((name) => name.startsWith(`${PACKAGE}.`))
			.sort();
	const credentialTypes = async () => (await typesFile('credentials.json')).map((c) => c.name);
	const nodesDir = () => join(instance.userFolder, '.n8n', 'nodes');
	const runWallets = () => instance.rest.runWorkflow(workflowId, MANUAL_START.name, 120_000);

	beforeAll(async () => {
		registry = await startRegistry();
		await publish(registry.url, tarball);
		shim = writeNpmShim(registry.url);
		sandbox = await startSandbox({ port: 0 });
		instance = await startInstance({
			tarballs: [],
			version,
			folderPrefix: `voucher-installer-${version}-`,
			pathFirst: shim.dir,
		});
	});

	afterAll(async () => {
		if (shim)
			process.stderr.write(`[installer] ${version} ran npm ${JSON.stringify(shim.commands())}\n`);
		await instance?.stop();
		await sandbox?.close();
		await registry?.close();
		shim?.remove();
	});

	it('installs by name, with both nodes and both credentials listed and no restart', async () => {
		const pid = instance.n8n.pid;
		expect(await ourTypes()).toEqual([]);
		const installed = await timed('install', () => instance.rest.installPackage(PACKAGE));
		expect(installed).toMatchObject({ packageName: PACKAGE, installedVersion: CURRENT });
		expect(installed.installedNodes.map((n) => n.type).sort()).toEqual(
			[ACTION_NODE, TRIGGER_NODE].sort(),
		);
		expect(await ourTypes()).toEqual([ACTION_NODE, ACTION_TOOL_NODE, TRIGGER_NODE].sort());
		expect(await credentialTypes()).toEqual(
			expect.arrayContaining([API_CREDENTIAL, WEBHOOK_CREDENTIAL]),
		);
		expect(instance.n8n.pid).toBe(pid);
		// From the registry on loopback, through the shim: the tarball was fetched here.
		expect(registry.requests).toContainEqual({
			method: 'GET',
			path: `/${PACKAGE}/-/${PACKAGE}-${CURRENT}.tgz`,
			status: 200,
		});
		// The peer n8n-workflow is optional, so npm installs none (it asks for it, and the 404
		// here is no error). n8n 1.85's installer runs a plain `npm install`, which would
		// otherwise add n8n-workflow@latest and build its native isolated-vm: that fails on
		// Node 20, and the install with it.
		expect(existsSync(join(nodesDir(), 'node_modules', 'n8n-workflow'))).toBe(false);
	});

	it('runs Wallet → Get Many against the sandbox from a workflow using the installed node', async () => {
		const credential = await sandboxApiCredential(instance.rest, sandbox, 'Voucher (installed)');
		({ id: workflowId } = await instance.rest.createWorkflow(
			linearWorkflow('Wallets from the installed node', [
				MANUAL_START,
				{
					name: 'Wallets',
					type: ACTION_NODE,
					typeVersion: 1,
					parameters: { resource: 'wallet', operation: 'getAll' },
					credentials: { [API_CREDENTIAL]: credential },
				},
			]),
		));
		const ex = await runWallets();
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		expect(nodeOutput(ex, 'Wallets')).toEqual(
			expect.arrayContaining([expect.objectContaining({ currency: 'NGN', balance: 50_000_000 })]),
		);
	});

	it('offers the next release and updates to it', async () => {
		const release = await withVersion(tarball, PATCH_RELEASE);
		try {
			await publish(registry.url, release);
		} finally {
			removeRelease(release);
		}
		const [listed] = await instance.rest.listPackages();
		expect(listed).toMatchObject({
			packageName: PACKAGE,
			installedVersion: CURRENT,
			updateAvailable: PATCH_RELEASE,
		});
		// What offers it: `npm outdated`, which n8n runs without a registry of its own.
		expect(shim.commands()).toContain('outdated --json');
		const updated = await timed('update', () =>
			instance.rest.updatePackage(PACKAGE, PATCH_RELEASE),
		);
		expect(updated).toMatchObject({ packageName: PACKAGE, installedVersion: PATCH_RELEASE });
		const [after] = await instance.rest.listPackages();
		expect(after.installedVersion).toBe(PATCH_RELEASE);
		expect(after.updateAvailable).toBeUndefined();
		expect(await ourTypes()).toEqual([ACTION_NODE, ACTION_TOOL_NODE, TRIGGER_NODE].sort());
	});

	it('keeps the updated package across a restart, and the workflow runs again', async () => {
		await timed('restart', () => instance.restart());
		const [listed] = await instance.rest.listPackages();
		expect(listed).toMatchObject({ packageName: PACKAGE, installedVersion: PATCH_RELEASE });
		expect(listed.failedLoading).toBeFalsy();
		const ex = await runWallets();
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		expect(nodeOutput(ex, 'Wallets')).toEqual(
			expect.arrayContaining([expect.objectContaining({ currency: 'NGN' })]),
		);
	});

	it('uninstalls; the workflow keeps its nodes but cannot run them', async () => {
		await timed('uninstall', () => instance.rest.uninstallPackage(PACKAGE));
		expect(await instance.rest.listPackages()).toEqual([]);
		expect(await ourTypes()).toEqual([]);
		expect(existsSync(join(nodesDir(), 'node_modules', PACKAGE))).toBe(false);
		const wf = await instance.rest.getWorkflow(workflowId);
		expect(wf.nodes.map((n: { type: string }) => n.type)).toContain(ACTION_NODE);
		// The run is refused before it starts: no execution, and the editor's message.
		const executions = (await instance.rest.listExecutions(workflowId)).length;
		const refusal = await runWallets().then(
			(ex) => `ran: ${ex.status}`,
			(e: Error) => e.message,
		);
		expect(refusal).toMatch(
			new RegExp(`-> (400|500): .*Unrecognized node type: ${ACTION_NODE.replace(/\./g, '\\.')}`),
		);
		expect(await instance.rest.listExecutions(workflowId)).toHaveLength(executions);
		process.stderr.write(`[installer] ${version}, a run after the uninstall: ${refusal}\n`);
	});

	it('installs again, and the same workflow runs as before', async () => {
		const installed = await instance.rest.installPackage(PACKAGE);
		expect(installed.installedVersion).toBe(PATCH_RELEASE);
		const ex = await runWallets();
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		expect(nodeOutput(ex, 'Wallets')).toEqual(
			expect.arrayContaining([expect.objectContaining({ currency: 'NGN' })]),
		);
	});
});
