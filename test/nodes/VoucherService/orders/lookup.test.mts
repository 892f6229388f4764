/**
 * A look-up's 404 means "no such order" only when it comes from the order route: judged from
 * the sandbox's own books, with a gateway in front that answers some paths 404 itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { INodeParameters } from 'n8n-workflow';

import { DIALECTS } from '../../../../sandbox/dialect.mts';
import type { Dialect } from '../../../../sandbox/dialect.mts';
import { campaignSandboxForThisFile, sheet } from '../campaignRuns.mts';
import { apiRequests, runVoucher, uniqueReference } from '../voucherNodeRunner.mts';

const { sandbox, runCampaign, expectEveryRowHeldOnce, expectOneDebitPerOrder } =
	await campaignSandboxForThisFile();

afterEach(() =>
	sandbox.configure({
		dialect: {},
		gatewayNotFound: [],
		gatewayNotFoundBody: 'html',
		faults: {},
		acceptDuplicateReferences: false,
	}),
);

/** The readings of an unknown order as a 404 without `04`, each a service's own "not found". */
const BARE_404S = [
	['text', DIALECTS.unknownOrder404Text],
	['problem+json with a new traceId each answer (ASP.NET Core)', DIALECTS.unknownOrder404Problem],
	[
		'a new timestamp, the path and the Reference echoed (Spring Boot)',
		DIALECTS.unknownOrder404Spring,
	],
] as Array<[string, Partial<Dialect>]>;

const debitsOf = (reference: string) =>
	sandbox.state.ledger.filter((entry) => entry.kind === 'debit' && entry.reference === reference);

/** One recipient, so the create's path is /v2/orders/recipients: its faults leave the look-ups alone. */
const forOneRecipient = (reference: string): INodeParameters => ({
	resource: 'order',
	operation: 'createForRecipients',
	recipientsSource: 'manual',
	reference,
	productCode: 'VCH-INSTANT',
	amount: 500,
	templateId: 1,
	recipients: { recipient: [{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' }] },
});

/** A gateway that refuses an encoded percent sign with its own 404 page, as IIS does. */
const GATEWAY_REFUSES = '%25';

describe.each([
	['the spec reading (04)', DIALECTS.spec] as [string, Partial<Dialect>],
	...BARE_404S,
])('a gateway 404 on the look-up, under %s', (_, dialect) => {
	it('after a create that bought but got a 500: one order, and the outcome is unknown', async () => {
		sandbox.configure({
			dialect,
			gatewayNotFound: [GATEWAY_REFUSES],
			acceptDuplicateReferences: true,
			faults: { commitThen500Rate: 1, paths: ['/v2/orders/recipients'] },
		});
		const reference = uniqueReference('50%-off');
		const run = await runVoucher(sandbox, forOneRecipient(reference), { continueOnFail: true });
		expect(debitsOf(reference)).toHaveLength(1);
		expect(run.json[0].error).toBe(`Item 0: whether order "${reference}" was bought is unknown`);
		expect(String(run.main[0].error?.description)).toMatch(
			/could not be looked up: HTTP 404 without the service's answer for an unknown order/,
		);
	});

	it.each(['html', 'json'] as const)(
		'Order → Get says it could not look the order up, not that it is missing (gateway %s)',
		async (gatewayNotFoundBody) => {
			sandbox.configure({ dialect, gatewayNotFound: [GATEWAY_REFUSES], gatewayNotFoundBody });
			const reference = uniqueReference('50%-get');
			const run = await runVoucher(
				sandbox,
				{ resource: 'order', operation: 'get', reference },
				{ continueOnFail: true },
			);
			expect(run.json[0].error).toBe(
				`Item 0: order "${reference}" could not be looked up: HTTP 404 without the service's answer for an unknown order`,
			);
			expect(String(run.main[0].error?.description)).toMatch(/does not say the order is missing/);
		},
	);
});

describe.each(BARE_404S)('a bare 404 from the order route, as %s', (_, dialect) => {
	it('is "not found" when two References that surely reach the route get the same answer, learnt once per run', async () => {
		sandbox.configure({ dialect });
		const references = [uniqueReference('none-a'), uniqueReference('none-b')];
		const run = await runVoucher(
			sandbox,
			{ resource: 'order', operation: 'get', reference: '={{ $json.reference }}' },
			{ items: references.map((reference) => ({ reference })), continueOnFail: true },
		);
		expect(run.json.map((json) => json.error)).toEqual(
			references.map((reference) => `Order ${reference} not found`),
		);
		const probes = apiRequests(sandbox, 'GET').filter(
			(request) => !references.some((reference) => request.path.endsWith(reference)),
		);
		const probe = expect.stringMatching(/^\/v2\/orders\/n8n-probe-[0-9a-f-]{36}$/);
		expect(probes.map((request) => request.path)).toEqual([
			'/v2/transactions/wallets',
			probe,
			probe,
		]);
		expect(new Set(probes.map((request) => request.path)).size).toBe(3);
	});

	it('is not "not found" where the wallets get a 404 too: the base URL misses the service', async () => {
		sandbox.configure({ dialect });
		const reference = uniqueReference('url');
		const get = await runVoucher(
			sandbox,
			{ resource: 'order', operation: 'get', reference },
			{ credential: { baseUrl: `${sandbox.url}/api` } },
		);
		expect(get.error?.message).toBe(
			`Item 0: order "${reference}" could not be looked up: the base URL answers HTTP 404 to the wallets too`,
		);
	});

	it('a campaign from input items buys every row once, and its re-run buys nothing', async () => {
		sandbox.configure({ dialect });
		const base = uniqueReference('cmp404');
		const rows = sheet(6);
		const first = await runCampaign(base, rows);
		expect(first.error).toBeUndefined();
		expect(first.json.map((row) => row.alreadyExisted)).toEqual(Array(6).fill(false));
		expectEveryRowHeldOnce(base, rows);
		const again = await runCampaign(base, rows);
		expect(again.posts).toBe(0);
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});

	it('a create reset before the service saw it is looked up, found missing and sent again: bought once', async () => {
		// Seed 8 resets the first create, and lets the second through; look-ups are not drawn.
		sandbox.configure({
			dialect,
			faults: { resetRate: 0.5, seed: 8, paths: ['/v2/orders/recipients'] },
		});
		const reference = uniqueReference('reset');
		const run = await runVoucher(sandbox, forOneRecipient(reference));
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ reference, status: 'COMPLETED', alreadyExisted: false });
		const creates = apiRequests(sandbox, 'POST').map((request) => request.fault);
		expect(creates).toEqual(['reset', null]);
		expect(debitsOf(reference)).toHaveLength(1);
	});

	it('a campaign whose creates meet resets and dropped answers settles each by look-up', async () => {
		sandbox.configure({
			dialect,
			faults: {
				resetRate: 0.3,
				commitThenDropRate: 0.3,
				seed: 8,
				paths: ['/v2/orders/recipients'],
			},
		});
		const base = uniqueReference('cmprst');
		const rows = sheet(8);
		const run = await runCampaign(base, rows, { recipientsPerOrder: 1 });
		expect(run.error).toBeUndefined();
		const faults = apiRequests(sandbox, 'POST').map((request) => request.fault);
		expect(faults).toContain('reset');
		expect(faults).toContain('commitThenDrop');
		expectEveryRowHeldOnce(base, rows);
		expectOneDebitPerOrder(base);
	});
});
