/**
 * What users of the published package read in the editor must not refer to things only a
 * clone of this repository has: the local sandbox, loopback addresses, dev scripts.
 */
import { describe, expect, it } from 'vitest';

import { VoucherServiceApi } from '../../credentials/VoucherServiceApi.credentials';
import { VoucherServiceWebhookApi } from '../../credentials/VoucherServiceWebhookApi.credentials';
import { VoucherService } from '../../nodes/VoucherService/VoucherService.node';
import { VoucherServiceTrigger } from '../../nodes/VoucherServiceTrigger/VoucherServiceTrigger.node';

const DEV_ONLY = /sandbox|127\.0\.0\.1|localhost|npm run|pk_test|sk_test/i;

describe('text shipped in the package', () => {
	it.each([
		['Voucher Service API credential', new VoucherServiceApi().properties],
		['Voucher Service Webhook API credential', new VoucherServiceWebhookApi().properties],
		['Voucher Service node', new VoucherService().description],
		['Voucher Service Trigger node', new VoucherServiceTrigger().description],
	])('%s names nothing from the development setup', (_, shipped) => {
		expect(JSON.stringify(shipped)).not.toMatch(DEV_ONLY);
	});
});
