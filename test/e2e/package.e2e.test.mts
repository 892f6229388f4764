// Our packed tarball, installed like a manual community-package install, is
// loaded by a real n8n: both nodes and both credentials are listed, which
// means every import of the compiled code resolved inside n8n.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { beforeAll, describe, expect, inject, it } from 'vitest';

import type { N8nRest } from '../../real-n8n/rest.mts';
import {
	ACTION_NODE,
	API_CREDENTIAL,
	TRIGGER_NODE,
	WEBHOOK_CREDENTIAL,
	ownerClient,
} from './n8nUnderTest.mts';

describe('the package inside n8n', () => {
	let rest: N8nRest;
	let nodeTypes: Array<{
		name: string;
		displayName: string;
		version: number | number[];
		defaultVersion?: number;
		iconUrl?: unknown;
		credentials?: Array<{ name: string }>;
	}>;

	beforeAll(async () => {
		rest = await ownerClient();
		nodeTypes = await rest.request('GET', '/types/nodes.json');
	});

	it('is installed in the user folder the way a manual community install puts it', () => {
		const folder = inject('n8nUserFolder');
		const installed = JSON.parse(
			readFileSync(
				join(folder, '.n8n', 'nodes', 'node_modules', 'n8n-nodes-voucher-service', 'package.json'),
				'utf8',
			),
		);
		expect(installed.name).toBe('n8n-nodes-voucher-service');
		// n8n-workflow is a peer dependency: n8n's own copy must be used, none installed next to ours.
		expect(() =>
			readFileSync(join(folder, '.n8n', 'nodes', 'node_modules', 'n8n-workflow', 'package.json')),
		).toThrow();
	});

	it('lists the action node and the trigger node', () => {
		const ours = nodeTypes.filter((t) => t.name.startsWith('n8n-nodes-voucher-service.'));
		// n8n adds "<name>Tool", the AI-agent tool variant, for nodes that set usableAsTool.
		expect(ours.map((t) => t.name).sort()).toEqual(
			[ACTION_NODE, `${ACTION_NODE}Tool`, TRIGGER_NODE].sort(),
		);
		const action = ours.find((t) => t.name === ACTION_NODE)!;
		expect(action.credentials?.map((c) => c.name)).toContain(API_CREDENTIAL);
		const trigger = ours.find((t) => t.name === TRIGGER_NODE)!;
		expect(trigger.credentials?.map((c) => c.name)).toContain(WEBHOOK_CREDENTIAL);
		// New trigger nodes get version 2; workflows saved at version 1 still load.
		expect([trigger.version, trigger.defaultVersion]).toEqual([[1, 2], 2]);
	});

	it('lists both credential types', async () => {
		const credentialTypes: Array<{ name: string }> = await rest.request(
			'GET',
			'/types/credentials.json',
		);
		const names = credentialTypes.map((c) => c.name);
		expect(names).toContain(API_CREDENTIAL);
		expect(names).toContain(WEBHOOK_CREDENTIAL);
	});

	it('serves the node icons', async () => {
		const action = nodeTypes.find((t) => t.name === ACTION_NODE)!;
		const urls =
			typeof action.iconUrl === 'string'
				? [action.iconUrl]
				: Object.values(action.iconUrl as Record<string, string>);
		expect(urls.length).toBeGreaterThan(0);
		for (const url of urls) {
			const res = await fetch(`${inject('n8nUrl')}/${url.replace(/^\//, '')}`, {
				headers: { cookie: rest.cookie },
			});
			expect(res.status, url).toBe(200);
			expect(await res.text()).toContain('<svg');
		}
	});
});
