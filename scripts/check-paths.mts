/**
 * `npm run check:paths`: no file in the repository names a path outside it. A clone must
 * work on its own, so a relative path that climbs above the repository root (`../shared/…`)
 * or an absolute path into one machine's folders (home, work, mount points) is an error.
 * Paths under the user's cache (`~/.cache/…`) are fine: the project creates them itself.
 * Code examples in Markdown are written from the file they belong in, so their relative
 * paths are not read.
 */
import { dirname, join, normalize } from 'node:path';

import { fail, readRepoFile, repoFiles } from './repoFiles.mts';

const SKIPPED = /(^|\/)package-lock\.json$/;
const RELATIVE = /(?<![\w.~/-])((?:\.\.?\/)+)[\w@.-]*/g;
const MACHINE_PATH = /(?<![\w.~:/-])\/(?:work|home|root|Users|mnt|srv|opt)\/[\w./-]*/g;

/** Blanks the lines of fenced code blocks, keeping line numbers. */
function blankFencedCode(markdown: string): string {
	let fenced = false;
	return markdown
		.split('\n')
		.map((line) => {
			if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
			return fenced ? '' : line;
		})
		.join('\n');
}

const problems: string[] = [];
for (const file of repoFiles()) {
	if (SKIPPED.test(file)) continue;
	const text = readRepoFile(file);
	const prose = file.endsWith('.md') ? blankFencedCode(text) : text;
	prose.split('\n').forEach((line, index) => {
		const where = `${file}:${index + 1}`;
		for (const [path, climb] of line.matchAll(RELATIVE)) {
			if (normalize(join(dirname(file), climb)).startsWith('..'))
				problems.push(`${where}: ${path} is outside the repository`);
		}
		for (const [path] of text.split('\n')[index].matchAll(MACHINE_PATH))
			problems.push(`${where}: ${path} names a path on one machine`);
	});
}

fail('check:paths', problems);
