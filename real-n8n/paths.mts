// Where real-n8n/ keeps the real n8n installs, one per version of the table in
// versions.mts. Shared by install.mts, n8n.mts and the tests. The installs live
// outside the clone so they survive across fresh clones (CI runs `.ci/run` in a
// new clone every time). Every function takes the n8n version; without one it is
// the version the full suites use (real-n8n/package.json).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { DEFAULT_N8N_VERSION, versionFacts } from './versions.mts';

export const REAL_N8N_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = dirname(REAL_N8N_DIR);

export const N8N_VERSION = DEFAULT_N8N_VERSION;

export function cacheRoot(): string {
	if (process.env.VOUCHER_CACHE_DIR) return process.env.VOUCHER_CACHE_DIR;
	const xdg = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(xdg, 'n8n-nodes-voucher-service');
}

/** Hash of a version's dependencies, overrides and lock: a change to any means a new install. */
export function installKey(version = N8N_VERSION): string {
	const { manifestDir } = versionFacts(version);
	const hash = createHash('sha256');
	const pkg = JSON.parse(readFileSync(join(manifestDir, 'package.json'), 'utf8'));
	hash.update(JSON.stringify({ dependencies: pkg.dependencies, overrides: pkg.overrides }));
	const lock = join(manifestDir, 'package-lock.json');
	hash.update(existsSync(lock) ? readFileSync(lock) : 'no-lock');
	return hash.digest('hex').slice(0, 16);
}

export function versionDir(version = N8N_VERSION): string {
	return join(cacheRoot(), `n8n-${version}`);
}

export function installDir(key?: string, version = N8N_VERSION): string {
	return join(versionDir(version), key ?? installKey(version));
}

/** Written last by install.mts; an install without it is incomplete. */
export const MARKER = '.install-complete';

export function n8nBin(dir = installDir()): string {
	return join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
}

/** The Node version an install was built with, from its marker (undefined: incomplete). */
export function installedWithNode(dir: string): string | undefined {
	try {
		return (JSON.parse(readFileSync(join(dir, MARKER), 'utf8')) as { node: string }).node;
	} catch {
		return undefined;
	}
}

/**
 * Complete, and built with the Node major the table gives its version (native modules
 * are built for one Node): an install made with another Node is redone.
 */
export function isInstalled(dir = installDir(), version = N8N_VERSION): boolean {
	const node = installedWithNode(dir);
	if (!node || !existsSync(n8nBin(dir))) return false;
	return node.replace(/^v/, '').split('.')[0] === String(versionFacts(version).nodeMajor);
}
