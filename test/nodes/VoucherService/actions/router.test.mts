/**
 * What the router throws when the node runs as an AI agent's tool. n8n-core wraps a tool's
 * error in `new NodeOperationError(node, error)`, which keeps a NodeOperationError as it is
 * but rebuilds anything else, and the rebuild replaces a message holding a Node.js error code
 * with n8n's own words. The Reference "preexisting-…" holds EEXIST.
 */
import { describe, expect, it } from 'vitest';

import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

/** A product the sandbox does not sell: the service refuses the create with code 05. */
const UNSOLD = 'VCH-NOPE';

const refusedCreate = (asTool: boolean) => {
	const reference = uniqueReference('preexisting');
	const run = runVoucher(
		sandbox,
		{
			resource: 'order',
			operation: 'create',
			reference,
			productCode: UNSOLD,
			amount: 1000,
			quantity: 1,
		},
		{ asTool },
	);
	return { reference, run };
};

describe('a refused create, thrown', () => {
	it('as a tool: a NodeOperationError naming the item and the Reference', async () => {
		const { reference, run } = await refusedCreate(true);
		const { error } = await run;
		// The class n8n-core hands on untouched; any other is rebuilt, and would read
		// "The file or directory already exists".
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toBe(
			`Item 0: the voucher service refused order "${reference}": Unknown product: ${UNSOLD} (code 05)`,
		);
		expect(apiRequests(sandbox, 'POST').filter((r) => r.path === '/v2/orders')).toHaveLength(1);
	});

	it('in a workflow: the API error, with its HTTP context, as before', async () => {
		const { reference, run } = await refusedCreate(false);
		const { error } = await run;
		expect(error?.name).toBe('VoucherApiError');
		expect(error?.message).toContain(`"${reference}"`);
	});
});
