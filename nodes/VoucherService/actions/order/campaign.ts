import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { asNodeError } from '../../transport/errors';
import { mapWithConcurrency } from '../../shared/concurrency';
import { errorItem } from '../../shared/errorItem';
import { DEFAULT_CONCURRENCY } from '../../shared/fields';
import type { OrderResult } from '../../shared/order';
import { campaignRowSchema, validate } from '../../shared/validation';
import type { RecipientOrderInput } from '../../shared/validation';
import { placeOrder, readOrderFields } from './placeOrder';
import { recipientOrderBody } from './recipientOrderBody';

/** Recipients per order when a campaign is split; the spec publishes no maximum. */
export const DEFAULT_RECIPIENTS_PER_ORDER = 100;

export const RECIPIENT_FIELDS = ['firstName', 'lastName', 'email'] as const;

interface Row {
	itemIndex: number;
	/** Raw order fields; rows that agree on them share orders. */
	groupKey: string;
	input?: RecipientOrderInput;
	error?: Error;
}

interface Chunk {
	reference: string;
	rows: Row[];
}

/**
 * A recipient field is either an expression (its value is used) or a plain column name
 * (the value of that column in the row is used), so both mapping styles work.
 */
function recipientValue(
	context: IExecuteFunctions,
	field: (typeof RECIPIENT_FIELDS)[number],
	itemIndex: number,
): unknown {
	const parameter = `${field}Field`;
	const raw = context.getNode().parameters[parameter];
	const value = context.getNodeParameter(parameter, itemIndex, field);
	if (typeof raw === 'string' && raw.startsWith('=')) return value;
	return context.getInputData()[itemIndex].json[String(value)];
}

function readRow(context: IExecuteFunctions, itemIndex: number): Row {
	const common = readOrderFields(context, itemIndex);
	const fields = {
		...common.fields,
		templateId: context.getNodeParameter('templateId', itemIndex),
		narration: common.additional.narration,
	};
	const groupKey = JSON.stringify(Object.values(fields));
	const recipient = Object.fromEntries(
		RECIPIENT_FIELDS.map((field) => [field, recipientValue(context, field, itemIndex)]),
	);
	try {
		const { firstName, lastName, email, ...order } = validate(
			campaignRowSchema,
			{ ...fields, ...recipient },
			context.getNode(),
			itemIndex,
		);
		return {
			itemIndex,
			groupKey,
			input: { ...order, recipients: [{ firstName, lastName, email }] },
		};
	} catch (error) {
		return { itemIndex, groupKey, error: error as Error };
	}
}

/**
 * Rows are grouped by their raw order fields and cut into chunks by position, invalid rows
 * included, so the same sheet always yields the same chunks and the same references
 * (`<base>-<n>`, numbered across the whole run) even after a bad row is fixed.
 */
export function chunkRows(rows: Row[], perOrder: number): Chunk[] {
	const groups = new Map<string, Row[]>();
	for (const row of rows) {
		const group = groups.get(row.groupKey);
		if (group) group.push(row);
		else groups.set(row.groupKey, [row]);
	}
	const chunks: Chunk[] = [];
	for (const group of groups.values()) {
		const base = String(group[0].input?.reference ?? JSON.parse(group[0].groupKey)[0] ?? '').trim();
		for (let start = 0; start < group.length; start += perOrder) {
			chunks.push({
				reference: `${base}-${chunks.length + 1}`,
				rows: group.slice(start, start + perOrder),
			});
		}
	}
	return chunks;
}

function sameRecipient(voucher: IDataObject, input: RecipientOrderInput): boolean {
	const [recipient] = input.recipients;
	return (
		String(voucher.email ?? '').toLowerCase() === recipient.email.toLowerCase() &&
		String(voucher.firstName ?? '') === recipient.firstName &&
		String(voucher.lastName ?? '') === recipient.lastName
	);
}

/** Each row's own voucher, matched by recipient; duplicates are taken in order. */
function rowOutputs(
	context: IExecuteFunctions,
	result: OrderResult,
	rows: Row[],
): INodeExecutionData[] {
	const { order } = result;
	const unclaimed = [...(order.vouchers ?? [])];
	const vouchersKnown = unclaimed.length > 0;
	return rows.map((row) => {
		const index = unclaimed.findIndex((voucher) => sameRecipient(voucher, row.input!));
		const voucher = index >= 0 ? unclaimed.splice(index, 1)[0] : undefined;
		const json: IDataObject = {
			...row.input!.recipients[0],
			reference: order.reference,
			orderNumber: order.orderNumber,
			status: order.status,
			alreadyExisted: Boolean(result.alreadyExisted),
			...(result.waitTimedOut ? { waitTimedOut: true } : {}),
			voucher: voucher
				? {
						status: voucher.status ?? null,
						serial: voucher.serial ?? null,
						value: voucher.value ?? null,
					}
				: null,
		};
		if (vouchersKnown && !voucher && result.alreadyExisted) {
			const error = new NodeOperationError(
				context.getNode(),
				`Item ${row.itemIndex}: this row is not in the existing order ${order.reference}`,
				{
					itemIndex: row.itemIndex,
					description:
						'That reference was used by an earlier run with other rows, so no voucher was bought for this row. Use a new base reference for new rows.',
				},
			);
			if (!context.continueOnFail()) throw error;
			return errorItem(context.getNode(), error, row.itemIndex, json);
		}
		return { json, pairedItem: { item: row.itemIndex } };
	});
}

/** Create for Recipients with recipients taken from input items: one row, one recipient. */
export async function executeCampaign(
	this: IExecuteFunctions,
	client: VoucherApiClient,
): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const perOrder = Number(options.recipientsPerOrder ?? DEFAULT_RECIPIENTS_PER_ORDER);
	const rows = items.map((_, itemIndex) => readRow(this, itemIndex));

	const invalid = rows.filter((row) => row.error);
	if (invalid.length && !this.continueOnFail()) {
		// Refuse the whole sheet before any order is sent, so a fix-and-rerun starts clean.
		throw asNodeError(this.getNode(), invalid[0].error);
	}

	const output = new Array<INodeExecutionData[]>(items.length);
	for (const row of invalid) {
		output[row.itemIndex] = [errorItem(this.getNode(), row.error, row.itemIndex)];
	}

	const chunks = chunkRows(rows, perOrder)
		.map((chunk) => ({ ...chunk, rows: chunk.rows.filter((row) => row.input) }))
		.filter((chunk) => chunk.rows.length > 0);

	await mapWithConcurrency(
		chunks.length,
		Number(options.concurrency ?? DEFAULT_CONCURRENCY),
		async (chunkIndex) => {
			const { reference, rows: chunkRowsValid } = chunks[chunkIndex];
			const first = chunkRowsValid[0];
			const input: RecipientOrderInput = {
				...first.input!,
				reference,
				recipients: chunkRowsValid.map((row) => row.input!.recipients[0]),
			};
			try {
				const result = await placeOrder.call(this, client, {
					path: '/v2/orders/recipients',
					body: recipientOrderBody(input),
					reference,
					itemIndex: first.itemIndex,
					amount: input.amount,
					vouchers: input.recipients.length,
				});
				rowOutputs(this, result, chunkRowsValid).forEach(
					(out, position) => (output[chunkRowsValid[position].itemIndex] = [out]),
				);
			} catch (error) {
				if (!this.continueOnFail()) throw asNodeError(this.getNode(), error);
				for (const row of chunkRowsValid) {
					output[row.itemIndex] = [errorItem(this.getNode(), error, row.itemIndex, { reference })];
				}
			}
		},
	);
	return output.flat();
}
