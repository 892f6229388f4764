import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { VoucherApiClient } from '../../transport/client';
import { planCampaignReport, reportBlocks } from '../../orders/campaign/campaignReport';
import type { ReadCampaignBase } from '../../orders/campaign/campaignReport';
import { referenceField } from '../fields';
import { oldBlockNamesOption, readOldBlockNames } from './createOptions';
import { executionParameters } from '../../shared/parameters';
import { campaignReportSchema, validate } from '../../shared/validation';
import type { ItemPlan, RunSettings } from '../../plan';

/*
 * Text, not number: a Row ID may be a database's bigint, which n8n's number field would round,
 * and a rounded ID can name another block.
 */
const rowIdsField = (end: 'From' | 'To', description: string): INodeProperties => ({
	displayName: `Row IDs ${end}`,
	name: `rowIds${end}`,
	type: 'string',
	default: '',
	placeholder: end === 'From' ? 'e.g. 0' : 'e.g. 99999',
	description,
});

export const description = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['getCampaign'] } },
	[
		referenceField(
			'The base reference the campaign was bought under (Create for Recipients with recipients from input items). Its orders are the base followed by -1, -2, … (spring-2026-1, spring-2026-2, …).',
			'e.g. spring-2026',
		),
		{
			...rowIdsField(
				'From',
				'The lowest Row ID to report, a whole number. Empty for a campaign bought without Row ID Column.',
			),
			hint: 'For a campaign bought with Row ID Column: set both to report the blocks of 1,000 IDs that hold them',
		},
		rowIdsField('To', 'The highest Row ID to report; at most 10,000,000 IDs per item'),
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: [oldBlockNamesOption],
		},
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
			const input = {
				reference: get('reference', itemIndex),
				rowIdsFrom: get('rowIdsFrom', itemIndex, ''),
				rowIdsTo: get('rowIdsTo', itemIndex, ''),
			};
			const { reference, rowIds } = validate(campaignReportSchema, input, node, itemIndex);
			if (!rowIds) return { itemIndex, base: reference };
			return { itemIndex, base: reference, blocks: reportBlocks(node, itemIndex, rowIds) };
		} catch (error) {
			return { itemIndex, error };
		}
	});
	const options = (get('options', 0, {}) ?? {}) as IDataObject;
	return await planCampaignReport(
		client,
		reads,
		run,
		readOldBlockNames(node, options.oldBlockNames),
	);
}
