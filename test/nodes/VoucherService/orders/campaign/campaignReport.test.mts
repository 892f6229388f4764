/**
 * Order → Get Campaign: the report of a campaign's vouchers, judged against the sandbox's own
 * orders. It reads only, finds the orders the way a campaign run does (gaps included), pairs
 * every item to the input item that asked, and refuses a bad base before sending anything.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

import { voucherDeliveryStatus } from '../../../../../nodes/VoucherService/orders/campaign/deliveryStatus';
import { formatNaira } from '../../../../../nodes/VoucherService/shared/money';
import {
	campaignSandboxForThisFile,
	hints,
	PROCESSING_DELAY_MS,
	sheet,
} from '../../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, campaignOrders, reportFromBooks } =
	await campaignSandboxForThisFile();

const STATUSES = ['DELIVERED', 'FAILED', 'CANCELED', 'PROCESSING'];

// A test may hold orders PROCESSING (campaignWithGapsAndOutcomes); the next one starts as usual.
afterEach(() => sandbox.configure({ processingDelayMs: PROCESSING_DELAY_MS }));

/** Get Campaign, one input item per base reference. */
async function report(bases: string[], run: { continueOnFail?: boolean } = {}) {
	const posts = apiRequests(sandbox, 'POST').length;
	const gets = apiRequests(sandbox, 'GET').length;
	const result = await runVoucher(
		sandbox,
		{ resource: 'order', operation: 'getCampaign', reference: '={{ $json.base }}' },
		{ items: bases.map((base) => ({ base })), ...run },
	);
	return {
		...result,
		posts: apiRequests(sandbox, 'POST').length - posts,
		gets: apiRequests(sandbox, 'GET').length - gets,
		hint: hints(result)[0],
	};
}

const numberOf = (reference: string) => Number(reference.slice(reference.lastIndexOf('-') + 1));

/**
 * A campaign with a gap and every kind of order: -1 and -5 COMPLETED (orders 2 to 4 were
 * refused, as a run with a bad template leaves them), -6 PARTIALLY_COMPLETED (its last item
 * FAILED), -7 FAILED without vouchers and -8 still PROCESSING.
 */
async function campaignWithGapsAndOutcomes(base: string) {
	const rows = sheet(10).map((row, i) => ({
		...row,
		amount: 100 + Math.floor(i / 2),
		template: i >= 2 && i < 8 ? 99 : 1,
	}));
	const template = { templateId: '={{ $json.template }}' };
	// All five in flight at once on any machine: the pacing's clock stands still, so no answer
	// looks slow and it sends five at once; the sandbox holds them until all five have come.
	vi.useFakeTimers({ toFake: ['Date'] });
	sandbox.configure({ createBarrier: { creates: 5 } });
	try {
		await runCampaign(base, rows, { concurrency: 5 }, { extra: template, continueOnFail: true });
	} finally {
		vi.useRealTimers();
		sandbox.configure({ createBarrier: null });
	}
	const wait = { waitForCompletion: true, waitTimeoutSeconds: 10 };
	const at = (amount: number, prefix: string, count: number) =>
		sheet(count, prefix).map((row) => ({ ...row, amount }));
	await runCampaign(base, at(300, 'partial', 3), wait, {
		extra: { productCode: 'VCH-SLOW-PARTIAL' },
	});
	await runCampaign(base, at(400, 'failed', 2), wait, {
		extra: { productCode: 'VCH-SLOW-FAILED' },
	});
	// -8 stays PROCESSING until the test is over, however slow the machine (afterEach).
	sandbox.configure({ processingDelayMs: 600_000 });
	await runCampaign(base, at(500, 'slow', 2), {}, { extra: { productCode: 'VCH-SLOW-COMPLETED' } });
	const found = campaignOrders(base).map((order) => [numberOf(order.reference), order.status]);
	expect(found.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
		[1, 'COMPLETED'],
		[5, 'COMPLETED'],
		[6, 'PARTIALLY_COMPLETED'],
		[7, 'FAILED'],
		[8, 'PROCESSING'],
	]);
}

describe('Order → Get Campaign', () => {
	it('lists every voucher of a campaign with gaps, a partial, a failed and a pending order, and buys nothing', async () => {
		const base = uniqueReference('report');
		await campaignWithGapsAndOutcomes(base);

		const run = await report([base]);
		expect(run.error).toBeUndefined();
		expect(run.posts).toBe(0);
		// Discovery's cost: every number up to the highest, and 32 misses above it.
		expect(run.gets).toBe(8 + 32);
		expect(run.json).toEqual(reportFromBooks(base));
		expect(run.json.map((item) => item.deliveryStatus)).toEqual([
			'DELIVERED',
			'DELIVERED',
			'DELIVERED',
			'DELIVERED',
			'DELIVERED',
			'DELIVERED',
			'FAILED',
			'FAILED',
			'PROCESSING',
		]);
		run.main.forEach((item) => expect(item.pairedItem).toEqual({ item: 0 }));
		expect(JSON.stringify(run.json)).not.toMatch(/"(code|pin)"/);
	});

	it('sums up per delivery status and in NGN exactly as the sandbox holds the vouchers', async () => {
		const base = uniqueReference('summary');
		await campaignWithGapsAndOutcomes(base);
		const vouchers = campaignOrders(base).flatMap((order) => order.vouchers);
		const perStatus = STATUSES.map(
			(status) => `${vouchers.filter((voucher) => voucher.status === status).length} ${status}`,
		).join(', ');
		const totalKobo = vouchers.reduce((sum, voucher) => sum + Math.round(voucher.value * 100), 0);

		const run = await report([base]);
		expect(run.hint.message).toBe(
			`Campaign "${base}": ${vouchers.length} vouchers in 5 orders, worth ${formatNaira(totalKobo)}: ${perStatus}. 2 orders list no vouchers (${base}-7 (FAILED), ${base}-8 (PROCESSING)), so their recipients are not in this report.`,
		);
		expect(perStatus).toBe('6 DELIVERED, 1 FAILED, 0 CANCELED, 0 PROCESSING');
		expect(run.hint.type).toBe('warning');
		expect(run.hint.location).toBe('outputPane');
	});

	it('pairs each item to the input item that asked; a campaign asked twice is read once; none found gives no items and says so', async () => {
		const base = uniqueReference('paired');
		await runCampaign(base, sheet(3));
		const missing = uniqueReference('nothing');
		const run = await report([base, missing, ` ${base} `]);
		expect(run.error).toBeUndefined();
		expect(run.posts).toBe(0);
		// Two orders (one per amount), read once for items 0 and 2, and 32 misses for the missing one.
		expect(run.gets).toBe(2 + 32 + 32);
		expect(run.main.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 0 },
			{ item: 0 },
			{ item: 2 },
			{ item: 2 },
			{ item: 2 },
		]);
		expect(run.json.slice(0, 3)).toEqual(run.json.slice(3));
		expect(run.json.slice(0, 3).map((item) => item.email)).toEqual(
			sheet(3).map((row) => row.email),
		);
		expect(run.hint.message).toBe(
			`Campaign "${base}": 3 vouchers in 2 orders, worth NGN 5,000.00: 3 DELIVERED, 0 FAILED, 0 CANCELED, 0 PROCESSING. No orders found for campaign "${missing}" (orders ${missing}-1, ${missing}-2, …): check the base reference.`,
		);
		expect(run.hint.type).toBe('warning');
	});

	it('all delivered is an info hint; no orders at all is no items and a hint only', async () => {
		const base = uniqueReference('clean');
		await runCampaign(base, sheet(2));
		expect((await report([base])).hint.type).toBe('info');
		const none = await report([uniqueReference('none')]);
		expect(none.error).toBeUndefined();
		expect(none.json).toEqual([]);
		expect(none.hint.message).toMatch(/^No orders found for campaign "none-/);
	});
});

describe('Get Campaign input and failures', () => {
	it.each([
		['empty', '', /^Item 1: invalid "reference": Reference must not be empty$/],
		['blank', '   ', /^Item 1: invalid "reference": Reference must not be empty$/],
		['"templates"', 'templates', /^Item 1: invalid "reference": "templates" cannot be a Reference/],
		[
			'"Recipients"',
			' Recipients ',
			/^Item 1: invalid "reference": "Recipients" cannot be a Reference/,
		],
	])(
		'refuses an %s base reference before sending anything, naming the item',
		async (_, bad, message) => {
			const base = uniqueReference('valid');
			const strict = await report([base, bad]);
			expect(strict.error?.message).toMatch(message);
			expect(strict.gets + strict.posts).toBe(0);

			const lenient = await report([base, bad], { continueOnFail: true });
			expect(lenient.posts).toBe(0);
			expect(lenient.main).toHaveLength(1);
			expect(lenient.main[0].pairedItem).toEqual({ item: 1 });
			expect(String(lenient.json[0].error)).toMatch(message);
			expect(lenient.hint.message).toMatch(/1 item failed\.$/);
		},
	);

	it('a service error fails the item; with continueOnFail each item gets its own paired error', async () => {
		const bases = [uniqueReference('a'), uniqueReference('b')];
		const options = { credential: { secretKey: 'wrong' } };
		const strict = await runVoucher(
			sandbox,
			{ resource: 'order', operation: 'getCampaign', reference: '={{ $json.base }}' },
			{ items: bases.map((base) => ({ base })), ...options },
		);
		expect(strict.error?.message).toMatch(/refused the credentials \(HTTP 401\)/);
		const lenient = await runVoucher(
			sandbox,
			{ resource: 'order', operation: 'getCampaign', reference: '={{ $json.base }}' },
			{ items: bases.map((base) => ({ base })), ...options, continueOnFail: true },
		);
		expect(lenient.main.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		lenient.json.forEach((item) => expect(String(item.error)).toMatch(/HTTP 401/));
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});
});

describe('delivery status where the spec is silent', () => {
	it.each([
		['DELIVERED', 'DELIVERED'],
		[' failed ', 'FAILED'],
		['Canceled', 'CANCELED'],
		['PROCESSING', 'PROCESSING'],
		[null, 'PROCESSING'],
		[undefined, 'PROCESSING'],
		['BOUNCED', 'PROCESSING'],
		[3, 'PROCESSING'],
	])('%j is %s: never DELIVERED or FAILED unless the service says so', (status, expected) => {
		expect(voucherDeliveryStatus(status)).toBe(expected);
	});
});
