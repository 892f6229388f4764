import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { planCampaignReport } from '../../orders/campaign/campaignReport';
import type { ReadCampaignBase } from '../../orders/campaign/campaignReport';
import { referenceField } from '../../shared/fields';
import { executionParameters } from '../../shared/parameters';
import { orderLookupSchema, validate } from '../../shared/validation';
import type { ItemPlan, RunSettings } from '../../plan';

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['getCampaign'] } },
	[
		referenceField(
			'The base reference the campaign was bought under (Create for Recipients with recipients from input items). Its orders are the base followed by -1, -2, … (spring-2026-1, spring-2026-2, …).',
			'e.g. spring-2026',
		),
	],
);

/**
 * One item per voucher of each input item's campaign. A plan, not item by item, so that the
 * summary above the output counts every campaign of the run once.
 */
export async function plan(
	this: IExecuteFunctions,
	client: VoucherApiClient,
	run: RunSettings,
): Promise<ItemPlan> {
	const { node, get } = executionParameters(this);
	const reads = this.getInputData().map((_, itemIndex): ReadCampaignBase => {
		try {
			// The rule a campaign's base is held to: a base that cannot buy has no campaign to report.
			const input = { reference: get('reference', itemIndex) };
			const { reference } = validate(orderLookupSchema, input, node, itemIndex);
			return { itemIndex, base: reference };
		} catch (error) {
			return { itemIndex, error };
		}
	});
	return await planCampaignReport(client, reads, run);
}
