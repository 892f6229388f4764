// The repository's tracked text files, for the checks in scripts/ that read every file.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');

const BINARY = /\.(png|jpe?g|gif|ico|tgz|gz|zip|woff2?)$/i;

/** Paths relative to ROOT of every tracked (and new, not ignored) text file. */
export function repoFiles(): string[] {
	const listed = execFileSync(
		'git',
		['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
		{
			cwd: ROOT,
			encoding: 'utf8',
		},
	);
	return listed
		.split('\0')
		.filter((file) => file && !BINARY.test(file) && existsSync(join(ROOT, file)));
}

export function readRepoFile(file: string): string {
	return readFileSync(join(ROOT, file), 'utf8');
}

export function fail(check: string, problems: string[]): void {
	if (problems.length === 0) {
		console.log(`${check}: ok`);
		return;
	}
	console.error(`${check}: ${problems.length} problem(s)\n- ${problems.join('\n- ')}`);
	process.exitCode = 1;
}
