/**
 * scripts/check-machine.sh (issue 42): where a suite needs what the machine lacks and apt-get
 * cannot install it, it stops at once, naming each missing thing and how to get it. Run with a
 * PATH of only the tools it uses, where `id`, `sudo` and `apt-get` are fakes, so the machine's
 * own tools and root make no difference; the missing chromium is an absent CHROMIUM_PATH.
 */
import { spawnSync } from 'node:child_process';
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ROOT } from '../../scripts/repoFiles.mts';

let dir: string;
let bin: string;

function executable(name: string, text: string) {
	writeFileSync(join(bin, name), `#!/bin/bash\n${text}\n`);
	chmodSync(join(bin, name), 0o755);
}

/** The machine: its user id, and whether it has apt-get and a sudo that needs no password. */
function machine({ uid, aptGet, sudo }: { uid: number; aptGet: boolean; sudo: boolean }) {
	executable('id', `echo ${uid}`);
	// apt-get must never run: the check only asks whether it could.
	if (aptGet) executable('apt-get', `touch "${join(dir, 'apt-get-ran')}"; exit 1`);
	if (sudo) executable('sudo', 'exit 0');
}

function run(script: string, ...needs: string[]) {
	const started = Date.now();
	const result = spawnSync('/bin/bash', [join(ROOT, 'scripts', script), ...needs], {
		encoding: 'utf8',
		env: { PATH: bin, CHROMIUM_PATH: join(dir, 'no-chromium') },
	});
	return {
		status: result.status,
		stdout: result.stdout,
		stderr: result.stderr,
		ms: Date.now() - started,
	};
}

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'check-machine-'));
	bin = join(dir, 'bin');
	mkdirSync(bin);
	for (const tool of ['bash', 'dirname']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
	symlinkSync(process.execPath, join(bin, 'node'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('check-machine.sh', () => {
	it('without root or sudo, stops at once naming each missing thing and the command that gets it', () => {
		machine({ uid: 1000, aptGet: true, sudo: false });
		const result = run('check-machine.sh', 'chromium', 'redis-server');
		expect(result.status).toBe(1);
		expect(result.stderr).toContain('check-machine: the tests need what this machine lacks:');
		expect(result.stderr).toContain(
			'- chromium (the editor test in test/e2e): installing it needs root, and sudo -n cannot: run `sudo apt-get install -y chromium` once, or run npm test as root; or set CHROMIUM_PATH to an installed Chromium or Chrome',
		);
		expect(result.stderr).toContain(
			'- redis-server (test/queue): installing it needs root, and sudo -n cannot: run `sudo apt-get install -y redis-server` once',
		);
		expect(result.ms).toBeLessThan(5_000);
		expect(existsSync(join(dir, 'apt-get-ran'))).toBe(false);
	});

	it('without apt-get, names the other way to get each', () => {
		machine({ uid: 0, aptGet: false, sudo: false });
		const result = run('check-machine.sh', 'redis-server');
		expect(result.status).toBe(1);
		expect(result.stderr).toContain(
			"- redis-server (test/queue): this machine has no apt-get to install Debian's redis-server: or install Redis (brew install redis) and put redis-server on PATH",
		);
	});

	it.each([
		['as root', { uid: 0, aptGet: true, sudo: false }],
		['through sudo -n', { uid: 1000, aptGet: true, sudo: true }],
	])('passes where apt-get can install what is missing %s, installing nothing itself', (_, box) => {
		machine(box);
		const result = run('check-machine.sh', 'chromium', 'redis-server');
		expect(result).toMatchObject({ status: 0, stderr: '' });
		expect(result.stdout).toContain('apt-get installs chromium redis-server when a suite needs it');
		expect(existsSync(join(dir, 'apt-get-ran'))).toBe(false);
	});

	it('passes where everything is there', () => {
		machine({ uid: 1000, aptGet: false, sudo: false });
		executable('redis-server', 'exit 0');
		const result = run('check-machine.sh', 'redis-server', 'postgres');
		expect(result).toMatchObject({ status: 0, stderr: '' });
		expect(result.stdout).toBe('check-machine: ok (redis-server postgres present)\n');
	});

	it('stops ensure-chromium.sh before apt-get where it could not install', () => {
		machine({ uid: 1000, aptGet: true, sudo: false });
		const result = run('ensure-chromium.sh');
		expect(result.status).toBe(1);
		expect(result.stderr).toContain('run `sudo apt-get install -y chromium` once');
		expect(existsSync(join(dir, 'apt-get-ran'))).toBe(false);
	});
});
