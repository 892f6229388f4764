import { listOperation } from '../listOperation';
import { WALLETS_PATH } from '../../transport/client';

export const { description, execute } = listOperation('wallet', WALLETS_PATH);
