import { listOperation } from '../listOperation';

export const { description, execute } = listOperation('template', '/v2/orders/templates');
