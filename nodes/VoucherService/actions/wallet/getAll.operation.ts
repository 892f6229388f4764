import { listOperation } from '../listOperation';
import { WALLETS_PATH } from '../../../serviceProtocol/api';

export const { description, execute } = listOperation('wallet', WALLETS_PATH);
