// The wallet in a real n8n 2.41.1 (issue #19): the low-balance alert example takes the If
// branch by the wallet's real balance, and a campaign the wallet cannot cover buys nothing
// (Check Wallet Balance First).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { preparedExample } from '../../real-n8n/examples.mts';
import {
	MANUAL_START,
	linearWorkflow,
	nodeError,
	nodeOutput,
	sheetRows,
	type N8nRest,
	type WorkflowJson,
} from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ACTION_NODE, API_CREDENTIAL, ownerClient, sandboxApiCredential } from './n8nUnderTest.mts';

describe('the low-balance alert example in a real n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };
	const filesDir = inject('n8nFilesDir');

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0 });
		credential = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e wallet alert)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	it('the low-balance alert reaches the e-mail only when the NGN wallet is below the threshold', async () => {
		const wf = preparedExample('low-balance-alert.json', {
			credentials: { [API_CREDENTIAL]: credential },
			filesDir,
		});
		// No mail server here: the e-mail node becomes an Edit Fields node of the same name that
		// evaluates the e-mail's own To, Subject and Text, so what is checked is the wallet read,
		// the If and the message.
		wf.nodes = wf.nodes.map((n) =>
			n.type === 'n8n-nodes-base.emailSend'
				? {
						...n,
						type: 'n8n-nodes-base.set',
						typeVersion: 3.4,
						parameters: {
							assignments: {
								assignments: ['toEmail', 'subject', 'text'].map((name) => ({
									id: name,
									name,
									value: n.parameters[name],
									type: 'string',
								})),
							},
							options: {},
						},
						credentials: {},
					}
				: n,
		);
		wf.name = 'E2E low-balance alert (no mail)';
		const { id } = await rest.createWorkflow(wf);
		const alertRun = async () => {
			const ex = await rest.runWorkflow(id, 'Every morning at 8', 60_000);
			expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
			return ex.data.resultData.runData['Send the alert'] ? nodeOutput(ex, 'Send the alert') : [];
		};
		// The sandbox starts with NGN 50,000,000: no alert.
		expect(await alertRun()).toEqual([]);
		// A sandbox whose wallet holds NGN 40,000: the NGN wallet (only) reaches the e-mail.
		const low = await startSandbox({ port: 0, initialBalanceNgn: 40_000 });
		try {
			const lowCredential = await sandboxApiCredential(rest, low, 'Voucher Sandbox (low wallet)');
			const lowWf = structuredClone(wf);
			for (const n of lowWf.nodes)
				if (n.credentials?.[API_CREDENTIAL]) n.credentials[API_CREDENTIAL] = lowCredential;
			lowWf.name += ', low wallet';
			const lowId = (await rest.createWorkflow(lowWf)).id;
			const ex = await rest.runWorkflow(lowId, 'Every morning at 8', 120_000);
			expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
			expect(nodeOutput(ex, 'Wallets').map((w) => w.currency)).toEqual(['NGN', 'USD']);
			const [mail] = nodeOutput(ex, 'Send the alert');
			expect(nodeOutput(ex, 'Send the alert')).toHaveLength(1);
			expect(mail).toMatchObject({
				toEmail: 'finance@example.com',
				subject: 'Voucher wallet low: NGN 40,000',
			});
			expect(String(mail.text)).toMatch(/^The NGN voucher wallet holds NGN 40,000, below/);
		} finally {
			await low.close();
		}
	});
});

describe('Check Wallet Balance First in a real n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };

	beforeAll(async () => {
		rest = await ownerClient();
		// NGN 3,000 in the wallet; the campaign below would spend NGN 7,500.
		sandbox = await startSandbox({ port: 0, initialBalanceNgn: 3000 });
		credential = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e small wallet)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	const admin = async <T,>(path: string): Promise<T> => {
		const res = await fetch(`${sandbox.url}/__sandbox/${path}`);
		return (await res.json()) as T;
	};

	function campaign(name: string, onError?: string): WorkflowJson {
		return linearWorkflow(name, [
			MANUAL_START,
			...sheetRows(
				['ada', 'bola', 'chidi'].map((n) => ({
					firstName: n,
					lastName: 'Test',
					email: `${n}@example.com`,
					amount: 2500,
				})),
			),
			{
				name: 'Campaign',
				type: ACTION_NODE,
				typeVersion: 1,
				...(onError ? { onError } : {}),
				parameters: {
					resource: 'order',
					operation: 'createForRecipients',
					recipientsSource: 'inputItems',
					reference: `e2e-small-wallet-${Date.now().toString(36)}`,
					productCode: 'VCH-INSTANT',
					amount: '={{ $json.amount }}',
					templateId: 1,
					options: {},
				},
				credentials: { [API_CREDENTIAL]: credential },
			},
		]);
	}

	async function expectNothingBought() {
		const requests = await admin<Array<{ method: string; path: string }>>('requests');
		expect(requests.filter((r) => r.method === 'POST')).toEqual([]);
		const ledger = await admin<{
			balances: Array<{ balance: number }>;
			entries: Array<{ kind: string }>;
		}>('ledger');
		expect(ledger.entries.map((e) => e.kind)).toEqual(['opening']);
		expect(ledger.balances[0].balance).toBe(3000);
		return requests;
	}

	const SHORT =
		'Nothing was bought: this run would spend NGN 7,500.00, but the NGN wallet holds NGN 3,000.00, NGN 4,500.00 short';

	it('a campaign the wallet does not cover stops before any order, naming total, balance and shortfall', async () => {
		const { id } = await rest.createWorkflow(campaign('E2E campaign, small wallet'));
		const ex = await rest.runWorkflow(id, 'Start', 120_000);
		expect(ex.status).toBe('error');
		expect(nodeError(ex, 'Campaign')?.message).toBe(SHORT);
		const requests = await expectNothingBought();
		// It read the wallet (once), after looking for the campaign's earlier orders.
		expect(requests.filter((r) => r.path === '/v2/transactions/wallets')).toHaveLength(1);
	});

	it('with On Error → Continue every row gets the same error item, and still nothing is bought', async () => {
		const { id } = await rest.createWorkflow(
			campaign('E2E campaign, small wallet, continue', 'continueRegularOutput'),
		);
		const ex = await rest.runWorkflow(id, 'Start', 120_000);
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');
		const out = nodeOutput(ex, 'Campaign');
		expect(out.map((i) => i.error)).toEqual([SHORT, SHORT, SHORT]);
		await expectNothingBought();
	});
});
