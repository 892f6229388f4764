// One campaign fed by Row ID as many executions at once, spread over the workers: a published
// workflow takes a page of IDs by webhook, and the pages are fired together through the router,
// some twice at once, some overlapping. Judged from the sandbox's books, as docs/queue-mode.md
// promises: every Row ID holds one voucher, and no order was paid twice.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import {
	linearWorkflow,
	nodeOutput,
	type N8nRest,
	type WorkflowJson,
} from '../../real-n8n/rest.mts';
import { ACTION_NODE, sandboxApiCredential } from '../../real-n8n/fixtures.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { campaignBooks } from '../nodes/VoucherService/campaignBooks.mts';
import { ownerClient, settledExecutions, webhookUrls } from '../e2e/n8nUnderTest.mts';

const ROWS = 800;
const AMOUNT = 1000;

/**
 * Row k has ID k × step. At 10 a block of 1,000 IDs holds 100 rows, one order, so the pages
 * below meet as over 8 blocks, and the raced order is block 3's first: the first create of
 * [300, 350), twice, and of [350, 400). At 1 every page falls in block 0, and each loses many
 * creates to the others' orders.
 */
const LAYOUTS = [
	{ step: 10, racedOrder: (base: string) => `${base}-k3-n1` },
	{ step: 1, racedOrder: (base: string) => `${base}-k0-n1` },
];

/** [from, to): the rows of a page. */
type Page = [number, number];

const halfBlocks: Page[] = Array.from({ length: ROWS / 50 }, (_, i) => [i * 50, i * 50 + 50]);
const PAGES: Page[] = [
	// Two pages in each hundred rows: different rows of one block at once.
	...halfBlocks,
	// The same page twice at once.
	[300, 350],
	[650, 700],
	// Pages across blocks' edges, and the whole campaign, overlapping all the others.
	[25, 125],
	[420, 580],
	[0, ROWS],
];

const person = (id: number) => ({
	firstName: 'Row',
	lastName: String(id),
	email: `row${id}@example.com`,
});

function pageWorkflow(
	base: string,
	path: string,
	step: number,
	api: { id: string; name: string },
): WorkflowJson {
	return linearWorkflow(`Queue: campaign pages ${base}`, [
		{
			name: 'Page',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path, options: {} },
		},
		{
			name: 'Rows of the page',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: {
				jsCode: [
					'const { from, to } = $input.first().json.body;',
					'return Array.from({ length: to - from }, (_, i) => {',
					`  const id = (from + i) * ${step};`,
					"  return { json: { id, firstName: 'Row', lastName: String(id), email: 'row' + id + '@example.com' } };",
					'});',
				].join('\n'),
			},
		},
		{
			name: 'Campaign',
			type: ACTION_NODE,
			typeVersion: 1,
			parameters: {
				resource: 'order',
				operation: 'createForRecipients',
				reference: base,
				productCode: 'VCH-INSTANT',
				amount: AMOUNT,
				templateId: 7,
				recipientsSource: 'inputItems',
				rowIdField: 'id',
			},
			credentials: { voucherServiceApi: api },
		},
	]);
}

describe.each(LAYOUTS)(
	'queue mode: one campaign in pages over several workers at once, IDs $step apart',
	({ step, racedOrder }) => {
		let rest: N8nRest;
		let sandbox: Sandbox;
		let workflowId: string;
		const base = `queue-pages-${randomUUID().slice(0, 8)}`;
		const path = `campaign-page-${randomUUID()}`;

		beforeAll(async () => {
			rest = await ownerClient();
			// The race the test is about happens every time, whatever the machine's speed: the raced
			// order is held until three executions have sent it, so each of them read the
			// block before any bought in it (sandbox/README.md, createBarrier); two are refused.
			// The deadline stays under the node's 60 s request timeout.
			sandbox = await startSandbox({
				port: 0,
				initialBalanceNgn: 10_000_000,
				createBarrier: { creates: 3, reference: racedOrder(base), timeoutMs: 45_000 },
			});
			const api = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (queue pages)');
			workflowId = (await rest.createWorkflow(pageWorkflow(base, path, step, api))).id;
			await rest.activateWorkflow(workflowId);
			for (const url of webhookUrls()) await rest.waitForWebhook(`${url}/webhook/${path}`);
		});
		afterAll(async () => {
			if (workflowId) await rest.deactivateWorkflow(workflowId).catch(() => {});
			await sandbox?.close();
		});

		it('each Row ID is bought once, whichever page, execution and worker brings it', async () => {
			const statuses = await Promise.all(
				PAGES.map(async ([from, to]) => {
					const res = await fetch(`${inject('routerUrl')}/webhook/${path}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ from, to }),
					});
					await res.arrayBuffer();
					return res.status;
				}),
			);
			expect(statuses).toEqual(PAGES.map(() => 200));
			const executions = await settledExecutions(rest, workflowId, PAGES.length);
			expect(executions).toHaveLength(PAGES.length);

			// Every row of every page comes out with the one voucher its person holds: bought by this
			// execution, or held from another's order. None fails.
			const serials = new Map<string, Set<unknown>>();
			let held = 0;
			const workerLogs = inject('executorLogs').map((file) => readFileSync(file, 'utf8'));
			const workersUsed = new Set<number>();
			for (const { id } of executions) {
				const ex = await rest.getExecution(id);
				expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
				for (const row of nodeOutput(ex, 'Campaign')) {
					expect(row).toMatchObject({ status: 'COMPLETED', voucher: { status: 'DELIVERED' } });
					const email = String(row.email);
					serials.set(
						email,
						(serials.get(email) ?? new Set()).add((row.voucher as { serial: unknown }).serial),
					);
					if (row.alreadyExisted) held++;
				}
				const worker = workerLogs.findIndex((log) =>
					log.includes(`Worker started execution ${id} `),
				);
				expect(worker, `execution ${id} ran on no worker`).toBeGreaterThanOrEqual(0);
				workersUsed.add(worker);
			}
			expect(workersUsed.size).toBe(workerLogs.length);
			const books = campaignBooks(sandbox);
			const orders = books.campaignOrders(base);
			const vouchers = new Map(orders.flatMap((o) => o.vouchers.map((v) => [v.email, v.serial])));
			expect(serials.size).toBe(ROWS);
			for (const [email, seen] of serials) expect([...seen], email).toEqual([vouchers.get(email)]);

			const rows = Array.from({ length: ROWS }, (_, k) => ({
				...person(k * step),
				amount: AMOUNT,
			}));
			books.expectEveryRowHeldOnce(base, rows);
			books.expectOneDebitPerOrder(base);
			expect(orders.every((order) => /-k\d+-n\d+$/.test(order.reference))).toBe(true);
			// Executions met at the service: creates of a number that came second were refused.
			const posts = sandbox.state.requests.filter(
				(r) => r.method === 'POST' && r.path.startsWith('/v2/orders'),
			);
			const raced = posts.filter(
				(r) => (r.body as { reference?: string }).reference === racedOrder(base),
			);
			expect(raced.length).toBeGreaterThanOrEqual(3);
			expect(raced.filter((r) => r.statusCode === '00')).toHaveLength(1);
			const creates = posts.length;
			expect(creates).toBeGreaterThan(orders.length);
			console.info(
				`${PAGES.length} executions on ${workersUsed.size} workers: ${ROWS} rows in ${orders.length} orders, ${creates - orders.length} creates refused to a run that came second, ${held} page rows held from another execution's order`,
			);
		});
	},
);
