// The trigger's execute()-side check against concurrent executions, with two
// "webhook processes" (two copies of the node module, so no shared memory)
// sharing one database: static data and n8n's processed_data row, both
// read-modify-write like n8n's. Each event is sent five times at once, spread
// over both processes, then again after both "restart".
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { sign } from '../../../sandbox/server.mts';
import { startWebhookHost, type Database, type WebhookHost } from './n8nWebhookHost.mts';

const SECRET = 'whsec_unit_redelivery';
const EVENTS = 12;
const COPIES = 5;

let hosts: WebhookHost[] = [];

/**
 * A fresh module instance per host: what a separate n8n process would load. Its executions
 * end (and save static data) only once `workflowRunsUntil` settles, when given.
 */
async function startProcess(db: Database, workflowRunsUntil?: Promise<void>): Promise<WebhookHost> {
	vi.resetModules();
	const { VoucherServiceTrigger } = await import(
		'../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node'
	);
	const host = await startWebhookHost({
		node: new VoucherServiceTrigger(),
		secret: SECRET,
		db,
		workflowRunMs: 50,
		workflowRunsUntil,
	});
	hosts.push(host);
	return host;
}

async function deliverAll(targets: WebhookHost[], serials: number[]): Promise<number[]> {
	return await Promise.all(
		serials.flatMap((serialNumber) => {
			const body = JSON.stringify({ type: 'VOUCHER_UPDATED', data: { serialNumber, balance: 7 } });
			return Array.from({ length: COPIES }, async (_, copy) => {
				const res = await request(targets[copy % targets.length].url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', signature: sign(SECRET, body) },
					body,
				});
				await res.body.dump();
				return res.statusCode;
			});
		}),
	);
}

/** Items that left the trigger (so reached the next node), per serial number. */
function runs(targets: WebhookHost[]): Map<number, number> {
	const count = new Map<number, number>();
	for (const host of targets)
		for (const items of host.executions)
			for (const json of items) {
				const serial = (json.data as { serialNumber: number }).serialNumber;
				count.set(serial, (count.get(serial) ?? 0) + 1);
			}
	return count;
}

afterEach(async () => {
	await Promise.all(hosts.map((h) => h.close()));
	hosts = [];
});

describe('redelivery across processes and restarts', () => {
	it('each event leaves the trigger once, also when its copies reach two processes at once and after a restart', async () => {
		const db: Database = { staticData: null, processed: null };
		const serials = Array.from({ length: EVENTS }, (_, i) => 100 + i);
		// Every copy is answered before any execution saves static data, so copies that reach
		// the second process start executions for certain, however fast the first one is.
		const delivered = Promise.withResolvers<void>();
		const first = [
			await startProcess(db, delivered.promise),
			await startProcess(db, delivered.promise),
		];
		expect((await deliverAll(first, serials)).every((s) => s === 200)).toBe(true);
		delivered.resolve();
		await Promise.all(first.map((h) => h.idle()));
		expect([...runs(first).entries()].sort((a, b) => a[0] - b[0])).toEqual(
			serials.map((s) => [s, 1]),
		);
		// Copies that reached the second process started executions the trigger ended empty.
		const executions = first.flatMap((h) => h.executions);
		expect(executions.filter((items) => items.length === 0).length).toBeGreaterThan(0);
		await Promise.all(first.map((h) => h.close()));

		const restarted = [await startProcess(db), await startProcess(db)];
		expect((await deliverAll(restarted, serials)).every((s) => s === 200)).toBe(true);
		await Promise.all(restarted.map((h) => h.idle()));
		expect(runs(restarted).size).toBe(0);
	});

	it('static data alone loses keys to concurrent executions (why processed_data is the final check)', async () => {
		const db: Database = { staticData: null, processed: null };
		const serials = Array.from({ length: EVENTS }, (_, i) => 200 + i);
		// Every execution starts (and reads static data) before any ends: they overlap for
		// certain, not because they run long enough.
		const delivered = Promise.withResolvers<void>();
		const host = await startProcess(db, delivered.promise);
		await deliverAll([host], serials);
		delivered.resolve();
		await host.idle();
		const saved = JSON.parse(db.staticData!)['node:Voucher Service Trigger'].seen;
		// The last writer wins: far fewer than EVENTS keys survive in static data ...
		expect(Object.keys(saved).length).toBeLessThan(EVENTS);
		// ... while processed_data holds every key.
		expect(db.processed!.filter((v) => v.startsWith('["VOUCHER_UPDATED"'))).toHaveLength(EVENTS);
	});
});

describe('a delivery to the Test URL', () => {
	it('does not swallow the production copy of the same event', async () => {
		const db: Database = { staticData: null, processed: null };
		vi.resetModules();
		const { VoucherServiceTrigger } = await import(
			'../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node'
		);
		// One n8n process: the editor's test listener and the published workflow share memory.
		const node = new VoucherServiceTrigger();
		const testListener = await startWebhookHost({ node, secret: SECRET, db, mode: 'manual' });
		const published = await startWebhookHost({ node, secret: SECRET, db });
		hosts.push(testListener, published);

		expect(await deliverAll([testListener], [4242])).toEqual(Array(COPIES).fill(200));
		expect(runs([testListener]).get(4242)).toBe(COPIES);
		expect(await deliverAll([published], [4242])).toEqual(Array(COPIES).fill(200));
		await vi.waitFor(() => expect(runs([published]).get(4242)).toBe(1), { timeout: 10_000 });
	});
});

describe('a retry from the executions list', () => {
	it('runs an event whose failed election had already recorded it', async () => {
		const key = JSON.stringify(['VOUCHER_UPDATED', 4343, 7]);
		// What an election leaves when the database fails after its first write.
		const db: Database = { staticData: null, processed: [key, JSON.stringify([key, 'failed'])] };
		const { VoucherServiceTrigger } = await import(
			'../../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node'
		);
		const host = await startWebhookHost({
			node: new VoucherServiceTrigger(),
			secret: SECRET,
			db,
			mode: 'retry',
		});
		hosts.push(host);
		await deliverAll([host], [4343]);
		await host.idle();
		expect(runs([host]).get(4343)).toBe(1);
	});
});
