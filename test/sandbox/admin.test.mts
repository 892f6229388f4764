import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { until } from '../../real-n8n/fixtures.mts';
import { startSandbox } from '../../sandbox/server.mts';
import type { Sandbox } from '../../sandbox/server.mts';
import { postDownload, startReceiver } from './sandboxClient.mts';

let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox({ processingDelayMs: 50 });
});
afterAll(() => sbx.close());
beforeEach(() => sbx.reset());

async function admin(method: 'GET' | 'POST', path: string, body?: unknown) {
	const res = await request(`${sbx.url}/__sandbox/${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: res.statusCode, body: (await res.body.json()) as any };
}

describe('admin endpoints', () => {
	it('answers health without credentials', async () => {
		expect(await admin('GET', 'health')).toEqual({ status: 200, body: { ok: true, url: sbx.url } });
	});

	it('exposes requests, orders, ledger and deliveries, and is not itself logged', async () => {
		await postDownload(sbx, { reference: 'adm-1', amount: 12.34, quantity: 1 });
		const requests = await admin('GET', 'requests');
		expect(requests.body).toHaveLength(1);
		expect(requests.body[0]).toMatchObject({
			method: 'POST',
			path: '/v2/orders',
			status: 200,
			statusCode: '00',
			body: { reference: 'adm-1' },
		});
		expect(
			(await admin('GET', 'orders')).body.map((o: { reference: string }) => o.reference),
		).toEqual(['adm-1']);
		const ledger = (await admin('GET', 'ledger')).body;
		expect(ledger.balances).toEqual([
			{ currency: 'NGN', balance: 49_999_987.66, balanceKobo: 4_999_998_766 },
		]);
		expect(ledger.entries.map((e: { amountKobo: number }) => e.amountKobo)).toEqual([
			5_000_000_000, -1234,
		]);
		expect((await admin('GET', 'deliveries')).body).toEqual([]);
		expect(sbx.state.requests).toHaveLength(1);
	});

	it('logs the label a caller gives itself in x-sandbox-client, and null without one', async () => {
		const get = (headers: Record<string, string>) =>
			request(`${sbx.url}/v2/countries`, { headers }).then((res) => res.body.dump());
		await get({ 'x-sandbox-client': 'run-7' });
		await get({});
		expect(sbx.state.requests.map((entry) => entry.client)).toEqual(['run-7', null]);
	});

	it('changes webhooks through config and emits VOUCHER_UPDATED through the balance endpoint', async () => {
		const r = await startReceiver();
		try {
			expect(
				(await admin('POST', 'config', { webhooks: [{ url: r.url, secret: 's3cret' }] })).status,
			).toBe(200);
			expect((await admin('POST', 'vouchers/1000000001/balance', { balance: 99 })).status).toBe(
				200,
			);
			await until('one hit', () => r.hits.length === 1);
			expect(JSON.parse(r.hits[0].raw.toString()).data).toMatchObject({
				serialNumber: 1_000_000_001,
				balance: 99,
			});
			const deliveries = (await admin('GET', 'deliveries')).body;
			expect(deliveries).toEqual([
				expect.objectContaining({ event: 'VOUCHER_UPDATED', url: r.url, attempt: 1, status: 200 }),
			]);
		} finally {
			sbx.configure({ webhooks: [] });
			await r.close();
		}
	});

	it('refuses bad config and bad balance requests', async () => {
		expect((await admin('POST', 'config', { latencyMs: -1 })).status).toBe(400);
		expect((await admin('POST', 'config', { latencyMS: 5 })).status).toBe(400);
		expect((await admin('POST', 'config', { port: 1 })).status).toBe(400);
		expect(
			(await admin('POST', 'config', { webhooks: [{ url: 'ftp://x', secret: 's' }] })).status,
		).toBe(400);
		expect((await admin('POST', 'config', { faults: { errorRate: 2 } })).status).toBe(400);
		expect((await admin('POST', 'vouchers/1000000001/balance', { balance: 'ten' })).status).toBe(
			400,
		);
		expect((await admin('POST', 'vouchers/42/balance', { balance: 1 })).status).toBe(404);
	});

	it('resets orders, requests and the wallet', async () => {
		await postDownload(sbx, { reference: 'adm-2' });
		expect((await admin('POST', 'reset')).status).toBe(200);
		expect((await admin('GET', 'orders')).body).toEqual([]);
		expect((await admin('GET', 'requests')).body).toEqual([]);
		expect((await admin('GET', 'ledger')).body.balances[0].balance).toBe(50_000_000);
	});
});

describe('npm run sandbox (main.ts)', () => {
	it('prints its URL and keys, serves, and exits cleanly on SIGTERM', async () => {
		const main = fileURLToPath(new URL('../../sandbox/main.mts', import.meta.url));
		const child = spawn(process.execPath, [main, '--quiet'], {
			env: { ...process.env, SANDBOX_PORT: '0' },
		});
		let out = '';
		child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
		try {
			const url = await until(
				'the sandbox to print its URL',
				() =>
					out.includes('VCH-SLOW-FAILED') && /Voucher service sandbox: (http:\S+)/.exec(out)?.[1],
			);
			expect(out).toContain('pk_test_sandbox');
			expect(out).toContain('VCH-SLOW-PARTIAL');
			const res = await request(`${url}/__sandbox/health`);
			expect(res.statusCode).toBe(200);
			await res.body.dump();
		} finally {
			child.kill('SIGTERM');
		}
		const [code] = await once(child, 'exit');
		expect(code).toBe(0);
	});
});
