/**
 * Campaigns fed in pages by Row ID: pages in any cut, re-runs, rows added, removed and
 * reordered, two runs at once, a failed order mid-way. Judged from the sandbox's books: each
 * row's person holds exactly its vouchers, and no order was paid twice.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';

import { DISCOVERY_MISSES } from '../../../../../nodes/VoucherService/orders/campaign/discovery';
import {
	byId,
	campaignSandboxForThisFile,
	pages,
	table,
	tableInBlocks,
	WALLETS,
} from '../../campaignRuns.mts';
import { apiRequests, uniqueReference } from '../../voucherNodeRunner.mts';

const {
	sandbox,
	runCampaign,
	racing,
	createsOf,
	campaignOrders,
	expectEveryRowHeldOnce,
	expectOneDebitPerOrder,
} = await campaignSandboxForThisFile();

describe('a campaign fed in pages by Row ID', () => {
	it('pages of any cut buy each row once; a page reads only its own blocks, whatever came before', async () => {
		const base = uniqueReference('paged');
		const rows = table(3000, 0);
		const costs: Array<{ gets: number; posts: number }> = [];
		for (const page of pages(rows, 1000)) {
			const run = await runCampaign(base, page, {}, byId);
			expect(run.error).toBeUndefined();
			expect(run.json.every((row) => row.alreadyExisted === false)).toBe(true);
			costs.push({ gets: run.gets, posts: run.posts });
		}
		// Page k is block k (IDs 1000k to 1000k + 999): its look-up under today's name and the
		// first of each of its ten blocks of 100 under 0.3.0's (all misses), the check that the base
		// has no whole-sheet orders (one window of DISCOVERY_MISSES), and one create per 100 rows,
		// on the 3rd page as on the first.
		expect(costs).toEqual(Array(3).fill({ gets: 11 + DISCOVERY_MISSES, posts: 10 }));
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);

		// A re-run in another cut buys nothing and reads each order once.
		const again = await runCampaign(base, rows, {}, byId);
		expect(again.posts).toBe(0);
		// The first block holds its orders, so nothing is read for checks the run will not need.
		expect(again.gets).toBe(30);
		expect(again.walletReads).toBe(0);
		expect(again.json.every((row) => row.alreadyExisted === true)).toBe(true);
		expect(again.json.map((row) => row.email)).toEqual(rows.map((row) => row.email));
	});

	it('rows added, removed and reordered between runs: only the added rows are bought', async () => {
		const base = uniqueReference('edited');
		const rows = table(250);
		await runCampaign(base, rows.slice(0, 200), {}, byId);
		const edited = [...rows.slice(150, 250), ...rows.slice(0, 100)].reverse();
		const before = apiRequests(sandbox, 'POST').length;
		const run = await runCampaign(base, edited, {}, byId);
		expect(run.error).toBeUndefined();
		const posted = apiRequests(sandbox, 'POST')
			.slice(before)
			.flatMap((p) => ((p.body as IDataObject).recipients as IDataObject[]).map((r) => r.email));
		expect(posted.sort()).toEqual(
			rows
				.slice(200)
				.map((row) => row.email)
				.sort(),
		);
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('two runs at once over the same rows: each row bought once, and neither run fails a row', async () => {
		const base = uniqueReference('twice');
		const rows = tableInBlocks(300, 100, 10);
		// One create at a time per run, so the barrier's two are one from each: both runs have
		// read all three blocks before either buys, and each block's order is sent by both.
		const [a, b] = await racing(
			() => runCampaign(base, rows, { concurrency: 1 }, byId),
			() => runCampaign(base, [...rows].reverse(), { concurrency: 1 }, byId),
		);
		expect(a.error).toBeUndefined();
		expect(b.error).toBeUndefined();
		for (const run of [a, b]) expect(run.json.every((row) => row.orderNumber)).toBe(true);
		const orders = campaignOrders(base).map((order) => order.reference);
		expect(orders.sort()).toEqual([`${base}-k10-n1`, `${base}-k11-n1`, `${base}-k12-n1`]);
		for (const reference of orders) expect(createsOf().get(reference), reference).toBe(2);
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('two runs at once over different rows of one block: the create that comes second goes on with the next number', async () => {
		const base = uniqueReference('race');
		const rows = table(100, 0);
		// Both runs read the block before either creates, so both create order 1; the second
		// create is refused, and the order under it, complete and for other rows, is not this run's.
		const runs = await racing(
			() => runCampaign(base, rows.slice(0, 50), {}, byId),
			() => runCampaign(base, rows.slice(50), {}, byId),
		);
		expect(createsOf().get(`${base}-k0-n1`)).toBe(2);
		for (const run of runs) {
			expect(run.error?.message).toBeUndefined();
			expect(run.json.every((row) => row.alreadyExisted === false)).toBe(true);
		}
		expect(
			campaignOrders(base)
				.map((order) => order.reference)
				.sort(),
		).toEqual([`${base}-k0-n1`, `${base}-k0-n2`]);
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('pages cut across blocks: a block bought in two pages gets a second order', async () => {
		const base = uniqueReference('across');
		const rows = tableInBlocks(150, 100);
		const first = await runCampaign(base, rows.slice(0, 50), {}, byId);
		const second = await runCampaign(base, rows.slice(50), {}, byId);
		expect([first.posts, second.posts]).toEqual([1, 2]);
		expect(
			campaignOrders(base)
				.map((order) => order.reference)
				.sort(),
		).toEqual([`${base}-k0-n1`, `${base}-k0-n2`, `${base}-k1-n1`].sort());
		expectEveryRowHeldOnce(base, rows);
	});

	it('two runs at once over overlapping pages: the rows they share are bought once, none fails', async () => {
		const base = uniqueReference('overlap');
		const rows = tableInBlocks(200, 100);
		// Both runs read every block before either creates (one create at a time per run), so
		// both send the first order of the two blocks they share: they race in each.
		const runs = await racing(
			() =>
				runCampaign(
					base,
					rows.slice(0, 150),
					{ recipientsPerOrder: 20, concurrency: 1 },
					{ ...byId, continueOnFail: true },
				),
			() =>
				runCampaign(
					base,
					rows.slice(50),
					{ recipientsPerOrder: 30, concurrency: 1 },
					{ ...byId, continueOnFail: true },
				),
		);
		expect(runs.flatMap((run) => run.json.filter((row) => row.error))).toEqual([]);
		expect([createsOf().get(`${base}-k0-n1`), createsOf().get(`${base}-k1-n1`)]).toEqual([2, 2]);
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('a failed order stops its block only; a re-run buys what is left, once', async () => {
		const base = uniqueReference('fails');
		const rows = table(300).map((row) => ({
			...row,
			id: row.id * 10,
			template: row.id >= 200 ? 99 : 1,
		}));
		const extra = { ...byId.extra, templateId: '={{ $json.template }}' };
		const first = await runCampaign(base, rows, {}, { extra, continueOnFail: true });
		const failed = first.json.filter((row) => row.error);
		expect(failed.length).toBe(101); // IDs 2000–3000: blocks 2 and 3, refused for the template
		expect(String(failed[0].error)).toMatch(/Invalid template/);
		const fixed = rows.map((row) => ({ ...row, template: 1 }));
		const again = await runCampaign(base, fixed, {}, { extra });
		expect(again.error).toBeUndefined();
		expect(again.json.filter((row) => row.alreadyExisted === false)).toHaveLength(101);
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('Row ID from an expression, as text of any length (a bigint), leading zeros ignored', async () => {
		const base = uniqueReference('bigint');
		const rows = table(3).map((row, i) => ({ ...row, key: `00${9007199254740993n + BigInt(i)}` }));
		const extra = { rowIdField: '={{ $json.key }}' };
		const run = await runCampaign(base, rows, {}, { extra });
		expect(run.error).toBeUndefined();
		expect(campaignOrders(base).map((order) => order.reference)).toEqual([
			`${base}-k9007199254740-n1`,
		]);
	});
});

/**
 * Each request the node sent while `run` runs, with its path and the places in the order of
 * events where it was sent and where its answer came back. Seen from the node's side, in order
 * rather than in time: what went out before an answer came back does not depend on speed.
 */
async function timeline(run: () => Promise<unknown>) {
	const spans: Array<{ method: string; path: string; sent: number; answered?: number }> = [];
	const open = new Map<ClientRequest, (typeof spans)[number]>();
	let events = 0;
	const started = (message: unknown) => {
		const { request } = message as { request: ClientRequest };
		const span = { method: request.method, path: decodeURIComponent(request.path), sent: ++events };
		spans.push(span);
		open.set(request, span);
	};
	const finished = (message: unknown) => {
		const span = open.get((message as { request: ClientRequest }).request);
		if (span) span.answered = ++events;
	};
	subscribe('http.client.request.start', started);
	subscribe('http.client.response.finish', finished);
	try {
		await run();
	} finally {
		unsubscribe('http.client.request.start', started);
		unsubscribe('http.client.response.finish', finished);
	}
	return spans;
}

describe('what a page costs in round trips', () => {
	it("a page's blocks are read at once, with the whole-sheet and wallet checks when it will buy", async () => {
		const base = uniqueReference('rounds');
		let run: Awaited<ReturnType<typeof runCampaign>> | undefined;
		const spans = await timeline(
			async () => (run = await runCampaign(base, tableInBlocks(1000, 100), {}, byId)),
		);
		expect(run?.error).toBeUndefined();
		const firstOrders = spans.filter((s) => /-k\d+-n1$/.test(s.path) && s.method === 'GET');
		expect(firstOrders).toHaveLength(10);
		// The execution's opening look-up goes alone. Its block has no order under its name, so
		// the page will most likely buy: its answer sends the other nine, the whole-sheet check
		// and the wallet read at once (as far as Maximum Concurrency lets them), then the 0.3.0
		// names of the blocks that have none. The creates wait for every read.
		const [opening, ...rest] = firstOrders.sort((a, b) => a.sent - b.sent);
		const guard = spans.filter((s) => new RegExp(`/${base}-\\d+$`).test(s.path));
		expect(guard).toHaveLength(DISCOVERY_MISSES);
		const wallet = spans.find((s) => s.path === WALLETS)!;
		const reads = spans.filter((s) => s.method === 'GET');
		const checks = [...guard, wallet];
		const nextAnswer = Math.min(...[...rest, ...checks].map((s) => s.answered!));
		expect([...rest, ...checks].every((s) => s.sent > opening.answered!)).toBe(true);
		expect(rest.every((s) => s.sent < nextAnswer)).toBe(true);
		expect(checks.filter((s) => s.sent < nextAnswer).length).toBeGreaterThanOrEqual(20);
		const creates = spans.filter((s) => s.method === 'POST');
		const lastRead = Math.max(...reads.map((s) => s.answered!));
		expect(creates.every((s) => s.sent > lastRead)).toBe(true);
		expect(run!.posts).toBe(10);
		expectEveryRowHeldOnce(base, tableInBlocks(1000, 100));
	});

	it('a base refused for its whole-sheet orders leaves the wallet to the other campaigns of the run', async () => {
		const mixed = uniqueReference('mixed-wallet');
		const clean = uniqueReference('clean-wallet');
		// 6,000 NGN: 4,000 left after the whole sheet, enough for the clean campaign's 3,000 NGN,
		// not for both (23,000 NGN).
		sandbox.configure({ initialBalanceNgn: 6000 });
		sandbox.reset();
		try {
			await runCampaign(mixed, table(2));
			const rows = [
				...table(20).map((row) => ({ ...row, base: mixed })),
				...table(3, 100).map((row) => ({ ...row, base: clean })),
			];
			const run = await runCampaign(
				'={{ $json.base }}',
				rows,
				{},
				{ ...byId, continueOnFail: true },
			);
			const errors = run.json.map((row) => String(row.error ?? ''));
			expect(errors.slice(0, 20).every((e) => /orders made without Row ID/.test(e))).toBe(true);
			expect(errors.slice(20)).toEqual(['', '', '']);
			expectEveryRowHeldOnce(clean, table(3, 100));
		} finally {
			sandbox.configure({ initialBalanceNgn: 50_000_000 });
			sandbox.reset();
		}
	});
});

describe('what a paged campaign refuses before sending anything', () => {
	it.each([
		['text', 'abc'],
		['a negative number', -1],
		['a fraction', 1.5],
		['nothing', ''],
	])('a Row ID that is %s names the item and the field', async (_, id) => {
		const base = uniqueReference('bad-id');
		const rows = table(3).map((row, i) => (i === 1 ? { ...row, id } : row));
		const before = apiRequests(sandbox).length;
		const run = await runCampaign(base, rows, {}, byId);
		expect(String(run.error?.message)).toMatch(
			/^Item 1: invalid "rowId": Row ID must be a whole number/,
		);
		expect(apiRequests(sandbox).length).toBe(before);
	});

	it('the same Row ID on two rows names both items', async () => {
		const base = uniqueReference('dup-id');
		const rows = table(3).map((row, i) => (i === 2 ? { ...row, id: 1 } : row));
		const before = apiRequests(sandbox).length;
		const run = await runCampaign(base, rows, {}, byId);
		expect(String(run.error?.message)).toBe('Item 2: invalid "rowId": Row ID 1 is also item 0\'s');
		expect(apiRequests(sandbox).length).toBe(before);
	});

	it('a base with whole-sheet orders is not bought again by Row ID', async () => {
		const base = uniqueReference('mixed');
		const rows = table(5);
		await runCampaign(base, rows);
		const before = apiRequests(sandbox, 'POST').length;
		const run = await runCampaign(base, rows, {}, { ...byId, continueOnFail: true });
		expect(apiRequests(sandbox, 'POST').length).toBe(before);
		expect(run.json.every((row) => /orders made without Row ID/.test(String(row.error)))).toBe(
			true,
		);
		expectEveryRowHeldOnce(base, rows);
	});
});
