import { TEMPLATES_PATH } from '../../../serviceProtocol/api';
import { listOperation } from '../listOperation';

export const { description, execute } = listOperation('template', TEMPLATES_PATH);
