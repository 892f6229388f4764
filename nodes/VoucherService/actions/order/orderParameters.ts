import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { COUPON_CODE_PARAMETER } from '../../shared/fields';
import { executionParameters } from '../../shared/parameters';

/** The raw fields every create reads, before validation; `additional` holds the rest. */
export function readOrderFields(context: IExecuteFunctions, itemIndex: number) {
	const parameters = executionParameters(context);
	const additional = parameters.get('additionalFields', itemIndex, {}) as IDataObject;
	return {
		additional,
		fields: {
			reference: parameters.get('reference', itemIndex),
			productCode: parameters.get('productCode', itemIndex),
			amount: parameters.get('amount', itemIndex),
			couponCode: additional[COUPON_CODE_PARAMETER],
		},
	};
}
