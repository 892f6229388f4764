// Service → Check in a real n8n, run as the editor's "Execute workflow" runs it, against
// the sandbox: one item per check, failed items rather than a failed run for keys the
// service refuses, nothing bought and no key in the execution n8n stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { loadWorkflow, ownerClient, sandboxApiCredential } from './n8nUnderTest.mts';

const CHECKS = [
	'Keys and base URL',
	'NGN wallet',
	'Unknown order',
	'Templates',
	'Countries',
	'Error bodies',
	'Rate limits',
	'Answer times',
];

describe('Service → Check in n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	it('reports every check for good, wrong and read-only keys, and buys nothing', async () => {
		const credentials = {
			api: await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e check)'),
			wrongKeys: await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e wrong keys)', {
				secretKey: 'sk_wrong_e2e',
			}),
			readOnlyKeys: await sandboxApiCredential(
				rest,
				sandbox,
				'Voucher Sandbox (e2e read-only keys)',
				sandbox.forbiddenKeys,
			),
		};
		const { id } = await rest.createWorkflow(loadWorkflow('service-check', credentials));
		const ex = await rest.runWorkflow(id, 'Start');
		expect(ex.status, JSON.stringify(ex.data.resultData.error)).toBe('success');

		const good = nodeOutput(ex, 'Check');
		expect(good.map((item) => item.check)).toEqual(CHECKS);
		for (const item of good) expect(item.result, `${item.check}: ${item.seen}`).toBe('ok');

		const wrong = nodeOutput(ex, 'Check with wrong keys');
		expect(wrong.map((item) => item.check)).toEqual(CHECKS);
		expect(wrong[0]).toMatchObject({ check: 'Keys and base URL', result: 'failed' });
		expect(wrong[0].seen).toContain('HTTP 401');

		const readOnly = nodeOutput(ex, 'Check with read-only keys');
		expect(readOnly[0]).toMatchObject({ check: 'Keys and base URL', result: 'failed' });
		expect(readOnly[0].seen).toContain('HTTP 403');

		expect(sandbox.state.requests.filter((r) => r.method !== 'GET')).toEqual([]);
		// The execution as n8n stores it holds no key of any of the three credentials.
		const stored = JSON.stringify(ex);
		for (const secret of [
			sandbox.keys.secretKey,
			sandbox.forbiddenKeys.secretKey,
			'sk_wrong_e2e',
			'Basic ',
		])
			expect(stored).not.toContain(secret);
	});
});
