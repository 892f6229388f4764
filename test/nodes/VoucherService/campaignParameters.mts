// Node parameters only, with no runner behind them: the real-n8n suites use them too.
import type { INodeParameters } from 'n8n-workflow';

/** Create for Recipients → From Input Items: a campaign under `base`, 1,000 NGN per row unless `extra` says otherwise. */
export const campaignParameters = (
	base: string,
	options: INodeParameters = {},
	extra: INodeParameters = {},
): INodeParameters => ({
	resource: 'order',
	operation: 'createForRecipients',
	recipientsSource: 'inputItems',
	reference: base,
	productCode: 'VCH-INSTANT',
	amount: 1000,
	templateId: 1,
	options,
	...extra,
});
