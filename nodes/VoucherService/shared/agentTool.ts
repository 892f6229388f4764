import type { IDataObject, INode } from 'n8n-workflow';

/*
 * A voucher's code and PIN are bearer value: whoever reads them can spend the voucher.
 * An AI agent sends every tool result to its model provider and may repeat it in its
 * answer, so a node run as a tool keeps them out of its output unless the user opts in.
 */

/** The fields of a voucher that spend it. */
const BEARER_FIELDS = ['code', 'pin'];

/**
 * n8n runs a node used as an AI tool under its type name plus "Tool" (every n8n version
 * with usableAsTool), whether an AI Agent or an MCP Server Trigger calls it. The context's
 * isToolExecution() cannot tell: n8n 2.x runs tools through a plain execution context,
 * whose answer is always false.
 */
export function runsAsAgentTool(node: INode): boolean {
	return node.type.endsWith('Tool');
}

export function withoutCodes(voucher: IDataObject): IDataObject {
	return Object.fromEntries(
		Object.entries(voucher).filter(([key]) => !BEARER_FIELDS.includes(key)),
	);
}

/** The marker put on an output whose vouchers' codes and PINs were withheld. */
export function codesWithheldFlags(reference: string): IDataObject {
	return {
		codesWithheld: true,
		codesNotice: `The vouchers' codes and PINs were withheld from the AI agent, because anyone who reads them can spend the vouchers. They are kept by the voucher service: read them in a workflow with Voucher Service → Order → Get, reference ${reference}, outside the AI agent.`,
	};
}
