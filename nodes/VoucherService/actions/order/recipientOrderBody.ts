import type { IDataObject } from 'n8n-workflow';

import { COUPON_CODE_FIELD } from '../../shared/fields';
import type { RecipientOrderInput } from '../../shared/validation';

/** The request body, with optional fields left out so the service applies its defaults. */
export function recipientOrderBody(input: RecipientOrderInput): IDataObject {
	return {
		reference: input.reference,
		productCode: input.productCode,
		amount: input.amount,
		templateId: input.templateId,
		recipients: input.recipients,
		...(input.narration !== undefined ? { narration: input.narration } : {}),
		...(input.couponCode !== undefined ? { [COUPON_CODE_FIELD]: input.couponCode } : {}),
	};
}
