/**
 * VoucherService as an AI-agent tool, called the way n8n calls it: n8n-core builds the
 * tool (schema from the $fromAI() placeholders, description from the node), the agent
 * invokes it with arguments, and the node runs with those arguments as its input item,
 * where $fromAI() reads them.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { createNodeAsTool } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';

import { packageNodeTypeName, workflowNode } from '../../../../n8n-core-runner/runWorkflow.mts';
import { issuedSecrets, leakedSecrets } from '../../../support/secrets.mts';
import {
	apiRequests,
	runVoucher,
	uniqueReference,
	voucherNode,
	sandboxForThisFile,
} from '../voucherNodeRunner.mts';
import type { CredentialOverrides } from '../voucherNodeRunner.mts';

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
			const result = await runVoucher(sandbox, parameters, {
				items: [toolArgs],
				credential,
				asTool: true,
			});
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

describe("an agent is not handed the vouchers' codes and PINs", () => {
	const fromAI = (name: string, type: string) =>
		`={{ $fromAI('${name}', 'The ${name}', '${type}') }}`;
	const buy = (extra: INodeParameters = {}): INodeParameters => ({
		resource: 'order',
		operation: 'create',
		reference: fromAI('reference', 'string'),
		productCode: 'VCH-INSTANT',
		amount: 1000,
		quantity: 2,
		additionalFields: { pin: '7391' },
		...extra,
	});
	const serialsOf = (reference: string) =>
		sandbox.state.orders.get(reference)!.vouchers.map((voucher) => voucher.serial);

	it('Create as a tool returns the order, serials and values, and withholds codes and PINs', async () => {
		const reference = uniqueReference('agent-buy');
		const [order] = (await agentTool('Buy vouchers', buy()).invoke({ reference })) as IDataObject[];
		expect(leakedSecrets(order, issuedSecrets(sandbox, [reference]))).toEqual([]);
		expect(order).toMatchObject({ reference, status: 'COMPLETED', codesWithheld: true });
		expect(order.codesNotice).toMatch(/withheld.*Order → Get, reference agent-buy-/s);
		const vouchers = order.vouchers as IDataObject[];
		expect(vouchers.map((voucher) => voucher.serial)).toEqual(serialsOf(reference));
		expect(vouchers.map((voucher) => voucher.value)).toEqual([1000, 1000]);
		for (const voucher of vouchers) expect(Object.keys(voucher)).not.toContain('pin');
	});

	it('one item per voucher withholds them from every item', async () => {
		const reference = uniqueReference('agent-each');
		const items = (await agentTool('Buy vouchers', buy({ outputMode: 'voucher' })).invoke({
			reference,
		})) as IDataObject[];
		expect(items).toHaveLength(2);
		expect(leakedSecrets(items, issuedSecrets(sandbox, [reference]))).toEqual([]);
		expect(items.map((item) => item.serial)).toEqual(serialsOf(reference));
		for (const item of items) expect(item).toMatchObject({ codesWithheld: true, value: 1000 });
	});

	it('Order → Get and Create for Recipients as tools withhold them too', async () => {
		const reference = uniqueReference('agent-read');
		await runVoucher(sandbox, { ...buy(), reference });
		const [read] = (await agentTool('Find order', {
			resource: 'order',
			operation: 'get',
			reference: fromAI('reference', 'string'),
		}).invoke({ reference })) as IDataObject[];
		expect(leakedSecrets(read, issuedSecrets(sandbox, [reference]))).toEqual([]);
		expect(read).toMatchObject({ reference, codesWithheld: true });
		expect((read.vouchers as IDataObject[]).map((voucher) => voucher.serial)).toEqual(
			serialsOf(reference),
		);

		const gift = uniqueReference('agent-gift');
		const send = agentTool('Send vouchers', {
			resource: 'order',
			operation: 'createForRecipients',
			reference: fromAI('reference', 'string'),
			productCode: 'VCH-INSTANT',
			amount: 500,
			templateId: 1,
			recipientsSource: 'manual',
			recipients: {
				recipient: [{ firstName: 'Ada', lastName: 'Obi', email: fromAI('email', 'string') }],
			},
		});
		expect(Object.keys(send.schema.shape).sort()).toEqual(['email', 'reference']);
		const [delivered] = (await send.invoke({
			reference: gift,
			email: 'ada@example.com',
		})) as IDataObject[];
		expect(apiRequests(sandbox, 'POST').at(-1)?.body).toMatchObject({
			recipients: [{ email: 'ada@example.com' }],
		});
		expect(leakedSecrets(delivered, issuedSecrets(sandbox, [gift]))).toEqual([]);
		expect(delivered).toMatchObject({ reference: gift, codesWithheld: true });
		expect((delivered.vouchers as IDataObject[])[0]).not.toHaveProperty('code');
	});

	it('with "Give Codes to the AI Agent" on, the agent gets them as before', async () => {
		const reference = uniqueReference('agent-opt-in');
		const [order] = (await agentTool('Buy vouchers', buy({ giveCodesToAgent: true })).invoke({
			reference,
		})) as IDataObject[];
		const secrets = issuedSecrets(sandbox, [reference]);
		expect(leakedSecrets(order, secrets)).toEqual(secrets);
		expect(order).not.toHaveProperty('codesWithheld');
	});

	it('outside tool use nothing changes', async () => {
		const reference = uniqueReference('workflow');
		const { json } = await runVoucher(sandbox, { ...buy(), reference });
		const secrets = issuedSecrets(sandbox, [reference]);
		expect(leakedSecrets(json, secrets)).toEqual(secrets);
		expect(json[0]).not.toHaveProperty('codesWithheld');
	});

	it('a dry run as a tool still works on an n8n without addExecutionHints (before about 1.119)', async () => {
		const reference = uniqueReference('agent-dry');
		const { json, error } = await runVoucher(
			sandbox,
			{ ...buy({ options: { dryRun: true } }), reference },
			{ asTool: true, withoutExecutionHints: true },
		);
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({ dryRun: true, wouldBuy: true });
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});
});
