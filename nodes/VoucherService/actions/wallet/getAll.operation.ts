import { listOperation } from '../listOperation';

export const { description, execute } = listOperation('wallet', '/v2/transactions/wallets');
