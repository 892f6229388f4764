/**
 * What a release ships and what its docs say must agree (issue #34): the version in
 * package.json, its lock, the CHANGELOG's latest release, the README's Version history and
 * every pinned install; the README's operations table and the node's Resource and Operation
 * options; and every example a doc or a sticky note names exists.
 */
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

import type { INodeProperties } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { VoucherService } from '../../nodes/VoucherService/VoucherService.node';
import { readRepoFile, repoFiles, ROOT } from '../../scripts/repoFiles.mts';

const files = repoFiles();
const docs = files.filter(
	(file) => /^(README|CONTRIBUTING)\.md$/.test(file) || /^(docs|bench)\/[^/]+\.md$/.test(file),
);

/** The first `## [x.y.z]` heading: the latest release (Unreleased has no version). */
function latestRelease(changelog: string): string | undefined {
	return changelog.match(/^## \[(\d+\.\d+\.\d+)\]/m)?.[1];
}

/** Versions of this package a text pins: `VOUCHER_NODES_VERSION=…`, its `e.g. …`, `…@x.y.z`. */
function pinnedVersions(text: string): string[] {
	const pins =
		/(?:VOUCHER_NODES_VERSION[=:]\s*|VOUCHER_NODES_VERSION, e\.g\. |n8n-nodes-voucher-service@)(\d+\.\d+\.\d+)/g;
	return [...text.matchAll(pins)].map((match) => match[1]);
}

/** "Resource → Operation" for each row of the README's table under "### Voucher Service". */
function readmeOperations(readme: string): string[] {
	const section = readme.split(/^### Voucher Service\s*$/m)[1]?.split(/^#/m)[0] ?? '';
	return [...section.matchAll(/^\|\s*([^|*]+?)\s*\|\s*\*\*([^*]+)\*\*/gm)].map(
		([, resource, operation]) => `${resource} → ${operation}`,
	);
}

/** "Resource → Operation" as the editor lists them: the options' display names. */
function nodeOperations(properties: INodeProperties[]): string[] {
	const resource = properties.find((property) => property.name === 'resource')!;
	return (resource.options as Array<{ name: string; value: string }>).flatMap(({ name, value }) =>
		properties
			.filter(
				(property) =>
					property.name === 'operation' && property.displayOptions?.show?.resource?.includes(value),
			)
			.flatMap((operation) => (operation.options as Array<{ name: string }>).map((o) => o.name))
			.map((operation) => `${name} → ${operation}`),
	);
}

/**
 * Example paths a text names, as paths from the repository root: `../examples/…` from
 * the text's own folder, `examples/…` from the root (how prose and commands quote them).
 */
function examplesNamed(file: string, text: string): string[] {
	const named = /(?<![\w./-])((?:\.\.?\/)*)(examples\/[\w./-]*)/g;
	return [...text.matchAll(named)].map(([, climb, path]) => {
		const bare = path.replace(/\.+$/, '');
		return climb ? normalize(join(dirname(file), climb, bare)) : bare;
	});
}

/** The text of every sticky note of an example workflow. */
function stickyNotes(workflow: string): string {
	const { nodes = [] } = JSON.parse(workflow) as {
		nodes?: Array<{ type: string; parameters?: { content?: string } }>;
	};
	return nodes
		.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
		.map((node) => node.parameters?.content ?? '')
		.join('\n');
}

const missingExamples = (file: string, text: string) =>
	examplesNamed(file, text)
		.filter((path) => path.startsWith('..') || !existsSync(join(ROOT, path)))
		.map((path) => `${file} names ${path}`);

describe('the version', () => {
	const pkg = JSON.parse(readRepoFile('package.json')) as { version: string };
	const lock = JSON.parse(readRepoFile('package-lock.json')) as {
		version: string;
		packages: Record<string, { version: string }>;
	};
	const changelog = readRepoFile('CHANGELOG.md');

	it("is the CHANGELOG's latest release, in package.json and its lock", () => {
		expect(latestRelease(changelog)).toBe(pkg.version);
		expect([lock.version, lock.packages[''].version]).toEqual([pkg.version, pkg.version]);
		expect(changelog).toMatch(new RegExp(`^\\[${pkg.version.replaceAll('.', '\\.')}\\]: `, 'm'));
	});

	it("is the first of the README's Version history", () => {
		const history = readRepoFile('README.md').split(/^## Version history\s*$/m)[1] ?? '';
		expect(history.match(/^- \*\*(\d+\.\d+\.\d+)\*\*/m)?.[1]).toBe(pkg.version);
	});

	it('is the one every doc and example pins', () => {
		const pinning = files.filter(
			(file) => /\.(md|ya?ml|json)$/.test(file) && !/package(-lock)?\.json$|CHANGELOG/.test(file),
		);
		const wrong = pinning.flatMap((file) =>
			pinnedVersions(readRepoFile(file))
				.filter((version) => version !== pkg.version)
				.map((version) => `${file} pins ${version}`),
		);
		expect(wrong).toEqual([]);
	});

	it('reads the latest release and the pins as written', () => {
		expect(latestRelease('## [Unreleased]\n\n## [1.2.3] - 2026-01-01\n## [1.2.2]')).toBe('1.2.3');
		expect(
			pinnedVersions(
				'VOUCHER_NODES_VERSION=0.1.0 ${VOUCHER_NODES_VERSION:?set VOUCHER_NODES_VERSION, e.g. 0.1.1} n8n-nodes-voucher-service@0.1.2 n8n-nodes-voucher-service@latest',
			),
		).toEqual(['0.1.0', '0.1.1', '0.1.2']);
	});
});

describe("the README's operations table", () => {
	it("lists the node's operations, no more, no fewer", () => {
		const listed = readmeOperations(readRepoFile('README.md'));
		const shipped = nodeOperations(new VoucherService().description.properties);
		expect(listed.length).toBeGreaterThan(0);
		expect({
			notInTheReadme: shipped.filter((operation) => !listed.includes(operation)),
			notInTheNode: listed.filter((operation) => !shipped.includes(operation)),
		}).toEqual({ notInTheReadme: [], notInTheNode: [] });
	});

	it('reads each row as Resource → Operation', () => {
		const table =
			'### Voucher Service\n\n| Resource | Operation |\n|---|---|\n| Order | **Get Many**: x |\n\n## Next\n| A | **B** |';
		expect(readmeOperations(table)).toEqual(['Order → Get Many']);
	});
});

describe('examples named in the docs', () => {
	it.each(docs)('%s names only examples that exist', (file) => {
		expect(missingExamples(file, readRepoFile(file))).toEqual([]);
	});

	it("the examples' sticky notes name only examples that exist", () => {
		const workflows = files.filter((file) => /^examples\/.*\.json$/.test(file));
		expect(
			workflows.flatMap((file) => missingExamples(file, stickyNotes(readRepoFile(file)))),
		).toEqual([]);
	});

	it('reads paths from the root and from the file, links and code spans alike', () => {
		const text =
			'[a](../examples/x.json), `examples/y/`, /path/to/examples/z.csv, see examples/w.json.';
		expect(examplesNamed('docs/a.md', text)).toEqual([
			'examples/x.json',
			'examples/y/',
			'examples/w.json',
		]);
	});
});
