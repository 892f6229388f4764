// The trigger in a real n8n whose stored webhook credential cannot be decrypted: the
// delivery must get a 5xx (the service retries those, never a 401) and start nothing,
// and the same delivery, once the credential is repaired, must run once. The secret the
// trigger read before the damage is kept for at most 60 seconds (docs/trigger.md): it
// still vouches for a delivery it signed, and a delivery it does not match makes the
// trigger read the credential again, which fails: 503 again, never 401. The credential
// is damaged in n8n's SQLite database, so this file is not part of the queue-mode suite
// (PostgreSQL).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { nodeOutput, type N8nRest } from '../../real-n8n/rest.mts';
import { ownerClient, postEvent, publishedTrigger, settledExecutions } from './n8nUnderTest.mts';

const SECRET = 'whsec_e2e_unreadable';

/** The encrypted `data` column of one credential in n8n's database. */
function storedCredential(id: string) {
	const db = new DatabaseSync(join(inject('n8nUserFolder'), '.n8n', 'database.sqlite'), {
		timeout: 10_000,
	});
	return {
		read: () =>
			(db.prepare('SELECT data FROM credentials_entity WHERE id = ?').get(id) as { data: string })
				.data,
		write(data: string) {
			const { changes } = db
				.prepare('UPDATE credentials_entity SET data = ? WHERE id = ?')
				.run(data, id);
			expect(changes).toBe(1);
		},
		close: () => db.close(),
	};
}

describe('trigger whose credential n8n cannot decrypt', () => {
	let rest: N8nRest;
	let workflowId: string;
	let url: string;
	let credential: ReturnType<typeof storedCredential>;

	beforeAll(async () => {
		rest = await ownerClient();
		const trigger = await publishedTrigger(rest, 'E2E: unreadable credential', SECRET);
		workflowId = trigger.id;
		url = trigger.urls[0];
		credential = storedCredential(trigger.credential.id);
	});
	afterAll(async () => {
		credential?.close();
		if (workflowId) await rest.deactivateWorkflow(workflowId).catch(() => {});
	});

	it('answers 503 and starts nothing while it is damaged, then runs the same delivery once', async () => {
		const body = JSON.stringify({
			type: 'VOUCHER_UPDATED',
			data: { serialNumber: 9001, balance: 75 },
		});
		// Verified, then answered 500 without an execution (an unknown type); the trigger now
		// keeps the secret it read.
		const unknownEvent = JSON.stringify({ type: 'WALLET_UPDATED', data: { currency: 'NGN' } });
		expect(await postEvent(url, unknownEvent, SECRET)).toBe(500);
		const original = credential.read();
		credential.write('not-an-encrypted-credential');
		try {
			// The kept secret matches: no read, so the damage does not show yet.
			expect(await postEvent(url, unknownEvent, SECRET)).toBe(500);
			// Signed with another secret (say, a rotated one): read again, which fails.
			expect(await postEvent(url, body, 'whsec_e2e_rotated')).toBe(503);
			// That failed read dropped the kept secret: the right signature is read for, and fails.
			expect(await postEvent(url, body, SECRET)).toBe(503);
			expect(await settledExecutions(rest, workflowId, 0)).toHaveLength(0);
		} finally {
			credential.write(original);
		}
		const [log] = inject('executorLogs');
		const warning = readFileSync(log, 'utf8')
			.split('\n')
			.find((line) => line.includes('Voucher Service Trigger answered 503'));
		expect(warning).toContain('Credentials could not be decrypted');
		expect(warning).not.toContain(SECRET);
		expect(warning).not.toContain('whsec_e2e');

		expect(await postEvent(url, body, SECRET)).toBe(200);
		const executions = await settledExecutions(rest, workflowId, 1);
		expect(executions).toHaveLength(1);
		const execution = await rest.getExecution(executions[0].id);
		expect(execution.status).toBe('success');
		expect(nodeOutput(execution, 'Received')).toEqual([
			expect.objectContaining({
				event: 'VOUCHER_UPDATED',
				data: { serialNumber: 9001, balance: 75 },
			}),
		]);
	});
});
