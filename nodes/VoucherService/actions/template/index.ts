import { listOperationField } from '../listOperation';
import type { VoucherOperation } from '../operation';
import * as getAll from './getAll.operation';

export const operations: Record<string, VoucherOperation> = { getAll };

export const operationField = listOperationField(
	'template',
	'Get many templates',
	"Delivery e-mail templates: your business's own and the global ones",
);
