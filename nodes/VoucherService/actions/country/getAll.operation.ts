import { listOperation } from '../listOperation';

export const { description, execute } = listOperation('country', '/v2/countries');
