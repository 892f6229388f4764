// The credential's "Test" button in the editor, reached through the same REST
// endpoint the editor calls (POST /rest/credentials/test), against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { API_CREDENTIAL, ownerClient } from './n8nUnderTest.mts';

describe('credential test (the editor\'s "Test" button)', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	const data = (overrides: Record<string, unknown> = {}) => ({
		baseUrl: sandbox.url,
		publicKey: sandbox.keys.publicKey,
		secretKey: sandbox.keys.secretKey,
		...overrides,
	});

	/** The test passed after exactly one call: the wallets read, with the sandbox's keys. */
	function expectOneWalletsReadWithSandboxKeys(result: { status: string; message?: string }) {
		expect(result.status, result.message).toBe('OK');
		expect(sandbox.state.requests.map((r) => [r.method, r.path, r.publicKey, r.status])).toEqual([
			['GET', '/v2/transactions/wallets', sandbox.keys.publicKey, 200],
		]);
	}

	it('succeeds with the sandbox keys, calling GET /v2/transactions/wallets with them', async () => {
		sandbox.reset();
		const result = await rest.testCredential(API_CREDENTIAL, data());
		expectOneWalletsReadWithSandboxKeys(result);
	});

	it('succeeds for a saved credential (the test that runs on Save)', async () => {
		sandbox.reset();
		const saved = await rest.createCredential(
			'Voucher Sandbox (e2e credential test)',
			API_CREDENTIAL,
			data(),
		);
		const result = await rest.testCredential(API_CREDENTIAL, data(), saved.id, saved.name);
		expectOneWalletsReadWithSandboxKeys(result);
	});

	it('succeeds with a trailing slash on the base URL', async () => {
		const result = await rest.testCredential(API_CREDENTIAL, data({ baseUrl: `${sandbox.url}/` }));
		expect(result.status, result.message).toBe('OK');
	});

	it('fails with a wrong secret key (401)', async () => {
		sandbox.reset();
		const result = await rest.testCredential(API_CREDENTIAL, data({ secretKey: 'sk_test_wrong' }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/401|unauthori[sz]ed|authori[sz]ation|credentials/i);
		expect(sandbox.state.requests.at(-1)?.status).toBe(401);
	});

	it('fails with keys that lack permission (403)', async () => {
		const result = await rest.testCredential(
			API_CREDENTIAL,
			data({
				publicKey: sandbox.forbiddenKeys.publicKey,
				secretKey: sandbox.forbiddenKeys.secretKey,
			}),
		);
		expect(result.status).toBe('Error');
		expect(sandbox.state.requests.at(-1)?.status).toBe(403);
	});

	it('fails when nothing listens at the base URL', async () => {
		const result = await rest.testCredential(
			API_CREDENTIAL,
			data({ baseUrl: 'http://127.0.0.1:9' }),
		);
		expect(result.status).toBe('Error');
	});
});
