// The issue-9 scenario in a real n8n: one campaign run three times while the sheet and
// Recipients per Order change, with a dry run before the last run. Judged from the
// sandbox's books: vouchers per recipient across the campaign, and the money spent. Then
// Order → Get Campaign reports the same campaign, buying nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
	linearWorkflow,
	sheetRows,
	MANUAL_START,
	nodeOutput,
	type Execution,
	type N8nRest,
	type WorkflowJson,
} from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ACTION_NODE, API_CREDENTIAL, ownerClient, sandboxApiCredential } from './n8nUnderTest.mts';

const NODE = 'Campaign';
const REPORT = 'Report';

interface Row {
	firstName: string;
	lastName: string;
	email: string;
	amount: number;
}

/** Every third row 1,000 NGN, the others 2,000 NGN, as in the issue. */
const rows: Row[] = Array.from({ length: 45 }, (_, i) => ({
	firstName: `First${i}`,
	lastName: `Last${i}`,
	email: `person${i}@example.com`,
	amount: i % 3 === 0 ? 1000 : 2000,
}));

function campaignWorkflow(
	name: string,
	base: string,
	sheet: Row[],
	options: Record<string, unknown>,
	credential: { id: string; name: string },
): WorkflowJson {
	return linearWorkflow(name, [
		MANUAL_START,
		...sheetRows(sheet),
		{
			name: NODE,
			type: ACTION_NODE,
			typeVersion: 1,
			parameters: {
				resource: 'order',
				operation: 'createForRecipients',
				recipientsSource: 'inputItems',
				reference: base,
				productCode: 'VCH-INSTANT',
				amount: '={{ $json.amount }}',
				templateId: 1,
				options,
			},
			credentials: { [API_CREDENTIAL]: credential },
		},
	]);
}

/** Order → Get Campaign on `base`, from a manual start. */
function reportWorkflow(base: string, credential: { id: string; name: string }): WorkflowJson {
	return linearWorkflow('E2E campaign: report', [
		MANUAL_START,
		{
			name: REPORT,
			type: ACTION_NODE,
			typeVersion: 1,
			parameters: { resource: 'order', operation: 'getCampaign', reference: base },
			credentials: { [API_CREDENTIAL]: credential },
		},
	]);
}

describe('a campaign re-run in n8n after the sheet and the settings changed', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };
	const base = `e2e-campaign-${Date.now().toString(36)}`;

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0 });
		credential = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e campaign)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	async function run(label: string, sheet: Row[], options: Record<string, unknown>) {
		const posts = sandbox.state.requests.filter((r) => r.method === 'POST').length;
		const balance = sandbox.state.ledger.at(-1)!.balanceAfterKobo;
		const { id } = await rest.createWorkflow(
			campaignWorkflow(`E2E campaign: ${label}`, base, sheet, options, credential),
		);
		const ex: Execution = await rest.runWorkflow(id, 'Start', 120_000);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		const posted = sandbox.state.requests.filter((r) => r.method === 'POST').slice(posts);
		return {
			ex,
			output: nodeOutput(ex, NODE),
			postedEmails: posted.flatMap((r) =>
				((r.body as { recipients: Array<{ email: string }> }).recipients ?? []).map((p) => p.email),
			),
			spentKobo: balance - sandbox.state.ledger.at(-1)!.balanceAfterKobo,
		};
	}

	function vouchersPerEmail(): Map<string, number[]> {
		const held = new Map<string, number[]>();
		for (const order of sandbox.state.orders.values()) {
			if (!order.reference.startsWith(`${base}-`)) continue;
			for (const v of order.vouchers) held.set(v.email!, [...(held.get(v.email!) ?? []), v.value]);
		}
		return held;
	}

	it('30 rows at 10 per order, again at 7, a dry run, then 45 rows at 7: each person one voucher', async () => {
		const first = await run('30 rows at 10', rows.slice(0, 30), { recipientsPerOrder: 10 });
		expect(first.postedEmails).toHaveLength(30);

		const second = await run('same rows at 7', rows.slice(0, 30), { recipientsPerOrder: 7 });
		expect(second.postedEmails).toEqual([]);
		expect(second.output.every((row) => row.alreadyExisted === true)).toBe(true);

		const dry = await run('dry run, 45 rows at 7', rows, { recipientsPerOrder: 7, dryRun: true });
		expect(dry.postedEmails).toEqual([]);
		expect(dry.spentKobo).toBe(0);
		expect(dry.output.slice(30).every((row) => row.dryRun === true && row.wouldBuy === true)).toBe(
			true,
		);
		const hints =
			(dry.ex.data.resultData.runData[NODE][0] as { hints?: Array<{ message: string }> }).hints ??
			[];
		const hint = hints.map((h) => h.message).join(' ');
		expect(hint).toMatch(/a real run would buy 15 vouchers in \d+ new orders for NGN 25,000\.00/);

		const third = await run('45 rows at 7', rows, { recipientsPerOrder: 7 });
		expect(third.postedEmails.sort()).toEqual(
			rows
				.slice(30)
				.map((r) => r.email)
				.sort(),
		);
		expect(third.spentKobo).toBe(2_500_000);
		expect(third.output.map((row) => row.email)).toEqual(rows.map((r) => r.email));

		const held = vouchersPerEmail();
		expect(held.size).toBe(45);
		for (const row of rows) expect(held.get(row.email), row.email).toEqual([row.amount]);

		// Get Campaign lists the same 45 vouchers, all delivered, and sends no create.
		const posts = sandbox.state.requests.filter((r) => r.method === 'POST').length;
		const { id } = await rest.createWorkflow(reportWorkflow(base, credential));
		const report: Execution = await rest.runWorkflow(id, 'Start', 120_000);
		expect(report.status, JSON.stringify(report.data.resultData.error)).toBe('success');
		expect(sandbox.state.requests.filter((r) => r.method === 'POST').length).toBe(posts);
		const items = nodeOutput(report, REPORT);
		expect(items.map((item) => item.email).sort()).toEqual(rows.map((r) => r.email).sort());
		for (const item of items) {
			expect(item.deliveryStatus).toBe('DELIVERED');
			expect(item.value).toBe(held.get(item.email as string)![0]);
			expect(item.reference).toMatch(new RegExp(`^${base}-\\d+$`));
		}
		const reportHints =
			(report.data.resultData.runData[REPORT][0] as { hints?: Array<{ message: string }> }).hints ??
			[];
		expect(reportHints.map((h) => h.message)).toEqual([
			expect.stringMatching(
				new RegExp(
					`^Campaign "${base}": 45 vouchers in \\d+ orders, worth NGN 75,000\\.00: 45 DELIVERED, 0 FAILED, 0 CANCELED, 0 PROCESSING\\.$`,
				),
			),
		]);
	}, 300_000);
});
