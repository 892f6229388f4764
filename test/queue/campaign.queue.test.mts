// A 1,000-row campaign from input items, run by a worker in queue mode: every
// row gets exactly one voucher, and the execution ran on a worker process.
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';

import {
	linearWorkflow,
	MANUAL_START,
	nodeOutput,
	type N8nRest,
	type WorkflowJson,
} from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ACTION_NODE, sandboxApiCredential } from '../../real-n8n/fixtures.mts';
import { ownerClient } from '../e2e/n8nUnderTest.mts';

const ROWS = 1000;

function campaignWorkflow(api: { id: string; name: string }): WorkflowJson {
	return linearWorkflow('Queue: 1,000-row campaign', [
		MANUAL_START,
		{
			name: 'Rows',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: {
				jsCode: `return Array.from({ length: ${ROWS} }, (_, i) => ({ json: { firstName: 'Row', lastName: String(i), email: 'row' + i + '@example.com' } }));`,
			},
		},
		{
			name: 'Campaign',
			type: ACTION_NODE,
			typeVersion: 1,
			parameters: {
				resource: 'order',
				operation: 'createForRecipients',
				reference: "={{ 'queue-camp-' + $execution.id }}",
				productCode: 'VCH-INSTANT',
				amount: 1000,
				templateId: 7,
				recipientsSource: 'inputItems',
			},
			credentials: { voucherServiceApi: api },
		},
	]);
}

describe('queue mode: a campaign on a worker', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let workflowId: string;

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0, initialBalanceNgn: 10_000_000 });
		const api = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (queue campaign)');
		workflowId = (await rest.createWorkflow(campaignWorkflow(api))).id;
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	it('orders one voucher for each of 1,000 input rows', async () => {
		const ex = await rest.runWorkflow(workflowId, 'Start', 170_000);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		// One item per row, in input order, each with its own delivered voucher.
		const rows = nodeOutput(ex, 'Campaign');
		expect(rows.map((r) => r.email)).toEqual(
			Array.from({ length: ROWS }, (_, i) => `row${i}@example.com`),
		);
		for (const row of rows) {
			expect(row).toMatchObject({ status: 'COMPLETED', voucher: { status: 'DELIVERED' } });
		}
		// Split into orders of 100 recipients (the default), each placed once.
		const references = new Set(rows.map((r) => r.reference));
		expect(references.size).toBe(ROWS / 100);
		const placed = [...sandbox.state.orders.values()];
		expect(placed.map((o) => o.reference).sort()).toEqual([...references].sort());
		expect(new Set(rows.map((r) => (r.voucher as { serial: unknown }).serial)).size).toBe(ROWS);

		// It ran on a worker, not in the main process.
		const workerLogs = inject('executorLogs').map((f) => readFileSync(f, 'utf8'));
		expect(workerLogs.some((log) => log.includes(`Worker started execution ${ex.id} `))).toBe(true);
	});
});
