// A rate-limited service in a real n8n: Order → Create per row against a fixed window that
// says nothing (no Retry-After, no rate-limit headers) and commits nothing on a 429, and that
// would buy a used Reference again, so a resend that bought twice would show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ownerClient, runActionOnRows, sandboxApiCredential } from './n8nUnderTest.mts';

const ROWS = 30;

describe('a rate-limited service in n8n', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({
			port: 0,
			rateLimit: { kind: 'fixedWindow', requests: 5, seconds: 1, signal: 'none' },
			acceptDuplicateReferences: true,
		});
		credential = await sandboxApiCredential(rest, sandbox, 'Voucher Sandbox (e2e rate limit)');
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	it(`buys each of ${ROWS} rows once under a 5-per-second window with no hints, no row failed`, async () => {
		const prefix = `e2e-limit-${Date.now().toString(36)}`;
		const rows = Array.from({ length: ROWS }, (_, i) => ({ reference: `${prefix}-${i}` }));
		const { output } = await runActionOnRows(rest, credential, rows, {
			resource: 'order',
			operation: 'create',
			reference: '={{ $json.reference }}',
			productCode: 'VCH-INSTANT',
			amount: 1000,
			quantity: 1,
			options: {},
		});

		expect(output.filter((item) => item.error)).toEqual([]);
		expect(output.map((item) => item.reference)).toEqual(rows.map((row) => row.reference));
		const debited = sandbox.state.ledger
			.filter((entry) => entry.kind === 'debit')
			.map((entry) => entry.reference)
			.sort();
		expect(debited).toEqual(rows.map((row) => row.reference).sort());
		const requests = sandbox.state.requests.filter((entry) => entry.path.startsWith('/v2'));
		expect(requests.some((entry) => entry.status === 429)).toBe(true);
		expect(requests.filter((entry) => entry.method === 'GET')).toEqual([]);
	});
});
