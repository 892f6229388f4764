/**
 * VoucherService as an AI-agent tool, called the way n8n calls it: n8n-core builds the
 * tool (schema from the $fromAI() placeholders, description from the node), the agent
 * invokes it with arguments, and the node runs with those arguments as its input item,
 * where $fromAI() reads them.
 */
import { describe, expect, it } from 'vitest';
import type { INode, INodeParameters } from 'n8n-workflow';
import { createNodeAsTool } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';

import { packageNodeTypeName, workflowNode } from '../support/runWorkflow.mts';
import {
	apiRequests,
	runVoucher,
	uniqueReference,
	voucherNode,
	sandboxForThisFile,
} from './voucherNodeRunner.mts';
import type { CredentialOverrides } from './voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

function agentTool(
	name: string,
	parameters: INodeParameters,
	credential: CredentialOverrides = {},
) {
	const node: INode = workflowNode(name, packageNodeTypeName(voucherNode), parameters);
	return createNodeAsTool({
		node,
		nodeType: voucherNode,
		handleToolInvocation: async (toolArgs) => {
			const result = await runVoucher(sandbox, parameters, { items: [toolArgs], credential });
			if (result.error) throw new Error(result.error.message);
			return result.json;
		},
	}).response;
}

describe('read operations work as tools with no extra setup', () => {
	it('Wallet → Get Many needs no arguments and describes itself', async () => {
		const tool = agentTool('Get wallets', { resource: 'wallet', operation: 'getAll' });
		expect(tool.description).toMatch(/wallet/i);
		expect(Object.keys(tool.schema.shape)).toEqual([]);
		const wallets = (await tool.invoke({})) as Array<{ currency: string }>;
		expect(wallets.map((wallet) => wallet.currency)).toContain('NGN');
	});

	it('Voucher → Get Status takes the code from the agent', async () => {
		const tool = agentTool('Check voucher', {
			resource: 'voucher',
			operation: 'getStatus',
			voucherCode: "={{ $fromAI('voucherCode', 'The voucher code to check', 'string') }}",
		});
		expect(Object.keys(tool.schema.shape)).toEqual(['voucherCode']);
		const [status] = (await tool.invoke({ voucherCode: 'SBX-USED-0001' })) as Array<{
			status: string;
		}>;
		expect(status.status).toBe('USED');
		expect(apiRequests(sandbox)[0].path).toBe('/v2/vouchers/status/SBX-USED-0001');
	});

	it('Order → Get takes the reference from the agent and explains a miss', async () => {
		const tool = agentTool('Find order', {
			resource: 'order',
			operation: 'get',
			reference: "={{ $fromAI('reference', 'The order reference', 'string') }}",
		});
		await expect(tool.invoke({ reference: 'nothing-here' })).rejects.toThrow(
			'Order nothing-here not found',
		);
	});
});

describe('creates called by an agent obey the spending guard', () => {
	const createParams: INodeParameters = {
		resource: 'order',
		operation: 'create',
		reference: "={{ $fromAI('reference', 'A new unique order reference', 'string') }}",
		productCode: 'VCH-INSTANT',
		amount: "={{ $fromAI('amount', 'Naira per voucher', 'number') }}",
		quantity: "={{ $fromAI('quantity', 'How many vouchers', 'number') }}",
	};

	it('exposes typed arguments and creates an order within the limit', async () => {
		const tool = agentTool('Buy vouchers', createParams, { maxOrderTotal: 5000 });
		expect(Object.keys(tool.schema.shape).sort()).toEqual(['amount', 'quantity', 'reference']);
		const reference = uniqueReference('agent');
		const [order] = (await tool.invoke({ reference, amount: 2500, quantity: 2 })) as Array<{
			status: string;
		}>;
		expect(order.status).toBe('COMPLETED');
		expect(apiRequests(sandbox, 'POST')).toHaveLength(1);
	});

	it('refuses an order above the credential limit and sends nothing', async () => {
		const tool = agentTool('Buy vouchers', createParams, { maxOrderTotal: 5000 });
		await expect(
			tool.invoke({ reference: uniqueReference('agent'), amount: 2500.01, quantity: 2 }),
		).rejects.toThrow(/above the maximum order total of NGN 5,000\.00/);
		expect(apiRequests(sandbox)).toHaveLength(0);
	});
});
