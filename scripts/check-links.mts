/**
 * `npm run check:links`: every link in the repository's Markdown, and every link to this
 * repository's own pages from code and JSON (credential and codex documentation URLs),
 * must resolve: the file exists, and a `#anchor` names a heading (or an explicit anchor)
 * of that file. Links to other sites are not fetched. Links to this repository on GitHub
 * must use the address in package.json's `repository`, so changing it there makes this
 * check list every place that still has the old one.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

import { fail, readRepoFile, repoFiles, ROOT } from './repoFiles.mts';

const pkg = JSON.parse(readRepoFile('package.json')) as { repository: { url: string } };
const repoUrl = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/** GitHub's heading slug: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
	return heading
		.replace(/`/g, '')
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/[*_]/g, '')
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
		.replace(/ /g, '-');
}

/** Markdown with fenced code blocks and inline code blanked out, so examples are not read as links. */
function withoutCode(markdown: string): string {
	return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
	let anchors = anchorCache.get(file);
	if (anchors) return anchors;
	anchors = new Set();
	const seen = new Map<string, number>();
	for (const [, text] of withoutCode(readRepoFile(file)).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const base = slug(text);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	for (const [, id] of readRepoFile(file).matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
	anchorCache.set(file, anchors);
	return anchors;
}

/** Checks a link to a file of the repository (path relative to ROOT) with an optional anchor. */
function checkTarget(from: string, target: string, anchor: string | undefined): string | undefined {
	if (target.startsWith('..') || !existsSync(join(ROOT, target)))
		return `${from}: links to ${target || '.'}, which does not exist in the repository`;
	if (anchor === undefined || anchor === '') return undefined;
	if (statSync(join(ROOT, target)).isDirectory() || !target.endsWith('.md'))
		return `${from}: links to #${anchor} in ${target}, which has no headings`;
	if (!anchorsOf(target).has(decodeURIComponent(anchor)))
		return `${from}: #${anchor} is not a heading of ${target}`;
	return undefined;
}

/** A URL of this repository on GitHub, as a path in the repository and an anchor. */
function ownUrl(url: string): { target: string; anchor?: string } | undefined {
	if (!url.startsWith(repoUrl)) return undefined;
	const [path, anchor] = url.slice(repoUrl.length).split('#');
	const inTree = path.match(/^\/(?:blob|tree)\/[^/]+\/(.*)$/);
	if (inTree) return { target: inTree[1], anchor };
	// GitHub shows the README on the repository's front page, under the anchor #readme.
	if (path === '' || path === '/')
		return { target: 'README.md', anchor: anchor === 'readme' ? undefined : anchor };
	return { target: path.replace(/^\//, '') };
}

const problems: string[] = [];
const githubRepo = /https:\/\/github\.com\/[\w.-]+\/n8n-nodes-voucher-service\b[^\s'"`)<>]*/g;

for (const file of repoFiles()) {
	const text = readRepoFile(file);
	for (const [url] of text.matchAll(githubRepo)) {
		const base = url.replace(/\.git$/, '').match(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+/)![0];
		if (base !== repoUrl) {
			problems.push(`${file}: ${url} is not the repository in package.json (${repoUrl})`);
			continue;
		}
		const own = ownUrl(url.replace(/\.git$/, ''));
		// GitHub's own pages of the repository (releases, compare views, issues) exist only there.
		if (own && /^(issues|pulls|actions|releases|compare|tags)\b/.test(own.target)) continue;
		const problem = own && checkTarget(file, own.target, own.anchor);
		if (problem) problems.push(problem);
	}
	if (!file.endsWith('.md')) continue;

	const markdown = withoutCode(text);
	const links = [
		...[...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
		...[...markdown.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]),
		...[...markdown.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
	];
	for (const link of links) {
		if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // other sites and mailto: are not fetched
		const [path, anchor] = link.split('#');
		const target = path === '' ? file : normalize(join(dirname(file), decodeURI(path)));
		const problem = checkTarget(file, target, anchor);
		if (problem) problems.push(problem);
	}
}

fail('check:links', problems);
