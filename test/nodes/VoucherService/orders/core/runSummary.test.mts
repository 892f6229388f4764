/**
 * The summary above a real run, held against the sandbox's own books after a run with faults:
 * its figures must be what the service debited and issued, never re-computed from the input.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { campaignParameters } from '../../campaignParameters.mts';
import { runVoucher, sandboxForThisFile, uniqueReference } from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile({ processingDelayMs: 60_000 });

const SUMMARY =
	/^This run bought (\d+) vouchers? in (\d+) new orders? for NGN ([\d,]+\.\d\d) \(before coupon discounts\); (\d+) items? already held from an earlier run; (\d+) items? refused or failed; (\d+) orders? still PROCESSING\.(?: (\d+) of these orders \(NGN ([\d,]+\.\d\d)\) (?:was|were) found by look-up after the create's answer was lost: this run bought (?:it|them), unless an earlier run used the same Reference\.)?$/;

const kobo = (naira: string | undefined) =>
	naira === undefined ? 0 : Math.round(Number(naira.replaceAll(',', '')) * 100);

/** The six figures of the run's summary hint. */
function summaryOf(run: Awaited<ReturnType<typeof runVoucher>>) {
	const hints = run.run.data.resultData.runData['Node under test'][0].hints ?? [];
	const match = hints.map((hint) => SUMMARY.exec(hint.message)).find(Boolean);
	if (!match) throw new Error(`no summary among ${JSON.stringify(hints)}`);
	const [vouchers, orders, naira, held, failed, processing, lost, lostNaira] = match.slice(1);
	return {
		vouchers: Number(vouchers),
		orders: Number(orders),
		spentKobo: kobo(naira),
		held: Number(held),
		failed: Number(failed),
		processing: Number(processing),
		foundByLookup: { orders: Number(lost ?? 0), kobo: kobo(lostNaira) },
	};
}

/** What the sandbox's books say a run did: its debits, and the orders and vouchers behind them. */
async function booksOf(run: () => Promise<Awaited<ReturnType<typeof runVoucher>>>) {
	const seen = sandbox.state.ledger.length;
	const result = await run();
	const debits = sandbox.state.ledger.slice(seen).filter((entry) => entry.kind === 'debit');
	const orders = debits.map((entry) => sandbox.state.orders.get(entry.reference!)!);
	return {
		result,
		books: {
			vouchers: orders.reduce((sum, order) => sum + order.count, 0),
			orders: new Set(debits.map((entry) => entry.reference)).size,
			spentKobo: -debits.reduce((sum, entry) => sum + entry.amountKobo, 0),
			processing: orders.filter((order) => order.status === 'PROCESSING').length,
		},
	};
}

const FAULTS = {
	errorRate: 0.1,
	resetRate: 0.1,
	commitThenDropRate: 0.15,
	seed: 977,
	paths: ['/v2/orders'],
};

async function withFaults<T>(run: () => Promise<T>): Promise<T> {
	sandbox.configure({ faults: FAULTS });
	try {
		return await run();
	} finally {
		sandbox.configure({ faults: {} });
	}
}

const failedItems = (json: IDataObject[]) => json.filter((item) => item.error !== undefined).length;

describe('the run summary against the sandbox ledger, after a run with faults', () => {
	it('a campaign: vouchers, orders and NGN are what was debited; held and failed rows as output', async () => {
		const base = uniqueReference('summary-camp');
		const people = Array.from({ length: 40 }, (_, i) => ({
			firstName: `First${i}`,
			lastName: `Last${i}`,
			email: `summary${i}@example.com`,
		}));
		const parameters: INodeParameters = {
			...campaignParameters(base, { recipientsPerOrder: 3, concurrency: 6 }),
			amount: 1250.5,
		};
		// An earlier run holds the first 8 people.
		await runVoucher(sandbox, parameters, { items: people.slice(0, 8) });
		const rows = [...people, { firstName: 'Bad', lastName: 'Row', email: 'not-an-address' }];
		const { result, books } = await booksOf(() =>
			withFaults(() => runVoucher(sandbox, parameters, { items: rows, continueOnFail: true })),
		);
		const faulted = sandbox.state.requests.filter(
			(entry) => entry.fault && entry.method === 'POST',
		);
		expect(faulted.length).toBeGreaterThan(0);
		const summary = summaryOf(result);
		// A campaign's new orders take numbers no earlier run holds: none is in doubt.
		expect(summary).toEqual({
			...books,
			held: result.json.filter((item) => item.alreadyExisted === true).length,
			failed: failedItems(result.json),
			foundByLookup: { orders: 0, kobo: 0 },
		});
		expect(books.orders).toBeGreaterThan(0);
		expect(summary.held).toBe(8);
		expect(summary.failed).toBeGreaterThanOrEqual(1);
	});

	it('single orders: new references add up to the ledger; an earlier order found after a lost answer is named as in doubt', async () => {
		const prefix = uniqueReference('summary-one');
		const items = Array.from({ length: 30 }, (_, i) => ({
			ref: `${prefix}-${i}`,
			amount: 100 * (i + 1),
			quantity: (i % 3) + 1,
		}));
		const parameters: INodeParameters = {
			resource: 'order',
			operation: 'create',
			reference: '={{ $json.ref }}',
			productCode: 'VCH-SLOW-COMPLETED',
			amount: '={{ $json.amount }}',
			quantity: '={{ $json.quantity }}',
			options: { concurrency: 6 },
		};
		// An earlier run holds items 0 to 9.
		const earlier = items.slice(0, 10);
		await runVoucher(sandbox, parameters, { items: earlier });
		const withBad = [...items, { ref: 'templates', amount: 100, quantity: 1 }];
		const { result, books } = await booksOf(() =>
			withFaults(() => runVoucher(sandbox, parameters, { items: withBad, continueOnFail: true })),
		);
		const summary = summaryOf(result);
		// Earlier orders this run could not tell from its own: a create whose answer was lost,
		// then found by look-up. The summary counts them as bought and says which are in doubt.
		const inDoubt = earlier.filter((_, index) => result.json[index].alreadyExisted === false);
		const inDoubtKobo = inDoubt.reduce((sum, item) => sum + item.amount * 100 * item.quantity, 0);
		const inDoubtProcessing = earlier.filter(
			(_, index) =>
				result.json[index].alreadyExisted === false && result.json[index].status === 'PROCESSING',
		).length;
		expect({ ...summary, foundByLookup: undefined }).toEqual({
			vouchers: books.vouchers + inDoubt.reduce((sum, item) => sum + item.quantity, 0),
			orders: books.orders + inDoubt.length,
			spentKobo: books.spentKobo + inDoubtKobo,
			processing: books.processing + inDoubtProcessing,
			held: earlier.length - inDoubt.length,
			failed: failedItems(result.json),
			foundByLookup: undefined,
		});
		expect(summary.foundByLookup.orders).toBeGreaterThanOrEqual(inDoubt.length);
		expect(summary.foundByLookup.kobo).toBeGreaterThanOrEqual(inDoubtKobo);
		expect(inDoubt.length).toBeGreaterThan(0);
		// Each is marked on its own item too, for workflows that never see the hint.
		earlier.forEach((_, index) => {
			const item = result.json[index];
			expect(item.foundByLookup).toBe(item.alreadyExisted === false ? true : undefined);
		});
		expect(summary.failed).toBe(1);
		expect(books.orders).toBe(20);
	});
});
