// Keys shorter than 4 characters (issue 42) are masked like any other, in a real n8n: a service
// that repeats the credential in its refusal puts no form of a 3-character key into the
// execution (read whole through REST), whether the node continues or stops, nor into n8n's log.
import { readFileSync, statSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { linearWorkflow, MANUAL_START, type N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import {
	ACTION_NODE,
	API_CREDENTIAL,
	ownerClient,
	sandboxApiCredential,
	until,
} from './n8nUnderTest.mts';

// Characters that occur nowhere else in an execution or a log, so their absence means something.
const KEYS = { publicKey: 'q~Z', secretKey: 'z~Q' };

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const pair = `${KEYS.publicKey}:${KEYS.secretKey}`;

/** Every form in which the sandbox echoes the credential: each key plain and in base64, the pair decoded, as sent and URL-encoded. */
const forms = [
	KEYS.publicKey,
	KEYS.secretKey,
	pair,
	base64(KEYS.publicKey),
	base64(KEYS.secretKey),
	base64(pair).replace(/=+$/, ''),
	encodeURIComponent(base64(pair)),
];

describe('a credential whose keys are 3 characters, echoed by the service', () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let credential: { id: string; name: string };
	const [log] = inject('executorLogs');

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0, echoAuthorization: 'text' });
		credential = await sandboxApiCredential(
			rest,
			{ url: sandbox.url, keys: KEYS },
			'Voucher Sandbox (e2e short keys)',
		);
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	it.each([
		['continues', 'continueRegularOutput'],
		['stops', 'stopWorkflow'],
	])(
		'leaves no form of them in the execution when the node %s, nor in the log',
		async (_, onError) => {
			const logFrom = statSync(log).size;
			// The refusal does carry them: what the node gets is what it must mask.
			const echo = await fetch(`${sandbox.url}/v2/transactions/wallets`, {
				headers: { authorization: `Basic ${base64(pair)}` },
			});
			expect(echo.status).toBe(400);
			const echoed = await echo.text();
			for (const form of forms) expect(echoed, form).toContain(form);

			const workflow = linearWorkflow(`short keys ${onError} ${Date.now()}`, [
				MANUAL_START,
				{
					name: 'Wallets',
					type: ACTION_NODE,
					typeVersion: 1,
					onError,
					parameters: { resource: 'wallet', operation: 'getAll' },
					credentials: { [API_CREDENTIAL]: credential },
				},
			]);
			const { id } = await rest.createWorkflow(workflow);
			const ex = await rest.runWorkflow(id, 'Start');
			expect(ex.status).toBe(onError === 'stopWorkflow' ? 'error' : 'success');
			const whole = JSON.stringify(await rest.request('GET', `/rest/executions/${ex.id}`));
			// The service's refusal is in it, with the keys withheld where they stood.
			expect(whole).toContain('[key withheld]');
			for (const form of forms) expect(whole, form).not.toContain(form);

			// A stopped workflow's error is logged: wait for it, so the log is read with it in.
			const logged =
				onError === 'stopWorkflow'
					? await until('the error in the log', () => {
							const text = readFileSync(log).subarray(logFrom).toString('utf8');
							return text.includes('The voucher service refused the request') && text;
						})
					: readFileSync(log).subarray(logFrom).toString('utf8');
			for (const form of forms) expect(logged, form).not.toContain(form);
		},
	);
});
