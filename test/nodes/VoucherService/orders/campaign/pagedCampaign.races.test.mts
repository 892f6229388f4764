/**
 * What a run by Row ID reports when another run took one of its numbers: it never says a row
 * is bought without a voucher of its own, never fails rows it bought before, and replans what
 * the other run's order does not hold. The other run is played for certain: its order is
 * placed before this run, above the number this run reads up to (the run reads a block up to
 * its first miss), so this run's create of that number meets it.
 */
import { describe, expect, it } from 'vitest';

import { MAX_BLOCK_ORDERS } from '../../../../../nodes/VoucherService/orders/campaign/rowBlocks';
import { byId, campaignSandboxForThisFile, table } from '../../campaignRuns.mts';
import { uniqueReference } from '../../voucherNodeRunner.mts';

const { sandbox, runCampaign, placeDirectly, createsOf, expectEveryRowHeldOnce } =
	await campaignSandboxForThisFile();

/** Resolves once `done` holds, checked as the event loop turns (an event, not a duration). */
async function until(done: () => boolean) {
	while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

/** Rows 0-9 held by order n1; this run's rows 10-59 go into n2 (10-34) and n3 (35-59), where the other run's order waits. */
async function blockWithTakenN3(base: string, productCode: string) {
	const rows = table(60, 0);
	const other = table(5, 90);
	await placeDirectly(`${base}-k0-n1`, rows.slice(0, 10));
	await placeDirectly(`${base}-k0-n3`, other, productCode);
	return { rows, other };
}

/** This run plans n2 (rows 10-34), n3 (35-59) and n4 (60-84); the other run's n3, still PROCESSING, holds 60-84. */
async function othersN3HoldsOurN4(base: string) {
	sandbox.configure({
		dialect: { duplicateReference: 'existingOrder200' },
		processingDelayMs: 60_000,
	});
	const rows = table(85, 0);
	await placeDirectly(`${base}-k0-n1`, rows.slice(0, 10));
	await placeDirectly(`${base}-k0-n3`, rows.slice(60), 'VCH-SLOW-COMPLETED');
	return rows;
}

const perOrder = { recipientsPerOrder: 25 };
const wait = { ...perOrder, waitForCompletion: true, waitTimeoutSeconds: 10 };

describe('a run whose number another run took, answered with that order (200 00, existingOrder200)', () => {
	it('Wait for Completion on: once the order lists its recipients, the rows it lacks are bought under the next number', async () => {
		const base = uniqueReference('taken-wait');
		// The other run's order stays PROCESSING until this run's create of its number has been
		// answered with it, then settles: the run's wait sees it list its recipients.
		sandbox.configure({
			dialect: { duplicateReference: 'existingOrder200' },
			processingDelayMs: 60_000,
		});
		try {
			const { rows, other } = await blockWithTakenN3(base, 'VCH-SLOW-COMPLETED');
			const running = runCampaign(base, rows, wait, byId);
			const n3 = `${base}-k0-n3`;
			await until(() => createsOf().get(n3) === 2);
			sandbox.configure({ processingDelayMs: 300 });
			const run = await running;
			expect(run.error).toBeUndefined();
			const mine = run.json.slice(35);
			expect(mine.every((row) => row.voucher !== null && row.confirmed === true)).toBe(true);
			expect(new Set(mine.map((row) => row.reference))).toEqual(new Set([`${base}-k0-n4`]));
			expectEveryRowHeldOnce(base, [...rows, ...other]);
		} finally {
			sandbox.configure({ dialect: {}, processingDelayMs: 300 });
		}
	});

	it("an order that lists other people is read as that run's: the rows go on under the next number (found by the simulator)", async () => {
		const base = uniqueReference('taken-listed');
		sandbox.configure({ dialect: { duplicateReference: 'existingOrder200' } });
		try {
			const { rows, other } = await blockWithTakenN3(base, 'VCH-INSTANT');
			const run = await runCampaign(base, rows, perOrder, { ...byId, continueOnFail: true });
			expect(run.json.filter((row) => row.error !== undefined)).toEqual([]);
			const mine = run.json.slice(35);
			expect(new Set(mine.map((row) => row.reference))).toEqual(new Set([`${base}-k0-n4`]));
			expectEveryRowHeldOnce(base, [...rows, ...other]);
		} finally {
			sandbox.configure({ dialect: {} });
		}
	});

	it('Wait for Completion off: the rows name the order and say they are not confirmed', async () => {
		const base = uniqueReference('taken-nowait');
		sandbox.configure({
			dialect: { duplicateReference: 'existingOrder200' },
			processingDelayMs: 60_000,
		});
		try {
			const { rows } = await blockWithTakenN3(base, 'VCH-SLOW-COMPLETED');
			const run = await runCampaign(base, rows, perOrder, byId);
			expect(run.error).toBeUndefined();
			for (const row of run.json.slice(35)) {
				expect(row).toMatchObject({
					reference: `${base}-k0-n3`,
					status: 'PROCESSING',
					confirmed: false,
					voucher: null,
				});
			}
			expect(run.json.slice(10, 35).every((row) => row.confirmed === true)).toBe(true);
		} finally {
			sandbox.configure({ dialect: {}, processingDelayMs: 300 });
		}
	});
});

describe('a number taken while this run has more orders to send in the block (existingOrder200, found by the simulator)', () => {
	it('Wait for Completion off: the next order waits until the taken one lists its recipients, so none of them is bought twice', async () => {
		const base = uniqueReference('taken-more');
		try {
			const rows = await othersN3HoldsOurN4(base);
			const running = runCampaign(base, rows, perOrder, byId);
			const n3 = `${base}-k0-n3`;
			await until(() => createsOf().get(n3) === 2);
			sandbox.configure({ processingDelayMs: 300 });
			const run = await running;
			expect(run.error).toBeUndefined();
			expect(new Set(run.json.slice(35, 60).map((row) => row.reference))).toEqual(
				new Set([`${base}-k0-n4`]),
			);
			expect(run.json.slice(60).every((row) => row.reference === n3)).toBe(true);
			expectEveryRowHeldOnce(base, rows);
		} finally {
			sandbox.configure({ dialect: {}, processingDelayMs: 300 });
		}
	});

	it('when the taken one does not end within Wait Timeout, its rows name it and the later rows are unsettled, unsent', async () => {
		const base = uniqueReference('taken-stuck');
		try {
			const rows = await othersN3HoldsOurN4(base);
			const options = { ...perOrder, waitTimeoutSeconds: 1 };
			const run = await runCampaign(base, rows, options, { ...byId, continueOnFail: true });
			const n3 = `${base}-k0-n3`;
			for (const row of run.json.slice(35, 60))
				expect(row).toMatchObject({ reference: n3, confirmed: false, voucher: null });
			for (const row of run.json.slice(60))
				expect(String(row.error)).toMatch(
					new RegExp(`^Item \\d+: unsettled: order ${n3} could not be read to its end`),
				);
			expect(createsOf().get(`${base}-k0-n4`)).toBeUndefined();
		} finally {
			sandbox.configure({ dialect: {}, processingDelayMs: 300 });
		}
	});
});

describe('a run that lost a number, when that order cannot be read while it waits for it', () => {
	it('rows it bought before keep their vouchers; the rows of the lost number are unsettled, not failed as unread', async () => {
		const base = uniqueReference('taken-unread');
		sandbox.configure({ processingDelayMs: 60_000 });
		const { rows } = await blockWithTakenN3(base, 'VCH-SLOW-COMPLETED');
		// The look-up after the refused create finds the other run's order PROCESSING; every later
		// read of it meets a gateway's 404 page.
		sandbox.configure({
			faults: {
				paths: [`/v2/orders/${base}-k0-n3`],
				gateway: { status: 404, method: 'GET', skip: 1 },
			},
		});
		try {
			const run = await runCampaign(base, rows, wait, { ...byId, continueOnFail: true });
			const bought = run.json.slice(10, 35);
			expect(bought.every((row) => row.error === undefined && row.voucher !== null)).toBe(true);
			for (const row of run.json.slice(35)) {
				expect(String(row.error)).toMatch(
					new RegExp(`^Item \\d+: unsettled: order ${base}-k0-n3, made by another run`),
				);
			}
		} finally {
			sandbox.configure({ faults: {}, processingDelayMs: 300 });
		}
	});
});

describe('a run that trails another over a whole block of 1,000', () => {
	it('loses every number after its first, each to an order holding its rows, and fails none', async () => {
		const base = uniqueReference('trailing');
		const rows = table(1000, 0);
		// The other run made n2 to n10 after this one read the block (n1 missing): this run
		// creates n1, then meets each of the nine.
		for (let n = 2; n <= 10; n++)
			await placeDirectly(`${base}-k0-n${n}`, rows.slice((n - 1) * 100, n * 100));
		const run = await runCampaign(base, rows, {}, { ...byId, continueOnFail: true });
		expect(run.json.filter((row) => row.error !== undefined)).toEqual([]);
		expect(run.json.map((row) => row.reference)).toEqual(
			rows.map((_, i) => `${base}-k0-n${Math.floor(i / 100) + 1}`),
		);
		expect(createsOf().get(`${base}-k0-n10`)).toBe(2);
		expectEveryRowHeldOnce(base, rows);
	});
});

describe('a page whose block other pages fill at once', () => {
	it('loses eleven numbers to orders holding none of its rows, and buys its rows under the next', async () => {
		const base = uniqueReference('crowded');
		const rows = table(50, 0);
		// Other pages of the block made n2 to n12 after this one read it (n1 missing), each with
		// rows of their own.
		const others = [];
		for (let n = 2; n <= 12; n++) {
			const theirs = table(5, 100 + n * 10);
			await placeDirectly(`${base}-k0-n${n}`, theirs);
			others.push(...theirs);
		}
		const run = await runCampaign(base, rows, perOrder, { ...byId, continueOnFail: true });
		expect(run.json.filter((row) => row.error !== undefined)).toEqual([]);
		expect(run.json.map((row) => row.reference)).toEqual([
			...rows.slice(0, 25).map(() => `${base}-k0-n1`),
			...rows.slice(25).map(() => `${base}-k0-n13`),
		]);
		for (let n = 2; n <= 12; n++) expect(createsOf().get(`${base}-k0-n${n}`)).toBe(2);
		expectEveryRowHeldOnce(base, [...rows, ...others]);
	});

	it('stops, leaving its rows unsettled, when two numbers are answered with one order', async () => {
		const base = uniqueReference('alike');
		const rows = table(75, 0);
		for (const n of [2, 3]) await placeDirectly(`${base}-k0-n${n}`, table(5, 100 + n * 10));
		// Look-ups of n2 and n3 meet one order naming no Reference, as a misrouting gateway
		// might answer: taken for n2's, it cannot be n3's too.
		sandbox.configure({ phantomOrders: [`${base}-k0-n2`, `${base}-k0-n3`] });
		try {
			const run = await runCampaign(base, rows, perOrder, { ...byId, continueOnFail: true });
			expect(run.json.slice(0, 25).every((row) => row.error === undefined)).toBe(true);
			for (const row of run.json.slice(25)) {
				expect(String(row.error)).toMatch(
					new RegExp(
						`^Item \\d+: unsettled: order ${base}-k0-n3 was answered with order SBX-PHANTOM, which is ${base}-k0-n2$`,
					),
				);
			}
			expect(createsOf().get(`${base}-k0-n4`)).toBeUndefined();
		} finally {
			sandbox.configure({ phantomOrders: false });
		}
	});
});

describe('a block as full as it is read', () => {
	it('buys up to its last number the next run reads, and sends no order past it', async () => {
		const base = uniqueReference('full');
		const rows = table(50, 0);
		// The block answers an order under each number below the last: the phantom, holding no row.
		const filled = Array.from({ length: MAX_BLOCK_ORDERS - 1 }, (_, i) => `${base}-k0-n${i + 1}`);
		sandbox.configure({ phantomOrders: filled });
		try {
			const run = await runCampaign(base, rows, perOrder, { ...byId, continueOnFail: true });
			const last = `${base}-k0-n${MAX_BLOCK_ORDERS}`;
			expect(run.json.slice(0, 25).map((row) => [row.error, row.reference])).toEqual(
				rows.slice(0, 25).map(() => [undefined, last]),
			);
			const past = `${base}-k0-n${MAX_BLOCK_ORDERS + 1}`;
			for (const row of run.json.slice(25)) {
				expect(String(row.error)).toMatch(
					new RegExp(
						`^Item \\d+: not bought: order ${past} was not sent, because a block is read only up to its order number ${MAX_BLOCK_ORDERS}$`,
					),
				);
			}
			expect(run.posts).toBe(1);
		} finally {
			sandbox.configure({ phantomOrders: false });
		}
	});
});
