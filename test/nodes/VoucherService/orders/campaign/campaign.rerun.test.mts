/**
 * Campaign re-runs after the sheet or the settings changed: no recipient is bought a voucher
 * twice, whatever changes between runs. Every case is judged from the sandbox's own books
 * (see campaignRuns.mts).
 */
import { describe, expect, it, vi } from 'vitest';
import type { IDataObject } from 'n8n-workflow';

import { personKey } from '../../campaignBooks.mts';
import { campaignSandboxForThisFile, DISCOVERY_MISSES, sheet } from '../../campaignRuns.mts';
import { apiRequests, uniqueReference } from '../../voucherNodeRunner.mts';

const {
	sandbox,
	runCampaign,
	campaignOrders,
	vouchersPerRecipient,
	expectEveryRowHeldOnce,
	expectOneDebitPerOrder,
	recipientsPosted,
} = await campaignSandboxForThisFile();

describe('a campaign run again after the sheet or the settings changed', () => {
	it('same sheet: nothing bought; discovery costs highest number + 32 look-ups', async () => {
		const base = uniqueReference('same');
		const rows = sheet(30);
		const first = await runCampaign(base, rows, { recipientsPerOrder: 10 });
		expect(first.error).toBeUndefined();
		expect(first.gets).toBe(DISCOVERY_MISSES);
		expect(first.posts).toBe(3); // 10 of 1,000 NGN in one order, 20 of 2,000 in two
		const again = await runCampaign(base, rows, { recipientsPerOrder: 10 });
		expect(again.posts).toBe(0);
		expect(again.gets).toBe(3 + DISCOVERY_MISSES);
		expect(again.json.every((row) => row.alreadyExisted === true)).toBe(true);
		again.json.forEach((row, i) => {
			expect(row.email).toBe(rows[i].email);
			expect(row.voucher).toMatchObject({ status: 'DELIVERED', value: rows[i].amount });
		});
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it("the issue's three runs (30 rows at 10 per order, then 7, then 15 rows appended): each person once", async () => {
		const base = uniqueReference('issue');
		const rows = sheet(45);
		await runCampaign(base, rows.slice(0, 30), { recipientsPerOrder: 10 });
		const second = await runCampaign(base, rows.slice(0, 30), { recipientsPerOrder: 7 });
		expect(second.posts).toBe(0);
		const before = apiRequests(sandbox, 'POST').length;
		const third = await runCampaign(base, rows, { recipientsPerOrder: 7 });
		expect(third.error).toBeUndefined();
		expect(recipientsPosted(before).sort()).toEqual(
			rows
				.slice(30)
				.map((r) => r.email)
				.sort(),
		);
		expect(third.json.filter((row) => row.alreadyExisted === false)).toHaveLength(15);
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('rows with different base references are separate campaigns, each found and numbered on its own', async () => {
		const [a, b] = [uniqueReference('camp-a'), uniqueReference('camp-b')];
		const rows = sheet(8).map((row, i) => ({ ...row, amount: 1000, base: i % 2 ? b : a }));
		const extra = { reference: '={{ $json.base }}' };
		const first = await runCampaign(a, rows, {}, { extra });
		expect(first.gets).toBe(2 * DISCOVERY_MISSES);
		expect(apiRequests(sandbox, 'POST').map((p) => (p.body as IDataObject).reference)).toEqual([
			`${a}-1`,
			`${b}-1`,
		]);
		const again = await runCampaign(a, rows, {}, { extra });
		expect(again.posts).toBe(0);
		expect(again.gets).toBe(2 * (1 + DISCOVERY_MISSES));
		expectEveryRowHeldOnce(
			a,
			rows.filter((row) => row.base === a),
		);
		expectEveryRowHeldOnce(
			b,
			rows.filter((row) => row.base === b),
		);
	});

	it('Recipients per Order changed: nothing bought', async () => {
		const base = uniqueReference('per');
		const rows = sheet(30);
		await runCampaign(base, rows, { recipientsPerOrder: 10 });
		const again = await runCampaign(base, rows, { recipientsPerOrder: 3 });
		expect(again.posts).toBe(0);
		expectEveryRowHeldOnce(base, rows);
	});

	it('rows appended to the first group: only the new rows are bought, in orders after the last one', async () => {
		const base = uniqueReference('append');
		const rows = sheet(30);
		await runCampaign(base, rows, { recipientsPerOrder: 10 });
		const added = sheet(4, 'added').map((row) => ({ ...row, amount: 1000 }));
		const grown = [...rows.slice(0, 1), ...added, ...rows.slice(1)];
		const before = apiRequests(sandbox, 'POST').length;
		const again = await runCampaign(base, grown, { recipientsPerOrder: 10 });
		expect(recipientsPosted(before).sort()).toEqual(added.map((r) => r.email).sort());
		expect(
			apiRequests(sandbox, 'POST')
				.slice(before)
				.map((p) => (p.body as IDataObject).reference),
		).toEqual([`${base}-4`]);
		expect(again.json.slice(1, 5).map((row) => row.reference)).toEqual(Array(4).fill(`${base}-4`));
		expectEveryRowHeldOnce(base, grown);
		expectOneDebitPerOrder(base);
	});

	it('a new amount group inserted at the top: only its rows are bought', async () => {
		const base = uniqueReference('top');
		const rows = sheet(30);
		await runCampaign(base, rows, { recipientsPerOrder: 10 });
		const top = sheet(5, 'top').map((row) => ({ ...row, amount: 500 }));
		const before = apiRequests(sandbox, 'POST').length;
		await runCampaign(base, [...top, ...rows], { recipientsPerOrder: 10 });
		expect(recipientsPosted(before).sort()).toEqual(top.map((r) => r.email).sort());
		expectEveryRowHeldOnce(base, [...top, ...rows]);
		expectOneDebitPerOrder(base);
	});

	it('rows reordered: nothing bought, and each row still gets its own voucher', async () => {
		const base = uniqueReference('order');
		const rows = sheet(30);
		await runCampaign(base, rows, { recipientsPerOrder: 10 });
		const shuffled = [...rows].reverse();
		const again = await runCampaign(base, shuffled, { recipientsPerOrder: 10 });
		expect(again.posts).toBe(0);
		again.json.forEach((row, i) => {
			expect(row).toMatchObject({ email: shuffled[i].email, alreadyExisted: true });
			expect((row.voucher as IDataObject).value).toBe(shuffled[i].amount);
		});
		expect(new Set(again.json.map((row) => (row.voucher as IDataObject).serial)).size).toBe(30);
	});

	it('rows removed: nothing bought, and the removed recipients keep their vouchers', async () => {
		const base = uniqueReference('removed');
		const rows = sheet(30);
		await runCampaign(base, rows, { recipientsPerOrder: 10 });
		const again = await runCampaign(
			base,
			rows.filter((_, i) => i % 4 !== 0),
			{ recipientsPerOrder: 10 },
		);
		expect(again.posts).toBe(0);
		expectEveryRowHeldOnce(base, rows);
	});

	it('a person listed twice on purpose gets exactly two vouchers, also after re-runs', async () => {
		const base = uniqueReference('twice');
		const rows = sheet(6);
		const ada = { firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com', amount: 2000 };
		// The second listing differs only in case and spaces: the same person.
		const twice = [ada, ...rows, { ...ada, email: ' ADA@Example.com ', firstName: 'ada ' }];
		await runCampaign(base, twice, { recipientsPerOrder: 4 });
		for (const perOrder of [4, 2, 100]) {
			const again = await runCampaign(base, twice, { recipientsPerOrder: perOrder });
			expect(again.posts).toBe(0);
		}
		expect(vouchersPerRecipient(base).get(personKey(ada))).toEqual([2000, 2000]);
		expectEveryRowHeldOnce(base, [ada, ...rows, ada]);
	});

	it('an earlier run left a gap (refused orders between created ones): found across it, nothing bought twice', async () => {
		const base = uniqueReference('gap');
		// Five groups, one order each, all in flight at once; groups 2-4 use a template the
		// service refuses, so orders 2, 3 and 4 do not exist while 1 and 5 do.
		const rows = sheet(10).map((row, i) => ({
			...row,
			amount: 100 + Math.floor(i / 2),
			template: 1,
		}));
		const broken = rows.map((row, i) => (i >= 2 && i < 8 ? { ...row, template: 99 } : row));
		const extra = { templateId: '={{ $json.template }}' };
		// All five in flight at once on any machine: the pacing's clock stands still, so no answer
		// looks slow and it sends five at once; the sandbox holds them until all five have come.
		vi.useFakeTimers({ toFake: ['Date'] });
		sandbox.configure({ createBarrier: { creates: 5 } });
		let first;
		try {
			first = await runCampaign(base, broken, { concurrency: 5 }, { extra, continueOnFail: true });
		} finally {
			vi.useRealTimers();
			sandbox.configure({ createBarrier: null });
		}
		expect(first.posts).toBe(5);
		expect(
			campaignOrders(base)
				.map((o) => o.reference)
				.sort(),
		).toEqual([`${base}-1`, `${base}-5`]);
		expect(first.json.filter((row) => row.error)).toHaveLength(6);

		const before = apiRequests(sandbox, 'POST').length;
		const fixed = await runCampaign(base, rows, { concurrency: 5 }, { extra });
		expect(fixed.error).toBeUndefined();
		expect(recipientsPosted(before).sort()).toEqual(
			rows
				.slice(2, 8)
				.map((r) => r.email)
				.sort(),
		);
		expect(fixed.json[9]).toMatchObject({ reference: `${base}-5`, alreadyExisted: true });
		expect(fixed.json[2].reference).toMatch(new RegExp(`^${base}-(6|7|8)$`));
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('the same person with another amount: that row is refused, naming the item and a new base reference', async () => {
		const base = uniqueReference('value');
		const rows = sheet(3);
		await runCampaign(base, rows);
		const changed = [...rows, { ...rows[1], amount: 5000 }];
		const strict = await runCampaign(base, changed);
		expect(strict.posts).toBe(0);
		expect(strict.error?.message).toMatch(
			/^Item 3: p1@example.com already has a voucher of NGN 2,000\.00/,
		);
		expect(strict.error?.description).toMatch(/use a new base reference/);

		const lenient = await runCampaign(
			base,
			[...changed, ...sheet(1, 'new')],
			{},
			{ continueOnFail: true },
		);
		expect(String(lenient.json[3].error)).toMatch(/^Item 3: p1@example.com already has a voucher/);
		expect(lenient.main[3].pairedItem).toEqual({ item: 3 });
		expect(lenient.json[4]).toMatchObject({ email: 'new0@example.com', alreadyExisted: false });
		expect(vouchersPerRecipient(base).get(personKey(rows[1]))).toEqual([2000]);
	});

	it('a fault run (30% 5xx, resets and commit-then-drop) after a sheet change: 0 double vouchers', async () => {
		const base = uniqueReference('faults');
		const rows = sheet(120);
		await runCampaign(base, rows.slice(0, 60), { recipientsPerOrder: 5 });
		const changed = [...rows.slice(60, 90), ...[...rows.slice(0, 60)].reverse(), ...rows.slice(90)];
		sandbox.configure({
			faults: {
				errorRate: 0.1,
				resetRate: 0.1,
				commitThenDropRate: 0.1,
				seed: 99,
				paths: ['/v2/orders'],
			},
		});
		try {
			await runCampaign(
				base,
				changed,
				{ recipientsPerOrder: 3, concurrency: 8 },
				{ continueOnFail: true },
			);
			const faults = sandbox.state.requests.filter((r) => r.fault);
			expect(faults.length).toBeGreaterThan(5);
			expect(faults.some((r) => r.method === 'POST')).toBe(true);
		} finally {
			sandbox.configure({ faults: {} });
		}
		// Whatever the faults stopped, a plain re-run finishes the job.
		const finish = await runCampaign(base, changed, { recipientsPerOrder: 4 });
		expect(finish.error).toBeUndefined();
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	}, 120_000);
});

describe("the README's promise: no row is bought twice, whatever you change between runs", () => {
	it('correcting the spelling of a name does not send a second voucher to the same mailbox', async () => {
		const base = uniqueReference('rename');
		const row = {
			firstName: 'Jon',
			lastName: 'Smith',
			email: 'jon.smith@example.com',
			amount: 2000,
		};
		await runCampaign(base, [row]);
		const fixed = await runCampaign(base, [{ ...row, firstName: 'John' }]);
		// Today: a second 2,000 NGN voucher is bought and mailed to jon.smith@example.com.
		expect(fixed.posts).toBe(0);
		const toMailbox = campaignOrders(base).flatMap((order) =>
			order.vouchers.filter((voucher) => voucher.email === row.email),
		);
		expect(toMailbox).toHaveLength(1);
	});
});

describe('a corrected name, and a shared mailbox', () => {
	it('refuses the corrected name, naming the one the earlier run used', async () => {
		const base = uniqueReference('rename-msg');
		const row = { firstName: 'Jon', lastName: 'Smith', email: 'JON@example.com', amount: 1000 };
		await runCampaign(base, [row]);
		const fixed = await runCampaign(base, [
			{ ...row, firstName: 'John', email: ' jon@example.com' },
		]);
		expect(fixed.posts).toBe(0);
		expect(fixed.error?.message).toMatch(
			/^Item 0: jon@example\.com already has a voucher in campaign ".*" under the name "Jon Smith"/,
		);
		expect(fixed.error?.description).toMatch(/change it back to "Jon Smith"/);
		// Changed back, the row matches the voucher bought the first time.
		const back = await runCampaign(base, [row]);
		expect(back.posts).toBe(0);
		expect(back.json[0]).toMatchObject({ alreadyExisted: true, firstName: 'Jon' });
	});

	it('buys for a second person at a mailbox whose voucher another row of the sheet holds', async () => {
		const base = uniqueReference('shared');
		const ann = { firstName: 'Ann', lastName: 'Lee', email: 'family@example.com', amount: 1000 };
		const bob = { ...ann, firstName: 'Bob' };
		await runCampaign(base, [ann]);
		// Bob's row comes first: Ann's row still claims her voucher before Bob's row is decided.
		const run = await runCampaign(base, [bob, ann]);
		expect(run.error).toBeUndefined();
		expect(run.posts).toBe(1);
		expect(run.json.map((item) => item.alreadyExisted)).toEqual([false, true]);
		const again = await runCampaign(base, [ann, bob]);
		expect(again.posts).toBe(0);
		expectEveryRowHeldOnce(base, [ann, bob]);
	});
});

describe('the sheet in one run', () => {
	it('a person listed twice across two batches (Loop Over Items) gets one voucher: each batch is a run', async () => {
		const base = uniqueReference('batches');
		const [person] = sheet(1);
		await runCampaign(base, [person]);
		const second = await runCampaign(base, [person]);
		expect(second.posts).toBe(0);
		expect(vouchersPerRecipient(base).get(personKey(person))).toEqual([person.amount]);
		// In one run the same two rows are two vouchers.
		const whole = uniqueReference('whole');
		await runCampaign(whole, [person, person]);
		expect(vouchersPerRecipient(whole).get(personKey(person))).toHaveLength(2);
	});
});
