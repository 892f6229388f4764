// The trigger's per-process cache of the webhook secret (issue #20): a rotated secret is
// accepted at once, a rotated-out one for at most 60 seconds, a credential that cannot be
// read gives a 503 and never a 401, and the secret goes nowhere but process memory.
import { randomUUID } from 'node:crypto';

import type { INode } from 'n8n-workflow';
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { signPayload } from '../../nodes/voucherServiceApi/signature';
import {
	MAX_CACHED_SECRETS,
	SECRET_LIFETIME_MS,
	SecretCache,
} from '../../nodes/VoucherServiceTrigger/secretCache';
import { VoucherServiceTrigger } from '../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
import { startWebhookHost, triggerNode, type WebhookHost } from './n8nWebhookHost.mts';

const OLD = 'whsec_before_rotation';
const NEW = 'whsec_after_rotation';

describe('SecretCache', () => {
	function cacheAt(start = 1_000_000) {
		const clock = { now: start };
		return { clock, cache: new SecretCache(() => clock.now) };
	}

	it('keeps a secret for 60 seconds from the start of its read, not a millisecond more', async () => {
		const { clock, cache } = cacheAt();
		const start = clock.now;
		await cache.refresh('k', async () => {
			clock.now += 500; // a slow read: its age counts from when it began
			return OLD;
		});
		expect(SECRET_LIFETIME_MS).toBe(60_000);
		clock.now = start + SECRET_LIFETIME_MS - 1;
		expect(cache.get('k')).toBe(OLD);
		clock.now = start + SECRET_LIFETIME_MS;
		expect(cache.get('k')).toBeUndefined();
		expect(cache.size).toBe(0);
	});

	it('treats a clock that went back as expired', async () => {
		const { clock, cache } = cacheAt();
		await cache.refresh('k', async () => OLD);
		clock.now -= 1;
		expect(cache.get('k')).toBeUndefined();
	});

	it('forgets a kept secret when a read fails, and keeps nothing from a failed read', async () => {
		const { cache } = cacheAt();
		await cache.refresh('k', async () => OLD);
		await expect(
			cache.refresh('k', async () => {
				throw new Error('Credentials could not be decrypted.');
			}),
		).rejects.toThrow('could not be decrypted');
		expect(cache.get('k')).toBeUndefined();
	});

	it('keeps the read that began last when two overlap', async () => {
		const { clock, cache } = cacheAt();
		let finishEarlier!: (secret: string) => void;
		const earlier = cache.refresh('k', () => new Promise<string>((r) => (finishEarlier = r)));
		clock.now += 10;
		await cache.refresh('k', async () => NEW);
		finishEarlier(OLD);
		expect(await earlier).toBe(OLD);
		expect(cache.get('k')).toBe(NEW);
	});

	it('holds at most its bound, dropping expired entries first and then the oldest', async () => {
		const clock = { now: 0 };
		const cache = new SecretCache(() => clock.now, 1000, 3);
		await cache.refresh('a', async () => 'sa');
		clock.now = 600;
		await cache.refresh('b', async () => 'sb');
		await cache.refresh('c', async () => 'sc');
		clock.now = 1000; // a has expired
		await cache.refresh('d', async () => 'sd');
		expect([cache.size, cache.get('b'), cache.get('a')]).toEqual([3, 'sb', undefined]);
		await cache.refresh('e', async () => 'se'); // full of fresh entries: b is the oldest
		expect(cache.size).toBe(3);
		expect(['b', 'c', 'd', 'e'].map((key) => cache.get(key))).toEqual([
			undefined,
			'sc',
			'sd',
			'se',
		]);
		expect(MAX_CACHED_SECRETS).toBeGreaterThanOrEqual(100);
	});
});

describe('the trigger with a cached secret', () => {
	let host: WebhookHost;
	/** What n8n's credential store holds; an Error makes getCredentials throw it. */
	let stored: string | Error;
	let getCredentials: ReturnType<typeof vi.fn>;

	afterEach(async () => {
		vi.useRealTimers();
		await host.close();
	});

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
		expect(await deliver(OLD)).toBe(503);
		expect(reads()).toBe(2);
		stored = OLD; // repaired
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
		expect(await deliver(NEW)).toBe(503);
		expect(reads()).toBe(2);
		// The failed read dropped the cached secret, so the next delivery reads too.
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
		expect(await deliver(NEW)).toBe(503); // the re-read fails, its message quoting the cached secret
		stored = NEW;
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
});
