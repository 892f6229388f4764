import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { until } from '../../real-n8n/fixtures.mts';
import { startSandbox } from '../../sandbox/server.mts';
import type { Sandbox } from '../../sandbox/server.mts';
import { call, download, postDownload, recipients } from './sandboxClient.mts';

let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox({ processingDelayMs: 150 });
});
afterAll(() => sbx.close());
beforeEach(() => sbx.reset());

const THREE = [
	{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' },
	{ firstName: 'Femi', lastName: 'Bello', email: 'femi@example.com' },
	{ firstName: 'Ngozi', lastName: 'Eze', email: 'ngozi@example.com' },
];

/**
 * Creates the order, checks the PROCESSING phase, then settles it and returns the settled order.
 * The order is held PROCESSING until the checks are done, however slow the machine.
 */
async function postAndSettle(path: string, body: { reference: string; productCode: string }) {
	sbx.configure({ processingDelayMs: 60_000 });
	const created = await call(sbx, 'POST', path, body);
	expect(created.status).toBe(200);
	expect(created.body.data.status).toBe('PROCESSING');
	expect('vouchers' in created.body.data).toBe(false);

	const meanwhile = await call(sbx, 'GET', `/v2/orders/${body.reference}`);
	expect(meanwhile.body.data.status).toBe('PROCESSING');
	expect('vouchers' in meanwhile.body.data).toBe(false);

	sbx.configure({ processingDelayMs: 0 }); // settles it now
	sbx.configure({ processingDelayMs: 150 });
	expect(sbx.state.orders.get(body.reference)?.status).not.toBe('PROCESSING');
	const settled = await call(sbx, 'GET', `/v2/orders/${body.reference}`);
	expect(settled.body.statusCode).toBe('00');
	return settled.body.data;
}

const itemStatuses = (order: { vouchers: Array<{ status: string }> }) =>
	order.vouchers.map((v) => v.status);
const kobo = () => sbx.state.ledger.slice(1).map((e) => [e.kind, e.amountKobo]);

describe('download orders by scenario', () => {
	it('VCH-SLOW-COMPLETED: PROCESSING, then COMPLETED with every voucher', async () => {
		const order = await postAndSettle(
			'/v2/orders',
			download({ reference: 'd-ok', productCode: 'VCH-SLOW-COMPLETED', quantity: 3 }),
		);
		expect(order.status).toBe('COMPLETED');
		expect(order.vouchers).toHaveLength(3);
		for (const v of order.vouchers)
			expect(v).toMatchObject({
				code: expect.any(String),
				pin: expect.stringMatching(/^\d{4}$/),
				status: null,
			});
		expect(kobo()).toEqual([['debit', -300_000]]);
	});

	it('VCH-SLOW-PARTIAL: fewer vouchers than ordered, the missing one refunded', async () => {
		const order = await postAndSettle(
			'/v2/orders',
			download({ reference: 'd-part', productCode: 'VCH-SLOW-PARTIAL', quantity: 3 }),
		);
		expect(order.status).toBe('PARTIALLY_COMPLETED');
		expect(order.vouchers).toHaveLength(2);
		expect(kobo()).toEqual([
			['debit', -300_000],
			['refund', 100_000],
		]);
	});
});

describe('recipient orders by scenario', () => {
	it('VCH-SLOW-COMPLETED: every item DELIVERED', async () => {
		const order = await postAndSettle(
			'/v2/orders/recipients',
			recipients({ reference: 'r-ok', productCode: 'VCH-SLOW-COMPLETED', recipients: THREE }),
		);
		expect(order.status).toBe('COMPLETED');
		expect(itemStatuses(order)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED']);
		expect(order.vouchers.map((v: { email: string }) => v.email)).toEqual(
			THREE.map((r) => r.email),
		);
	});

	it('VCH-SLOW-PARTIAL: mixed DELIVERED and FAILED items, the failed one refunded', async () => {
		const order = await postAndSettle(
			'/v2/orders/recipients',
			recipients({ reference: 'r-part', productCode: 'VCH-SLOW-PARTIAL', recipients: THREE }),
		);
		expect(order.status).toBe('PARTIALLY_COMPLETED');
		expect(itemStatuses(order)).toEqual(['DELIVERED', 'DELIVERED', 'FAILED']);
		for (const v of order.vouchers) expect(v).toMatchObject({ code: null, pin: null });
		expect(kobo()).toEqual([
			['debit', -150_000],
			['refund', 50_000],
		]);
	});
});

const PLACES = [
	['download', '/v2/orders', download({ quantity: 3 })],
	['recipient', '/v2/orders/recipients', recipients({ recipients: THREE, amount: 1000 })],
] as const;
const VOIDED = PLACES.flatMap(([kind, path, body]) =>
	(['CANCELED', 'FAILED'] as const).map((outcome) => [kind, outcome, path, body] as const),
);

describe('canceled and failed orders', () => {
	it.each(VOIDED)(
		'%s order, VCH-SLOW-%s: no vouchers, full refund',
		async (kind, outcome, path, body) => {
			const reference = `${kind}-${outcome}`;
			const order = await postAndSettle(path, {
				...body,
				reference,
				productCode: `VCH-SLOW-${outcome}`,
			});
			expect(order.status).toBe(outcome);
			expect(order.vouchers).toBeNull();
			expect(kobo()).toEqual([
				['debit', -300_000],
				['refund', 300_000],
			]);
			const wallets = await call(sbx, 'GET', '/v2/transactions/wallets');
			expect(wallets.body.data[0].balance).toBe(50_000_000);
		},
	);
});

describe('processing and reset', () => {
	it('keeps a slow order PROCESSING for at least processingDelayMs', async () => {
		sbx.configure({ processingDelayMs: 400 });
		try {
			const started = Date.now();
			await postDownload(sbx, { reference: 'slow', productCode: 'VCH-SLOW-COMPLETED' });
			await until(
				'the slow order to complete',
				() => sbx.state.orders.get('slow')?.status === 'COMPLETED',
			);
			expect(Date.now() - started).toBeGreaterThanOrEqual(390);
		} finally {
			sbx.configure({ processingDelayMs: 150 });
		}
	});

	it('a new processingDelayMs applies to orders already PROCESSING, counted from their create', async () => {
		sbx.configure({ processingDelayMs: 60_000 });
		try {
			await postDownload(sbx, { reference: 'held', productCode: 'VCH-SLOW-COMPLETED' });
			sbx.configure({ processingDelayMs: 30_000 });
			expect(sbx.state.orders.get('held')?.status).toBe('PROCESSING');
			// Past due under the new delay: settled at once, with its event.
			sbx.configure({ processingDelayMs: 0 });
			expect(sbx.state.orders.get('held')?.status).toBe('COMPLETED');
			expect(sbx.state.orders.get('held')?.vouchers).toHaveLength(2);
		} finally {
			sbx.configure({ processingDelayMs: 150 });
		}
	});

	it('reset drops pending orders and restores the wallet', async () => {
		await postDownload(sbx, { reference: 'pending', productCode: 'VCH-SLOW-COMPLETED' });
		sbx.reset();
		expect(sbx.state.orders.size).toBe(0);
		expect((await call(sbx, 'GET', '/v2/orders/pending')).body.statusCode).toBe('04');
		expect((await call(sbx, 'GET', '/v2/transactions/wallets')).body.data[0].balance).toBe(
			50_000_000,
		);
	});
});
