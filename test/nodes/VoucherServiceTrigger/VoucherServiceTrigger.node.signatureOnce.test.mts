// How many HMAC-SHA512s a delivery costs: one per secret it is checked against, so one
// when the cached secret matches (issue #32, point 7). The rules the cache keeps (a wrong
// signature is refused, a new secret is read): secretCache.requests.test.mts.
import { randomUUID } from 'node:crypto';

import type { INode } from 'n8n-workflow';
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { signPayload } from '../../../nodes/serviceProtocol/signature';
import { VoucherServiceTrigger } from '../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';
import { startWebhookHost, triggerNode, type WebhookHost } from './n8nWebhookHost.mts';

// Counts the HMACs of the package's own signature module, which imports 'crypto'.
const hmacs = vi.hoisted(() => ({ count: 0 }));
vi.mock('crypto', async (importOriginal) => {
	const crypto = await importOriginal<typeof import('crypto')>();
	return {
		...crypto,
		createHmac: (...args: Parameters<typeof crypto.createHmac>) => {
			hmacs.count++;
			return crypto.createHmac(...args);
		},
	};
});

const OLD = 'whsec_before_rotation';
const NEW = 'whsec_after_rotation';

let host: WebhookHost;
let stored: string;

afterEach(async () => {
	await host.close();
});

async function start(credentialId: string | null = randomUUID()) {
	const node: INode =
		credentialId === null
			? triggerNode
			: {
					...triggerNode,
					credentials: { voucherServiceWebhookApi: { id: credentialId, name: 'Webhooks' } },
				};
	host = await startWebhookHost({
		node: new VoucherServiceTrigger(),
		secret: undefined,
		parameters: { suppressDuplicates: false },
		webhookContext: { getCredentials: async () => ({ secret: stored }), getNode: () => node },
	});
}

let serial = 0;
/** The answer and the HMACs computed while the node handled the delivery. */
async function deliver(signedWith: string, signature?: string) {
	const body = JSON.stringify({
		type: 'VOUCHER_UPDATED',
		data: { serialNumber: ++serial, balance: 5 },
	});
	const header = signature ?? signPayload(body, signedWith);
	hmacs.count = 0;
	const res = await request(host.url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...(header ? { signature: header } : {}) },
		body,
	});
	await res.body.dump();
	await host.idle();
	return { status: res.statusCode, hmacs: hmacs.count };
}

describe('HMACs per delivery', () => {
	it('computes one when the cached secret matches, and one for the read that filled the cache', async () => {
		stored = OLD;
		await start();
		expect(await deliver(OLD)).toEqual({ status: 200, hmacs: 1 });
		expect(await deliver(OLD)).toEqual({ status: 200, hmacs: 1 });
		expect(await deliver(OLD)).toEqual({ status: 200, hmacs: 1 });
		expect(host.executions).toHaveLength(3);
	});

	it('computes one when the node has no credential id to cache under', async () => {
		stored = OLD;
		await start(null);
		expect(await deliver(OLD)).toEqual({ status: 200, hmacs: 1 });
		expect(await deliver(NEW)).toEqual({ status: 401, hmacs: 1 });
	});

	it('still refuses a wrong signature, after one HMAC per secret tried', async () => {
		stored = OLD;
		await start();
		expect(await deliver(NEW)).toEqual({ status: 401, hmacs: 1 });
		// The cached secret, then the credential read again (after the interval between reads).
		expect(await deliver(NEW)).toEqual({ status: 401, hmacs: 2 });
		expect(host.executions).toHaveLength(0);
	});

	it('computes none for a missing, empty or malformed header', async () => {
		stored = OLD;
		await start();
		expect(await deliver(OLD, '')).toEqual({ status: 401, hmacs: 0 });
		expect(await deliver(OLD, 'abc')).toEqual({ status: 401, hmacs: 0 });
		expect(host.executions).toHaveLength(0);
	});

	it('accepts a rotated secret: one HMAC with the cached secret, one with the new read', async () => {
		stored = OLD;
		await start();
		expect(await deliver(OLD)).toEqual({ status: 200, hmacs: 1 });
		stored = NEW;
		expect(await deliver(NEW)).toEqual({ status: 200, hmacs: 2 });
		expect(await deliver(NEW)).toEqual({ status: 200, hmacs: 1 });
		expect(await deliver(OLD)).toEqual({ status: 401, hmacs: 2 });
		expect(host.executions).toHaveLength(3);
	});
});
