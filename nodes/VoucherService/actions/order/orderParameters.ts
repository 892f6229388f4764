import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { COUPON_CODE_PARAMETER } from '../../shared/fields';

/** The raw fields every create reads, before validation; `additional` holds the rest. */
export function readOrderFields(context: IExecuteFunctions, itemIndex: number) {
	const additional = context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	return {
		additional,
		fields: {
			reference: context.getNodeParameter('reference', itemIndex),
			productCode: context.getNodeParameter('productCode', itemIndex),
			amount: context.getNodeParameter('amount', itemIndex),
			couponCode: additional[COUPON_CODE_PARAMETER],
		},
	};
}
