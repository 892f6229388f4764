import type { INode } from 'n8n-workflow';

import {
	campaignRowSchema,
	COUPON_JSON_KEY,
	pagedCampaignRowSchema,
	validate,
} from '../../shared/validation';
import type { CampaignRow } from '../types';
import { recipientKey } from '../match';

export const RECIPIENT_FIELDS = ['firstName', 'lastName', 'email'] as const;

/** What rows must agree on to share an order, besides their narration. */
function sharedOrderFields(row: Pick<CampaignRow, 'amountKobo' | 'orderFields'>): unknown[] {
	const { productCode, templateId } = row.orderFields;
	return [productCode, row.amountKobo, row.orderFields[COUPON_JSON_KEY], templateId];
}

/** The order key a row would have if every row had the same narration. */
export const orderKeyWithoutNarration = (row: CampaignRow): string =>
	JSON.stringify(sharedOrderFields(row));

/** One row as read, before validation: the order fields and that row's recipient. */
export type RawCampaignRow = Record<string, unknown>;

/**
 * Validates one row; throws an error naming the item and the field. With `paged`, the row's
 * `rowId` is required (see pagedCampaign.ts).
 */
export function campaignRowOf(
	node: INode,
	itemIndex: number,
	raw: RawCampaignRow,
	paged = false,
): CampaignRow {
	const { rowId, ...row } = paged
		? validate(pagedCampaignRowSchema, raw, node, itemIndex)
		: { rowId: undefined, ...validate(campaignRowSchema, raw, node, itemIndex) };
	const { reference, firstName, lastName, email, amountKobo, ...orderFields } = row;
	const recipient = { firstName, lastName, email };
	return {
		itemIndex,
		base: reference,
		recipient,
		recipientKey: recipientKey(recipient),
		amountKobo,
		orderFields,
		orderKey: JSON.stringify([
			...sharedOrderFields({ amountKobo, orderFields }),
			orderFields.narration,
		]),
		...(rowId === undefined ? {} : { rowId }),
	};
}
