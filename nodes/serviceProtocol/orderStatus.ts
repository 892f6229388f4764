/** The statuses an order ends in; ORDER_UPDATED is sent when an order reaches one. */
export const TERMINAL_ORDER_STATUSES = ['COMPLETED', 'PARTIALLY_COMPLETED', 'CANCELED', 'FAILED'];

/** Every order status the spec lists: the terminal ones and the one before them. */
export const ORDER_STATUSES = [...TERMINAL_ORDER_STATUSES, 'PROCESSING'];

export const isTerminal = (status: string) => TERMINAL_ORDER_STATUSES.includes(status);

/**
 * A status as the spec writes it (upper case), whatever case the service sends: read once,
 * where an order is read, so every comparison and every output sees one spelling.
 */
export const inSpecCase = <T>(status: T): T | string =>
	typeof status === 'string' ? status.toUpperCase() : status;
