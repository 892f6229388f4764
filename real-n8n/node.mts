// The Node binary each n8n version of versions.mts runs on. This process's own Node when
// its major fits; otherwise the `node@<major>` package from the npm registry, installed
// once into the per-user cache, as scripts/with-node24.sh does for Node 24 (same folder
// layout, so the two share ~/.cache/n8n-nodes-voucher-service/node-24).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

import { cacheRoot } from './paths.mts';

export interface NodeRuntime {
	major: number;
	/** The `node` executable. */
	bin: string;
	/** Headers for native builds (npm_config_nodedir), when known. */
	nodedir?: string;
}

function headersBeside(bin: string): string | undefined {
	const prefix = dirname(dirname(bin));
	return existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

/**
 * The packages that may hold this machine's binary: node@<major> installs it, from its
 * preinstall script, as `node-<os>-<arch>`, or `node-bin-<os>-<arch>` (darwin-arm64), as
 * scripts/with-node24.sh reads them too.
 */
export function platformPackages(platform: string = process.platform, arch: string = process.arch) {
	if (!['linux', 'darwin'].includes(platform) || !['x64', 'arm64'].includes(arch))
		throw new Error(
			`npm has no Node binary for ${platform} ${arch}: run the suites on Linux or macOS, x64 or arm64`,
		);
	return [`node-${platform}-${arch}`, `node-bin-${platform}-${arch}`];
}

/** Where npm put the platform's package under prefix: nested under `node` (npm 11) or hoisted. */
export function installedPlatform(prefix: string, names: string[]): string | undefined {
	for (const name of names)
		for (const dir of [
			join(prefix, 'node_modules', 'node', 'node_modules', name),
			join(prefix, 'node_modules', name),
		])
			if (existsSync(join(dir, 'bin', 'node'))) return dir;
	return undefined;
}

export function ensureNode(major: number): NodeRuntime {
	if (Number(process.versions.node.split('.')[0]) === major) {
		const nodedir = process.env.npm_config_nodedir || headersBeside(process.execPath);
		return { major, bin: process.execPath, nodedir };
	}
	const prefix = join(cacheRoot(), `node-${major}`);
	const names = platformPackages();
	let platformDir = installedPlatform(prefix, names);
	if (!platformDir) {
		// Installed beside the final folder and renamed into place, so installs of two
		// versions that need the same Node, running at once, never see half of it.
		const staging = `${prefix}.staging-${process.pid}`;
		process.stderr.write(`[node] installing node@${major} into ${prefix}\n`);
		rmSync(staging, { recursive: true, force: true });
		mkdirSync(staging, { recursive: true });
		// The package installs its platform binary from a preinstall script, so scripts
		// must run here although the project's .npmrc turns them off.
		const r = spawnSync(
			'npm',
			[
				'install',
				'--prefix',
				staging,
				'--no-save',
				'--no-audit',
				'--no-fund',
				'--ignore-scripts=false',
				`node@${major}`,
			],
			{ cwd: staging, stdio: ['ignore', 'inherit', 'inherit'] },
		);
		if (r.status !== 0 || !installedPlatform(staging, names))
			throw new Error(
				`npm install node@${major} failed (${r.status ?? r.signal}), or brought none of ${names.join(', ')}: install Node ${major} yourself`,
			);
		try {
			renameSync(staging, prefix);
		} catch {
			// Another process got there first.
			rmSync(staging, { recursive: true, force: true });
		}
		platformDir = installedPlatform(prefix, names);
		if (!platformDir) throw new Error(`node@${major} is not in ${prefix}`);
	}
	return { major, bin: join(platformDir, 'bin', 'node'), nodedir: platformDir };
}

/** An environment in which `node` and `npm` (run by `node`) are this runtime's. */
export function envFor(runtime: NodeRuntime, base: NodeJS.ProcessEnv = process.env) {
	const env: NodeJS.ProcessEnv = {
		...base,
		PATH: `${dirname(runtime.bin)}${delimiter}${base.PATH ?? ''}`,
	};
	if (runtime.nodedir) env.npm_config_nodedir = runtime.nodedir;
	else delete env.npm_config_nodedir;
	return env;
}
