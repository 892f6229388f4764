import { listOperationField } from '../listOperation';
import type { VoucherOperation } from '../operation';
import * as getAll from './getAll.operation';

export const operations: Record<string, VoucherOperation> = { getAll };

export const operationField = listOperationField(
	'wallet',
	'Get many wallets',
	'Wallet balances, one per currency',
);
