// examples/campaign-from-data-table's pages follow the rows' ids. Where Read the page gives rows
// out of id order (an n8n without Order By on a database that keeps no order, here forced with
// Order By id descending), Whole thousands stops the page before anything is bought, rather than
// pass over rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import {
	RecipientTable,
	dataTableExample as example,
} from '../../real-n8n/campaignFromDataTable.mts';
import type { N8nRest, WorkflowJson } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ownerClient, sandboxApiCredential } from './n8nUnderTest.mts';
import { lastSeq, pagedCampaignBooks } from './pagedCampaignBooks.mts';

const ROWS = 300;

describe('a page of the Data Table example read out of id order', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let table: RecipientTable;
	let scratch: string;

	beforeAll(async () => {
		rest = await ownerClient();
		scratch = mkdtempSync(join(tmpdir(), 'voucher-e2e-order-'));
		table = await RecipientTable.create(rest);
		await table.add(ROWS, 1, 1);
		sandbox = await startSandbox({ port: 0 });
		const credentials = {
			voucherServiceApi: await sandboxApiCredential(rest, sandbox, 'Voucher Service account'),
		};
		const descending = (wf: WorkflowJson) => {
			const read = wf.nodes.find((n) => n.name === 'Read the page');
			if (read) read.parameters.orderByDirection = 'DESC';
		};
		await example.importBoth(inject('n8nUserFolder'), credentials, scratch, { adapt: descending });
		await rest.activateWorkflow(example.pageId);
	}, 120_000);
	afterAll(async () => {
		await rest?.deactivateWorkflow(example.pageId).catch(() => {});
		await table?.drop();
		await sandbox?.close();
		if (scratch) rmSync(scratch, { recursive: true, force: true });
	});

	it('stops the campaign with the reason, having bought and written nothing', async () => {
		const seq = lastSeq(sandbox);
		const ex = await rest.runWorkflow(example.campaignId, example.start, 60_000);
		expect(ex.status).toBe('error');
		expect(JSON.stringify(ex.data.resultData.error)).toContain(
			'Read the page gave rows out of id order',
		);
		expect(pagedCampaignBooks(sandbox, example.base).requestsSince(seq)).toEqual({
			lookUps: 0,
			creates: 0,
			refusedCreates: 0,
		});
		expect((await table.rows()).filter((r) => r.result !== null)).toEqual([]);
	});
});
