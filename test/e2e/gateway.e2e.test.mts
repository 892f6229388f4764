// Behind a real gateway in a real n8n: nginx's limit_req (5 a second, burst 5, nodelay) in front
// of a sandbox that would buy a used Reference again, so a resend that bought twice shows.
// nginx refuses with its default: 503, an HTML page, no Retry-After. The rows' four fields are
// mapped by expression, as a user wires a sheet. Judged from n8n's output, the sandbox's ledger
// and nginx's access log (real-n8n/gateway.mts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { basicAuth } from '../../real-n8n/fixtures.mts';
import { startGateway, type Gateway, type GatewayRequest } from '../../real-n8n/gateway.mts';
import type { N8nRest } from '../../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../../sandbox/server.mts';
import { ownerClient, runActionOnRows, sandboxApiCredential } from './n8nUnderTest.mts';

/** About 20 s at 5 a second. */
const ROWS = 100;
const READS = 40;
const RATE = 5;
const BURST = 5;
// Generous: a timeout here guards against a hang, it measures nothing.
const RUN_TIMEOUT_MS = 240_000;

interface Row {
	reference: string;
	productCode: string;
	amount: number;
	quantity: number;
}

function sheet(prefix: string, count: number): Row[] {
	return Array.from({ length: count }, (_, i) => ({
		reference: `${prefix}-${i}`,
		productCode: 'VCH-INSTANT',
		amount: 1000 + 10 * i,
		quantity: 1 + (i % 3),
	}));
}

/** What share of the requests nginx refused, for the test's log (figures belong to benchmarks). */
function logRefusals(what: string, requests: GatewayRequest[]): number {
	const refused = requests.filter((r) => r.refused).length;
	const share = requests.length ? Math.round((100 * refused) / requests.length) : 0;
	console.log(`${what}: nginx refused ${refused} of ${requests.length} requests (${share} %)`);
	return refused;
}

describe(`behind nginx's limit_req (${RATE}/s, burst ${BURST}, refusing with 503) in n8n`, () => {
	let rest: N8nRest;
	let sandbox: Sandbox;
	let gateway: Gateway;
	let credential: { id: string; name: string };

	/** The node's items, and what nginx answered meanwhile. */
	async function runOnRows(rows: Row[], parameters: Record<string, unknown>) {
		const seen = gateway.requests().length;
		const { output } = await runActionOnRows(rest, credential, rows, parameters, RUN_TIMEOUT_MS);
		return { output, requests: gateway.requests().slice(seen) };
	}

	/** Every failed row's item and message, so that a failure shows how many and why. */
	const failures = (output: Array<Record<string, unknown>>) =>
		output.flatMap((item, i) => (item.error ? [`row ${i}: ${String(item.error)}`] : []));

	beforeAll(async () => {
		rest = await ownerClient();
		sandbox = await startSandbox({ port: 0, acceptDuplicateReferences: true });
		gateway = await startGateway({ upstream: sandbox.url, rate: RATE, burst: BURST });
		credential = await sandboxApiCredential(
			rest,
			{ url: gateway.url, keys: sandbox.keys },
			'Voucher Sandbox (e2e gateway)',
		);
	});
	afterAll(async () => {
		await gateway?.stop();
		await sandbox?.close();
	});

	it(
		`Order → Create on ${ROWS} rows: none failed, each Reference debited once, for its amount`,
		async () => {
			const rows = sheet(`e2e-gateway-${Date.now().toString(36)}`, ROWS);
			const { output, requests } = await runOnRows(rows, {
				resource: 'order',
				operation: 'create',
				reference: '={{ $json.reference }}',
				productCode: '={{ $json.productCode }}',
				amount: '={{ $json.amount }}',
				quantity: '={{ $json.quantity }}',
				options: {},
			});
			const refused = logRefusals(`${ROWS} creates`, requests);

			// Soft: a failing run reports failed rows, doubles and misses together.
			const failed = failures(output);
			expect.soft(failed, `${failed.length} of ${ROWS} rows failed`).toEqual([]);
			const debits = new Map<string, number[]>();
			for (const entry of sandbox.state.ledger) {
				if (entry.kind !== 'debit' || entry.reference === null) continue;
				debits.set(entry.reference, [...(debits.get(entry.reference) ?? []), entry.amountKobo]);
			}
			const references = (pick: (count: number) => boolean) =>
				rows.map((row) => row.reference).filter((ref) => pick(debits.get(ref)?.length ?? 0));
			expect
				.soft({ doubled: references((n) => n > 1), missing: references((n) => n === 0) })
				.toEqual({ doubled: [], missing: [] });
			for (const row of rows.filter((r) => debits.get(r.reference)?.length === 1)) {
				expect
					.soft(debits.get(row.reference), row.reference)
					.toEqual([-row.amount * 100 * row.quantity]);
			}
			// The path really had a gateway, and it refused.
			expect(refused).toBeGreaterThan(0);
		},
		RUN_TIMEOUT_MS + 30_000,
	);

	it(
		`Order → Get on ${READS} rows: every order read, none failed`,
		async () => {
			const rows = sheet(`e2e-gateway-read-${Date.now().toString(36)}`, READS);
			// Bought straight from the sandbox, past nginx: only the reads meet the gateway.
			for (const { reference, productCode, amount, quantity } of rows) {
				const res = await fetch(`${sandbox.url}/v2/orders`, {
					method: 'POST',
					headers: { authorization: basicAuth(sandbox.keys), 'content-type': 'application/json' },
					body: JSON.stringify({ reference, productCode, amount, quantity }),
				});
				expect(res.status, await res.text()).toBe(200);
			}
			const { output, requests } = await runOnRows(rows, {
				resource: 'order',
				operation: 'get',
				reference: '={{ $json.reference }}',
			});
			logRefusals(`${READS} reads`, requests);

			const failed = failures(output);
			expect(failed, `${failed.length} of ${READS} rows failed`).toEqual([]);
			expect(output.map((item) => item.reference)).toEqual(rows.map((row) => row.reference));
			// Each read went through nginx.
			const read = new Set(requests.filter((r) => r.status === 200).map((r) => r.path));
			expect(rows.filter((row) => !read.has(`/v2/orders/${row.reference}`))).toEqual([]);
		},
		RUN_TIMEOUT_MS + 30_000,
	);
});
