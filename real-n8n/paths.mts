// Where real-n8n/ keeps the real n8n install. Shared by install.mts, n8n.mts
// and the tests. The install lives outside the clone so it survives across
// fresh clones (CI runs `.ci/run` in a new clone every time).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REAL_N8N_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = dirname(REAL_N8N_DIR);

const manifest = JSON.parse(readFileSync(join(REAL_N8N_DIR, 'package.json'), 'utf8')) as {
	dependencies: { n8n: string };
};
export const N8N_VERSION = manifest.dependencies.n8n;

function cacheRoot(): string {
	if (process.env.VOUCHER_CACHE_DIR) return process.env.VOUCHER_CACHE_DIR;
	const xdg = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(xdg, 'n8n-nodes-voucher-service');
}

/** Hash of the real-n8n dependencies, overrides and lock: a change to any means a new install. */
export function installKey(): string {
	const hash = createHash('sha256');
	const pkg = JSON.parse(readFileSync(join(REAL_N8N_DIR, 'package.json'), 'utf8'));
	hash.update(JSON.stringify({ dependencies: pkg.dependencies, overrides: pkg.overrides }));
	const lock = join(REAL_N8N_DIR, 'package-lock.json');
	hash.update(existsSync(lock) ? readFileSync(lock) : 'no-lock');
	return hash.digest('hex').slice(0, 16);
}

export function versionDir(): string {
	return join(cacheRoot(), `n8n-${N8N_VERSION}`);
}

export function installDir(key = installKey()): string {
	return join(versionDir(), key);
}

/** Written last by install.mts; an install without it is incomplete. */
export const MARKER = '.install-complete';

export function n8nBin(dir = installDir()): string {
	return join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
}

export function isInstalled(dir = installDir()): boolean {
	return existsSync(join(dir, MARKER)) && existsSync(n8nBin(dir));
}
