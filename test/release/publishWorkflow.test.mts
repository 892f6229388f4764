/**
 * The publish workflow cannot run here (it needs GitHub Actions and npm), so this checks
 * it against what it must be: the workflow @n8n/node-cli generates, changed only where
 * the file's header says, and consistent with package.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '..', '..');
const cliRoot = join(root, 'node_modules', '@n8n', 'node-cli');

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, string>;
	env?: Record<string, string>;
}
interface Workflow {
	name: string;
	on: unknown;
	jobs: Record<string, { 'runs-on': string; permissions: Record<string, string>; steps: Step[] }>;
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const workflowText = readFileSync(join(root, '.github/workflows/publish.yml'), 'utf8');
const ours = parse(workflowText) as Workflow;

/** The template as `n8n-node release --init-workflow` fills it in for npm. */
function template(): Workflow {
	const text = readFileSync(
		join(cliRoot, 'dist/template/templates/shared/default/.github/workflows/publish.yml'),
		'utf8',
	)
		.replaceAll('{{packageManager.name}}', 'npm')
		.replaceAll('{{packageManager.installCommand}}', 'ci');
	return parse(text) as Workflow;
}

describe('.github/workflows/publish.yml', () => {
	it('comes from the pinned @n8n/node-cli', () => {
		const installed = JSON.parse(readFileSync(join(cliRoot, 'package.json'), 'utf8'));
		expect(pkg.devDependencies['@n8n/node-cli']).toBe(installed.version);
		expect(installed.version).toBe('0.48.3');
	});

	it('is the generated workflow, changed only for Node 24, the install and a test step', () => {
		const expected = template();
		const steps = expected.jobs.publish.steps;
		const setupNode = steps.find((step) => step.uses?.startsWith('actions/setup-node'))!;
		setupNode.with!['node-version'] = '24';
		const install = steps.find((step) => step.name === 'Install dependencies')!;
		install.run = 'npm install --no-audit --no-fund';
		const release = steps.findIndex((step) => step.name === 'Release');
		steps.splice(release, 0, {
			name: 'Test',
			run: 'npm test',
			env: { CHROMIUM_PATH: '/usr/bin/google-chrome' },
		});
		expect(ours).toEqual(expected);
	});

	it('publishes on version tags, with an OIDC token for provenance, through npm run release', () => {
		expect(ours.on).toEqual({ push: { tags: ['*.*.*'] } });
		expect(ours.jobs.publish.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		const release = ours.jobs.publish.steps.find((step) => step.name === 'Release')!;
		expect(release.run).toContain('npm run release');
		expect(release.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
		expect(pkg.scripts.release).toBe('n8n-node release');
	});

	it('tests everything before it publishes', () => {
		const names = ours.jobs.publish.steps.map((step) => step.name);
		expect(names.indexOf('Test')).toBeLessThan(names.indexOf('Release'));
		for (const part of [
			'lint',
			'build',
			'typecheck',
			'check:links',
			'scan',
			'test:unit',
			'test:e2e',
		])
			expect(pkg.scripts.test).toContain(`npm run ${part}`);
	});
});

describe('package.json repository, homepage and author', () => {
	const match = /^git\+https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)\.git$/.exec(pkg.repository.url);

	it('name one GitHub repository', () => {
		expect(match).not.toBeNull();
		const [, owner, repo] = match!;
		expect(pkg.repository.type).toBe('git');
		expect(pkg.homepage).toBe(`https://github.com/${owner}/${repo}#readme`);
		expect(pkg.bugs.url).toBe(`https://github.com/${owner}/${repo}/issues`);
		expect(pkg.author.url).toBe(`https://github.com/${owner}`);
	});

	it('is the repository the workflow tells npm to trust', () => {
		const [, owner, repo] = match!;
		expect(workflowText).toMatch(new RegExp(`Repository owner: ${owner}\\n`));
		expect(workflowText).toMatch(new RegExp(`Repository name: +${repo}\\n`));
	});
});
