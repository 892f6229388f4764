import { COUNTRIES_PATH } from '../../../serviceProtocol/api';
import { listOperation } from '../listOperation';

export const { description, execute } = listOperation('country', COUNTRIES_PATH);
