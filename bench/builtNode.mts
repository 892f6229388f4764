// The built package (dist/, or BENCH_DIST) run in-process by n8n-core against a sandbox:
// what bench:pacing and bench:ratelimit time. Modules of dist/ are loaded through one
// require, so a benchmark that changes one (the pacing's start) changes what the node runs.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

import { runNode } from '../n8n-core-runner/runWorkflow.mts';
import type { Sandbox } from '../sandbox/server.mts';

const DIST = resolve(process.env.BENCH_DIST ?? 'dist');
const require = createRequire(import.meta.url);

/** A module of the built package, by its path under dist/. */
export function fromDist(path: string): ReturnType<NodeRequire> {
	return require(`${DIST}/${path}`);
}

const { VoucherService } = fromDist('nodes/VoucherService/VoucherService.node.js');
const { VoucherServiceApi } = fromDist('credentials/VoucherServiceApi.credentials.js');

/** Comma-separated numbers from the environment: none if set empty (skipped), or `fallback`. */
export const envList = (value: string | undefined, fallback: number[]) =>
	value === undefined ? fallback : value.split(',').filter(Boolean).map(Number);

/**
 * Order → Create with every field mapped from the item: `rows` orders of 1,000 NGN under
 * the References `<prefix>-0`, `<prefix>-1`, …; the run and its wall time. `lookUp`: with
 * If Reference Exists → Fail, so each create follows a read of its reference.
 */
export async function createOrders(
	sandbox: Sandbox,
	prefix: string,
	rows: number,
	continueOnFail: boolean,
	lookUp = false,
) {
	const items = Array.from({ length: rows }, (_, i) => ({
		reference: `${prefix}-${i}`,
		productCode: 'VCH-INSTANT',
		amount: '1000',
		quantity: '1',
	}));
	const started = performance.now();
	const result = await runNode({
		nodeType: new VoucherService(),
		credentialTypes: [new VoucherServiceApi()],
		credentials: { voucherServiceApi: { baseUrl: sandbox.url, ...sandbox.keys } },
		parameters: {
			resource: 'order',
			operation: 'create',
			reference: '={{ $json.reference }}',
			productCode: '={{ $json.productCode }}',
			amount: '={{ $json.amount }}',
			quantity: '={{ $json.quantity }}',
			...(lookUp ? { options: { ifReferenceExists: 'fail' } } : {}),
		},
		inputItems: items,
		continueOnFail,
	});
	return { result, wallMs: performance.now() - started };
}
