import { listOperation } from '../../shared/listOperation';

export const { description, execute } = listOperation('wallet', '/v2/transactions/wallets');
