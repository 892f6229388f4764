/**
 * A look-up's 404 means "no such order" only when it comes from the order route: judged from
 * the sandbox's own books, with a gateway in front that answers some paths 404 itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { INodeParameters } from 'n8n-workflow';

import { DIALECTS } from '../../../../sandbox/dialect.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

afterEach(() =>
	sandbox.configure({
		dialect: {},
		gatewayNotFound: [],
		faults: {},
		acceptDuplicateReferences: false,
	}),
);

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
	['the spec reading (04)', DIALECTS.spec],
	['a bare 404 for an unknown order', DIALECTS.unknownOrder404Text],
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

	it('Order → Get says it could not look the order up, not that it is missing', async () => {
		sandbox.configure({ dialect, gatewayNotFound: [GATEWAY_REFUSES] });
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
	});
});

describe('a bare 404 from the order route', () => {
	it('is "not found" when a Reference that surely reaches the route gets the same answer, learnt once per run', async () => {
		sandbox.configure({ dialect: DIALECTS.unknownOrder404Text });
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
		expect(probes.map((request) => request.path)).toEqual([
			'/v2/transactions/wallets',
			expect.stringMatching(/^\/v2\/orders\/n8n-probe-[0-9a-f-]{36}$/),
		]);
	});
});
