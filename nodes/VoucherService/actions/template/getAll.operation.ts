import { listOperation } from '../../shared/listOperation';

export const { description, execute } = listOperation('template', '/v2/orders/templates');
