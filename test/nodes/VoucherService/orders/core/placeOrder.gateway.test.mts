/**
 * Creates behind a gateway that says "not now" (nginx's limit_req refuses with 503 and an HTML
 * page, no Retry-After): judged from the sandbox's books, as in placeOrder.test.mts.
 */
import { describe, expect, it, vi } from 'vitest';
import type { GatewayFault } from '../../../../../sandbox/server.mts';

import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../../voucherNodeRunner.mts';

/*
 * The counted budgets cut to two attempts, so a storm longer than them stays a few refusals
 * short: refusals must not spend them. The patience stays five minutes.
 */
vi.mock('../../../../../nodes/VoucherService/transport/retry', async (original) => {
	const retry =
		await original<typeof import('../../../../../nodes/VoucherService/transport/retry')>();
	return {
		...retry,
		READ_RETRY: { ...retry.READ_RETRY, attempts: 2 },
		CREATE_RETRY: { ...retry.CREATE_RETRY, attempts: 2 },
	};
});

// A service that accepts a used Reference as a new order: any create sent twice shows as two.
const sandbox = await sandboxForThisFile({ acceptDuplicateReferences: true });

const ordersUnder = (reference: string) =>
	[...sandbox.state.orders.values()].filter((order) => order.reference === reference);

/** The requests about one order, in order: its creates and its look-ups, as `METHOD status`. */
const trailOf = (reference: string) =>
	apiRequests(sandbox)
		.filter(
			(entry) =>
				entry.path === `/v2/orders/${reference}` ||
				(entry.body as { reference?: string } | null)?.reference === reference,
		)
		.map((entry) => `${entry.method} ${entry.status}`);

const perRow = (base: string) => ({
	resource: 'order',
	operation: 'create',
	reference: `={{ '${base}-' + $json.row }}`,
	productCode: 'VCH-INSTANT',
	amount: 1000,
	quantity: 1,
});

const rows = (count: number) => Array.from({ length: count }, (_, row) => ({ row }));

async function behindGateway(gateway: GatewayFault, run: () => Promise<void>) {
	sandbox.configure({ faults: { gateway } });
	try {
		await run();
	} finally {
		sandbox.configure({ faults: {} });
	}
}

describe('a gateway refusing creates for less than the patience', () => {
	it.each([502, 503, 504] as const)(
		'HTTP %i, twice per row on average: every row bought once, each refused create looked up before it is sent again',
		async (status) => {
			const base = uniqueReference(`storm-${status}`);
			await behindGateway({ status, method: 'POST', count: 4 }, async () => {
				const run = await runVoucher(sandbox, perRow(base), { items: rows(2) });

				expect(run.error).toBeUndefined();
				expect(
					apiRequests(sandbox, 'POST').filter((entry) => entry.status === status),
				).toHaveLength(4);
				for (const { row } of rows(2)) {
					const reference = `${base}-${row}`;
					expect(ordersUnder(reference)).toHaveLength(1);
					// Refused so, a create may have been processed: a look-up comes before it is sent again.
					const trail = trailOf(reference);
					expect(trail.at(-1)).toBe('POST 200');
					trail.forEach((step, index) => {
						if (step === `POST ${status}`) expect(trail[index + 1]).toBe('GET 200');
					});
				}
			});
		},
	);

	it('HTTP 503 to every request, the look-ups too: bought once, after the gateway lets requests through', async () => {
		const base = uniqueReference('storm-all');
		await behindGateway({ status: 503, count: 4 }, async () => {
			const run = await runVoucher(sandbox, perRow(base), { items: rows(1) });

			expect(run.error).toBeUndefined();
			expect(ordersUnder(`${base}-0`)).toHaveLength(1);
			expect(trailOf(`${base}-0`)).toEqual([
				'POST 503',
				'GET 503',
				'GET 503',
				'GET 503',
				'GET 200',
				'POST 200',
			]);
		});
	});
});

describe('a gateway timeout after the service bought the order', () => {
	it('HTTP 504 after the commit, then on the look-ups: the look-up finds the order, nothing is bought twice', async () => {
		const base = uniqueReference('late-504');
		await behindGateway({ status: 504, count: 4, afterCommit: true }, async () => {
			const run = await runVoucher(sandbox, perRow(base), { items: rows(1) });

			expect(run.error).toBeUndefined();
			expect(run.json[0]).toMatchObject({ reference: `${base}-0`, alreadyExisted: false });
			expect(ordersUnder(`${base}-0`)).toHaveLength(1);
			expect(trailOf(`${base}-0`)).toEqual([
				'POST 504',
				'GET 504',
				'GET 504',
				'GET 504',
				'GET 200',
			]);
		});
	});
});

describe('a look-up that fails while Wait for Completion waits', () => {
	it("the order bought is output as it was answered, with waitFailed: never as 'not bought'", async () => {
		const reference = uniqueReference('wait-404');
		// The create goes through; every look-up of the order meets a gateway's 404 page.
		sandbox.configure({
			processingDelayMs: 60_000,
			faults: { paths: [`/v2/orders/${reference}`], gateway: { status: 404, method: 'GET' } },
		});
		try {
			const run = await runVoucher(
				sandbox,
				{
					...perRow(reference),
					reference,
					productCode: 'VCH-SLOW-COMPLETED',
					options: { waitForCompletion: true, waitTimeoutSeconds: 10 },
				},
				{ items: rows(1) },
			);
			expect(run.error).toBeUndefined();
			expect(ordersUnder(reference)).toHaveLength(1);
			expect(run.json[0]).toMatchObject({
				reference,
				status: 'PROCESSING',
				alreadyExisted: false,
				vouchersPending: true,
			});
			expect(String(run.json[0].waitFailed)).toMatch(/could not be looked up/);
		} finally {
			sandbox.configure({ processingDelayMs: 1500, faults: {} });
		}
	});
});
