// The nodes render in n8n's editor, in a real browser (Debian's chromium):
// the node panel finds Voucher Service with its icon, lists every operation,
// and the trigger shows its production webhook URL.
import { join } from 'node:path';

import { beforeAll, describe, expect, inject, it } from 'vitest';

import { tourEditor, type EditorFindings } from '../../real-n8n/editor.mts';
import { REPO_ROOT } from '../../real-n8n/paths.mts';
import {
	ACTION_NODE,
	API_CREDENTIAL,
	TRIGGER_NODE,
	WEBHOOK_CREDENTIAL,
	loadWorkflow,
	n8nUrl,
	ownerClient,
	rawWorkflow,
} from './n8nUnderTest.mts';

describe('the editor in a browser', () => {
	let findings: EditorFindings;
	let expectedActions: string[];
	let triggerDescription: string;
	let webhookId: string;

	beforeAll(async () => {
		const rest = await ownerClient();
		const api = await rest.createCredential('Voucher Sandbox (e2e editor)', API_CREDENTIAL, {
			baseUrl: 'http://127.0.0.1:9',
			publicKey: 'pk_test_sandbox',
			secretKey: 'sk_test_sandbox',
		});
		const webhook = await rest.createCredential(
			'Voucher webhooks (e2e editor)',
			WEBHOOK_CREDENTIAL,
			{
				secret: 'whsec_editor',
			},
		);
		const workflow = await rest.createWorkflow(loadWorkflow('lookups', { api }));
		const trigger = await rest.createWorkflow(loadWorkflow('trigger-events', { webhook }));
		webhookId = rawWorkflow('trigger-events').nodes[0].webhookId as string;

		// What the panel should list: the `action` of every operation option of the node.
		const types: Array<{
			name: string;
			description: string;
			properties: Array<{ name: string; options?: Array<{ action?: string }> }>;
		}> = await rest.request('GET', '/types/nodes.json');
		const node = types.find((t) => t.name === ACTION_NODE)!;
		triggerDescription = types.find((t) => t.name === TRIGGER_NODE)!.description;
		expectedActions = node.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => p.options ?? [])
			.map((o) => o.action!)
			.filter(Boolean);

		findings = await tourEditor({
			url: n8nUrl(),
			owner: inject('owner'),
			workflowId: workflow.id,
			triggerWorkflowId: trigger.id,
			outDir: join(REPO_ROOT, 'test-results', 'editor'),
			searchWords: ['check', 'test', 'connection'],
			shots: {
				nodePanel: 'node-panel.png',
				actions: 'actions.png',
				webhookUrls: 'webhook-urls.png',
			},
		});
		process.stderr.write(`[editor] ${JSON.stringify(findings.seconds)}\n`);
	}, 240_000);

	it('the node panel finds Voucher Service', () => {
		expect(findings.panelItems).toContain('Voucher Service');
	});

	it('describes the whole package under the merged entry, not only the trigger', () => {
		// n8n merges the trigger into the action node's entry and shows the trigger's description.
		expect(findings.panelDescription).toBe(triggerDescription);
		expect(findings.panelDescription).toMatch(/^Order gift-card vouchers/);
		expect(findings.panelDescription).toMatch(/e-mail them to recipients/);
		expect(findings.panelDescription).toMatch(/order and voucher events/);
	});

	it('the icon loads', async () => {
		expect(findings.icons.length).toBeGreaterThan(0);
		for (const icon of findings.icons) {
			expect(icon.src).toMatch(
				/^\/icons\/n8n-nodes-voucher-service\/dist\/nodes\/VoucherService\/voucherService(\.dark)?\.svg$/,
			);
			expect(icon.width, icon.src).toBeGreaterThan(0);
		}
	});

	it('the operations list holds every operation', () => {
		expect(expectedActions.length).toBeGreaterThanOrEqual(7);
		expect([...findings.actions].sort()).toEqual([...expectedActions].sort());
		expect(findings.actionsHeading).toBe(`Actions (${expectedActions.length})`);
		for (const op of [
			'Create a download order',
			'Create an order for recipients',
			'Get an order',
			'Get the status of a voucher',
			'Get many wallets',
			'Get many countries',
			'Get many templates',
		])
			expect(findings.actions).toContain(op);
	});

	it('a search for "check", "test" or "connection" finds the node, for Service → Check', () => {
		expect(expectedActions).toContain('Check the connection and test how the service answers');
		for (const word of ['check', 'test', 'connection'])
			expect(findings.searches[word], word).toContain('Voucher Service');
	});

	it("the trigger's webhook panel shows its production URL", () => {
		expect(findings.productionUrl).toBe(`${n8nUrl()}/webhook/${webhookId}/webhook`);
		expect(findings.files).toHaveLength(3);
	});
});
