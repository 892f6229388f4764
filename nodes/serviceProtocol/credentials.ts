/** The credential types' names: declared by the classes in credentials/, used by both nodes. */
export const API_CREDENTIAL = 'voucherServiceApi';
export const WEBHOOK_CREDENTIAL = 'voucherServiceWebhookApi';
