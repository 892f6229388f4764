// The trigger over HTTP with its per-process cache of the webhook secret (issue #20): what
// the service gets back after a rotation, a damaged credential or a forged flood, and that
// the secret goes nowhere but process memory. The cache's own rules: secretCache.test.mts.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { INode } from 'n8n-workflow';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { signPayload } from '../../../nodes/serviceProtocol/signature';
import {
	MAX_WAITING,
	MISMATCH_READ_INTERVAL_MS,
	SECRET_LIFETIME_MS,
} from '../../../nodes/VoucherServiceTrigger/secretCache';
import { VoucherServiceTrigger } from '../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
import { startWebhookHost, triggerNode, type WebhookHost } from './n8nWebhookHost.mts';

const OLD = 'whsec_before_rotation';
const NEW = 'whsec_after_rotation';

describe('the trigger with a cached secret', () => {
	let host: WebhookHost;
	/** What n8n's credential store holds; an Error makes getCredentials throw it. */
	let stored: string | Error;
	let getCredentials: ReturnType<typeof vi.fn>;

	// Time stands still unless a test moves it: each read starts the interval between reads.
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ['Date'] });
		vi.setSystemTime(new Date('2026-11-25T09:00:00.000Z'));
	});
	afterEach(async () => {
		vi.useRealTimers();
		await host.close();
	});
	const afterInterval = () => vi.setSystemTime(Date.now() + MISMATCH_READ_INTERVAL_MS);

	async function start(options: { credentialId?: string | null; workflowId?: string } = {}) {
		const credentialId = options.credentialId === undefined ? randomUUID() : options.credentialId;
		const node: INode =
			credentialId === null
				? triggerNode
				: {
						...triggerNode,
						credentials: { voucherServiceWebhookApi: { id: credentialId, name: 'Webhooks' } },
					};
		getCredentials = vi.fn(async () => {
			if (stored instanceof Error) throw stored;
			return { secret: stored };
		});
		host = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: undefined,
			// The run-once election is another test's subject and takes a second per event.
			parameters: { suppressDuplicates: false },
			webhookContext: {
				getCredentials,
				getNode: () => node,
				...(options.workflowId === undefined
					? {}
					: { getWorkflow: () => ({ id: options.workflowId, name: 'Other', active: true }) }),
			},
		});
	}

	let serial = 0;
	/** A new event each time, so duplicate suppression never answers for the signature. */
	async function deliver(signedWith: string): Promise<number> {
		const body = JSON.stringify({
			type: 'VOUCHER_UPDATED',
			data: { serialNumber: ++serial, balance: 5 },
		});
		const res = await request(host.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', signature: signPayload(body, signedWith) },
			body,
		});
		await res.body.dump();
		await host.idle();
		return res.statusCode;
	}

	const reads = () => getCredentials.mock.calls.length;

	it('does not read the credential on a cache hit', async () => {
		stored = OLD;
		await start();
		expect([await deliver(OLD), await deliver(OLD), await deliver(OLD)]).toEqual([200, 200, 200]);
		expect(reads()).toBe(1);
		expect(host.executions).toHaveLength(3);
	});

	it('reads on every delivery when the node has no credential id', async () => {
		stored = OLD;
		await start({ credentialId: null });
		expect([await deliver(OLD), await deliver(OLD)]).toEqual([200, 200]);
		expect(reads()).toBe(2);
	});

	it('keeps one secret per workflow and credential', async () => {
		stored = OLD;
		const credentialId = randomUUID();
		await start({ credentialId });
		await deliver(OLD);
		const first = getCredentials;
		await host.close();
		await start({ credentialId, workflowId: 'wf-2' }); // the same credential, another workflow
		await deliver(OLD);
		const second = getCredentials;
		await host.close();
		await start(); // the same workflow, another credential
		await deliver(OLD);
		expect([first, second, getCredentials].map((read) => read.mock.calls.length)).toEqual([
			1, 1, 1,
		]);
		await host.close();
		await start({ credentialId }); // the first pair again: still cached
		await deliver(OLD);
		expect(reads()).toBe(0);
	});

	it('accepts a rotated secret at once, with one extra read', async () => {
		stored = OLD;
		await start();
		expect(await deliver(OLD)).toBe(200);
		stored = NEW; // rotated in the dashboard and pasted into the credential
		afterInterval();
		expect(await deliver(NEW)).toBe(200);
		expect(reads()).toBe(2);
		expect(await deliver(NEW)).toBe(200);
		expect(reads()).toBe(2);
		expect(host.executions).toHaveLength(3);
	});

	it('refuses the old secret at the latest 60 seconds after the rotation', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		const t0 = new Date('2026-11-25T10:00:00.000Z').getTime();
		vi.setSystemTime(t0);
		stored = OLD;
		await start();
		expect(await deliver(OLD)).toBe(200); // read at t0
		vi.setSystemTime(t0 + 10_000);
		stored = NEW; // rotated; the service now signs with NEW, a leaked OLD is still cached
		expect(await deliver(OLD)).toBe(200);
		vi.setSystemTime(t0 + SECRET_LIFETIME_MS - 1);
		expect(await deliver(OLD)).toBe(200);
		expect(reads()).toBe(1);
		vi.setSystemTime(t0 + SECRET_LIFETIME_MS);
		expect(await deliver(OLD)).toBe(401);
		expect(reads()).toBe(2); // the expired secret was read again, and only once
		expect(await deliver(NEW)).toBe(200);
		vi.setSystemTime(t0 + SECRET_LIFETIME_MS + MISMATCH_READ_INTERVAL_MS);
		expect(await deliver(OLD)).toBe(401);
		expect(reads()).toBe(3); // each mismatch with a fresh cache costs one re-read
		expect(host.executions).toHaveLength(4);
	});

	it('reads again after 60 seconds even when nothing changed', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		const t0 = new Date('2026-11-25T11:00:00.000Z').getTime();
		vi.setSystemTime(t0);
		stored = OLD;
		await start();
		await deliver(OLD);
		vi.setSystemTime(t0 + SECRET_LIFETIME_MS - 1);
		await deliver(OLD);
		expect(reads()).toBe(1);
		vi.setSystemTime(t0 + SECRET_LIFETIME_MS);
		expect(await deliver(OLD)).toBe(200);
		expect(reads()).toBe(2);
	});

	it('answers 401 to a wrong signature after exactly one re-read of a cached secret', async () => {
		stored = OLD;
		await start();
		await deliver(OLD);
		afterInterval();
		expect(await deliver('not-the-secret')).toBe(401);
		expect(reads()).toBe(2);
		expect(host.warnings).toHaveLength(0);
	});

	it('answers 401 to a wrong signature on a cold cache with a single read', async () => {
		stored = OLD;
		await start();
		expect(await deliver('not-the-secret')).toBe(401);
		expect(reads()).toBe(1);
		expect(await deliver(OLD)).toBe(200); // and that read was kept
		expect(reads()).toBe(1);
	});

	it('answers 503 when the credential cannot be read on a cold cache, and caches nothing', async () => {
		stored = new Error('Credentials could not be decrypted.');
		await start();
		expect(await deliver(OLD)).toBe(503);
		afterInterval();
		expect(await deliver(OLD)).toBe(503);
		expect(reads()).toBe(2);
		stored = OLD; // repaired
		afterInterval();
		expect(await deliver(OLD)).toBe(200);
		expect(host.executions).toHaveLength(1);
	});

	it.each([
		['cannot be decrypted', new Error('Credentials could not be decrypted.')],
		['was deleted', new Error('Credential with ID "x" does not exist for type "y".')],
	])('answers 503, never 401, when a credential that %s must be read again', async (_, failure) => {
		stored = OLD;
		await start();
		expect(await deliver(OLD)).toBe(200);
		stored = failure;
		// Within the 60 seconds the cached secret still vouches for a matching delivery.
		expect(await deliver(OLD)).toBe(200);
		expect(reads()).toBe(1);
		// A mismatch forces a read, which fails: the delivery may be signed with a new secret.
		afterInterval();
		expect(await deliver(NEW)).toBe(503);
		expect(reads()).toBe(2);
		// The failed read dropped the cached secret, so the next delivery reads too.
		afterInterval();
		expect(await deliver(OLD)).toBe(503);
		expect(reads()).toBe(3);
		expect(host.executions).toHaveLength(2);
		expect(host.warnings).toHaveLength(2);
	});

	it('shares cold reads safely between concurrent deliveries', async () => {
		stored = OLD;
		await start();
		const answers = await Promise.all(Array.from({ length: 6 }, () => deliver(OLD)));
		expect(answers).toEqual(Array(6).fill(200));
		const coldReads = reads();
		expect(coldReads).toBeGreaterThanOrEqual(1);
		expect(coldReads).toBeLessThanOrEqual(6);
		await deliver(OLD);
		expect(reads()).toBe(coldReads);
	});

	it('never writes the secret to logs, static data or items', async () => {
		stored = OLD;
		await start();
		await deliver(OLD); // cached
		stored = new Error(`decryption failed for '${OLD}'`);
		afterInterval();
		expect(await deliver(NEW)).toBe(503); // the re-read fails, its message quoting the cached secret
		stored = NEW;
		afterInterval();
		await deliver(NEW);
		const everything = JSON.stringify([
			host.warnings,
			host.db.staticData,
			host.executions,
			host.answers,
		]);
		expect(host.warnings).toHaveLength(1);
		expect(host.warnings[0]).toContain("decryption failed for '[secret]'");
		expect(everything).not.toContain(OLD);
		expect(everything).not.toContain('whsec_');
	});

	it('masks a cached secret in a later failure of the same request', async () => {
		// Two hosts in one process (module) with the same workflow and credential id: the
		// first caches the secret, the second uses it and then fails on static data.
		const node: INode = {
			...triggerNode,
			credentials: { voucherServiceWebhookApi: { id: randomUUID(), name: 'Webhooks' } },
		};
		host = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: OLD,
			parameters: { suppressDuplicates: false },
			webhookContext: { getNode: () => node },
		});
		expect(await deliver(OLD)).toBe(200);
		await host.close();
		const unused = vi.fn();
		host = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: OLD,
			// Suppress Duplicates on: webhook() reads static data, which fails here.
			webhookContext: {
				getNode: () => node,
				getCredentials: unused,
				getWorkflowStaticData: () => {
					throw new Error(`query failed near '${OLD}'`);
				},
			},
		});
		expect(await deliver(OLD)).toBe(503);
		expect(unused).not.toHaveBeenCalled();
		expect(host.warnings).toHaveLength(1);
		expect(host.warnings[0]).toContain("query failed near '[secret]'");
		expect(host.warnings[0]).not.toContain(OLD);
	});

	it("a new secret's delivery right after a read waits for the next one, or gets 503 behind a flood, and its retry runs", async () => {
		stored = OLD;
		await start();
		expect(await deliver(OLD)).toBe(200);
		afterInterval();
		expect(await deliver('forged')).toBe(401); // a read: OLD is still stored
		stored = NEW; // saved less than a second after that read
		const body = (balance: number) =>
			JSON.stringify({ type: 'VOUCHER_UPDATED', data: { serialNumber: 77, balance } });
		const send = async (balance: number) => {
			const res = await request(host.url, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					signature: signPayload(body(balance), NEW),
				},
				body: body(balance),
			});
			await res.body.dump();
			await host.idle();
			return res.statusCode;
		};
		// Alone, it waits for the interval to pass (time stands still until the test moves it).
		const alone = send(1);
		await sleep(200);
		expect(reads()).toBe(2);
		afterInterval();
		expect(await alone).toBe(200);
		expect(reads()).toBe(3);

		stored = OLD; // rotated back, so NEW no longer matches what is stored
		afterInterval();
		expect(await deliver('forged')).toBe(401);
		stored = NEW;
		// Behind as many forged deliveries as may wait, it is answered 503 at once.
		const flood = Array.from({ length: MAX_WAITING }, () => deliver('forged'));
		await sleep(200);
		expect(await send(2)).toBe(503);
		afterInterval();
		expect(await Promise.all(flood)).toEqual(Array(MAX_WAITING).fill(401));
		vi.setSystemTime(Date.now() + 3 * 60 * 1000); // the service's first retry
		expect(await send(2)).toBe(200);
		expect(host.executions).toHaveLength(3);
	});

	it('turns a flood of forged deliveries over HTTP into at most one read a second, while genuine ones run', async () => {
		vi.useRealTimers();
		stored = OLD;
		await start();
		expect(await deliver(OLD)).toBe(200);
		const started = Date.now();
		const statuses: Record<number, number> = {};
		const forger = async () => {
			while (Date.now() - started < 2_500) {
				const status = await deliver(`forged-${serial}`);
				statuses[status] = (statuses[status] ?? 0) + 1;
			}
		};
		const genuine = async () => {
			const answers: number[] = [];
			for (let i = 0; i < 10; i++) answers.push(await deliver(OLD));
			return answers;
		};
		const [answers] = await Promise.all([genuine(), ...Array.from({ length: 16 }, forger)]);
		const seconds = (Date.now() - started) / 1000;
		expect(answers).toEqual(Array(10).fill(200));
		expect(host.executions).toHaveLength(11);
		expect(Object.keys(statuses).sort()).toEqual(['401', '503']);
		expect(statuses[401] + statuses[503]).toBeGreaterThan(50);
		expect(reads() - 1).toBeLessThanOrEqual(
			Math.ceil(seconds / (MISMATCH_READ_INTERVAL_MS / 1000)),
		);
		expect(statuses[401]).toBeGreaterThanOrEqual(reads() - 1);
	});
});
