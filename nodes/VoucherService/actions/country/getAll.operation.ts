import { listOperation } from '../../shared/listOperation';

export const { description, execute } = listOperation('country', '/v2/countries');
