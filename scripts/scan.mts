/**
 * `npm run scan`: n8n's own scanner (@n8n/scan-community-package), as n8n runs it before
 * it verifies a package, on both legs it checks: the packed tarball (compiled .js and
 * package.json) and the source files it reads from the repository. Its third check,
 * npm provenance, needs a published version, so only the publish workflow can satisfy it.
 * Exits non-zero on any finding. Needs a build first (`npm run build`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
	type ScanResult,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

// The patterns the scanner itself uses for a published tarball.
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

const root = join(import.meta.dirname, '..');

function packAndUnpack(workDir: string): string {
	if (!existsSync(join(root, 'dist'))) throw new Error('No dist/: run `npm run build` first.');
	const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', workDir], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const [{ filename }] = JSON.parse(packed) as Array<{ filename: string }>;
	execFileSync('tar', ['-xzf', join(workDir, filename), '-C', workDir]);
	return join(workDir, 'package');
}

function report(leg: string, result: ScanResult): boolean {
	if (result.passed) {
		console.log(`scan ${leg}: passed${result.message ? ` (${result.message})` : ''}`);
		return true;
	}
	console.error(`scan ${leg}: ${result.message}`);
	if (result.details) console.error(result.details);
	return false;
}

const workDir = mkdtempSync(join(tmpdir(), 'voucher-scan-'));
try {
	const tarballDir = packAndUnpack(workDir);
	const tarball = await analyzePackage(tarballDir, TARBALL_FILE_PATTERNS);
	const sources = await analyzePackage(root, SOURCE_FILE_PATTERNS);
	const passed = [report('tarball', tarball), report('sources', sources)].every(Boolean);
	if (!passed) process.exitCode = 1;
} finally {
	rmSync(workDir, { recursive: true, force: true });
}
