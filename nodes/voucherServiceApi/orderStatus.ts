/** The statuses an order ends in; ORDER_UPDATED is sent when an order reaches one. */
export const TERMINAL_ORDER_STATUSES = ['COMPLETED', 'PARTIALLY_COMPLETED', 'CANCELED', 'FAILED'];

export const isTerminal = (status: string) => TERMINAL_ORDER_STATUSES.includes(status);
