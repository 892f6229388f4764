/**
 * Campaigns after something went wrong: a failed order, an order still PROCESSING or with an
 * unknown outcome, earlier orders by final status, and the bound on creates in flight that
 * the stopping rule relies on.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';

import {
	campaignSandboxForThisFile,
	DISCOVERY_MISSES,
	PROCESSING_DELAY_MS,
	atAmount,
	sheet,
} from '../../campaignRuns.mts';
import { apiRequests, uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, campaignOrders, expectEveryRowHeldOnce, recipientsPosted } =
	await campaignSandboxForThisFile();

describe('what a run does after a failed order', () => {
	it('starts no further order after the first failure, and a re-run finishes the job', async () => {
		const base = uniqueReference('stop');
		const rows = sheet(6).map((row, i) => ({
			...row,
			amount: 100 + Math.floor(i / 2),
			template: i < 2 ? 99 : 1,
		}));
		const extra = { templateId: '={{ $json.template }}' };
		const first = await runCampaign(
			base,
			rows,
			{ concurrency: 1 },
			{ extra, continueOnFail: true },
		);
		expect(first.posts).toBe(1);
		expect(String(first.json[0].error)).toMatch(/Invalid template/);
		expect(String(first.json[5].error)).toMatch(
			new RegExp(
				`^Item 5: not bought: order ${base}-3 was not sent, because order ${base}-1 failed first in this run`,
			),
		);
		const fixed = rows.map((row) => ({ ...row, template: 1 }));
		const again = await runCampaign(base, fixed, { concurrency: 1 }, { extra });
		expect(again.error).toBeUndefined();
		expect(again.posts).toBe(3);
		expectEveryRowHeldOnce(base, fixed);
	});

	it('a FAILED order holds no vouchers: its rows are not bought, and bought again in a new order', async () => {
		const base = uniqueReference('failed');
		const rows = sheet(2).map((row) => ({ ...row, amount: 1000 }));
		const options = { waitForCompletion: true, waitTimeoutSeconds: 10 };
		const first = await runCampaign(base, rows, options, {
			extra: { productCode: 'VCH-SLOW-FAILED' },
			continueOnFail: true,
		});
		expect(first.json.map((row) => row.error)).toEqual(
			rows.map((_, i) => `Item ${i}: not bought: order ${base}-1 ended FAILED`),
		);
		const again = await runCampaign(base, rows, options, {
			extra: { productCode: 'VCH-SLOW-COMPLETED' },
		});
		expect(again.posts).toBe(1);
		expect(again.json[0]).toMatchObject({ reference: `${base}-2`, status: 'COMPLETED' });
		expectEveryRowHeldOnce(base, rows);
	});
});

describe('the bound the stopping rule relies on', () => {
	it('never has more than 32 creates in flight at the highest Concurrency an expression may give', async () => {
		let inFlight = 0;
		let peak = 0;
		const isCreate = (message: unknown) =>
			(message as { request: IncomingMessage }).request.method === 'POST';
		const started = (message: unknown) => {
			if (isCreate(message)) peak = Math.max(peak, ++inFlight);
		};
		const finished = (message: unknown) => {
			if (isCreate(message)) inFlight--;
		};
		subscribe('http.server.request.start', started);
		subscribe('http.server.response.finish', finished);
		sandbox.configure({ latencyMs: 150 });
		try {
			const base = uniqueReference('bound');
			const { error, posts } = await runCampaign(base, sheet(48), {
				recipientsPerOrder: 1,
				// Anything above 32 is refused (test/nodes/VoucherService/shared/concurrency.test.mts).
				concurrency: '={{ 32 }}',
			});
			expect(error).toBeUndefined();
			expect(posts).toBe(48);
			// The transport's pacing ramps 4 → 8 → 16 → 32, so the peak depends on timing; it
			// must come near the cap (the expression's 32 was not ignored for a small default)
			// and never pass it.
			expect(peak).toBeGreaterThan(DISCOVERY_MISSES / 2);
			expect(peak).toBeLessThanOrEqual(DISCOVERY_MISSES);
		} finally {
			sandbox.configure({ latencyMs: 0 });
			unsubscribe('http.server.request.start', started);
			unsubscribe('http.server.response.finish', finished);
		}
	});
});

describe('an existing order still PROCESSING', () => {
	it('blocks the campaign until it is known, then only new rows are bought', async () => {
		const base = uniqueReference('slow');
		const rows = sheet(4);
		sandbox.configure({ processingDelayMs: 2500 });
		try {
			await runCampaign(base, rows, {}, { extra: { productCode: 'VCH-SLOW-COMPLETED' } });
			expect(campaignOrders(base).map((o) => o.status)).toEqual(['PROCESSING', 'PROCESSING']);
			const grown = [...rows, ...sheet(2, 'late')];
			const blocked = await runCampaign(
				base,
				grown,
				{ waitTimeoutSeconds: 1 },
				{ extra: { productCode: 'VCH-SLOW-COMPLETED' } },
			);
			expect(blocked.posts).toBe(0);
			expect(blocked.error?.message).toMatch(
				new RegExp(`order ${base}-\\d of campaign "${base}" is still PROCESSING`),
			);
			expect(blocked.error?.description).toMatch(/a later run will finish the job/);

			const before = apiRequests(sandbox, 'POST').length;
			const later = await runCampaign(
				base,
				grown,
				{},
				{ extra: { productCode: 'VCH-SLOW-COMPLETED' } },
			);
			expect(later.error).toBeUndefined();
			expect(recipientsPosted(before).sort()).toEqual(['late0@example.com', 'late1@example.com']);
		} finally {
			sandbox.configure({ processingDelayMs: PROCESSING_DELAY_MS });
		}
	}, 30_000);
});

describe('an order whose outcome stays unknown', () => {
	it('names every one of its rows, each with its own item', async () => {
		const base = uniqueReference('unknown');
		sandbox.configure({ faults: { errorRate: 1, paths: ['/v2/orders/recipients'] } });
		let run;
		try {
			run = await runCampaign(base, atAmount(sheet(3), 1000), {}, { continueOnFail: true });
		} finally {
			sandbox.configure({ faults: {} });
		}
		expect(campaignOrders(base)).toHaveLength(0);
		run.main.forEach((item, index) => {
			expect(String(item.json.error)).toMatch(
				new RegExp(`^Item ${index}: not bought: order ${base}-1 failed: `),
			);
			expect((item.error as { context?: IDataObject } | undefined)?.context?.itemIndex).toBe(index);
		});
	});
});

describe('earlier orders by final status', () => {
	it('a FAILED order counts the vouchers it lists: nothing is bought again for them', async () => {
		const base = uniqueReference('failed-listed');
		const rows = sheet(2);
		await runCampaign(base, rows);
		for (const order of campaignOrders(base)) order.status = 'FAILED';
		const again = await runCampaign(base, rows);
		expect(again.posts).toBe(0);
		expect(again.json.every((row) => row.alreadyExisted === true && row.status === 'FAILED')).toBe(
			true,
		);
	});

	it('a PARTIALLY_COMPLETED order with an empty list blocks with its real status, and every run stops there', async () => {
		const base = uniqueReference('partial-empty');
		await runCampaign(base, sheet(1));
		const order = sandbox.state.orders.get(`${base}-1`)!;
		order.status = 'PARTIALLY_COMPLETED';
		order.vouchers = [];
		for (let run = 0; run < 2; run++) {
			const again = await runCampaign(base, sheet(2), { waitTimeoutSeconds: 1 });
			expect(again.posts).toBe(0);
			expect(again.error?.message).toMatch(
				new RegExp(
					`order ${base}-1 of campaign "${base}" is PARTIALLY_COMPLETED but lists no vouchers`,
				),
			);
			expect(again.error?.description).toMatch(/use a new base reference/);
		}
	});
});
