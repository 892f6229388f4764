/**
 * The Template dropdown: a template list that is not a list is an error the editor shows,
 * never "No templates found", which would send the user to the dashboard for nothing.
 */
import { describe, expect, it } from 'vitest';

import { runLoadOptions } from '../../../../n8n-core-runner/runWorkflow.mts';
import { VoucherServiceApi } from '../../../../credentials/VoucherServiceApi.credentials';
import {
	cannedServiceForThisFile,
	credentialFor,
	NO_DATA,
	sandboxForThisFile,
	voucherNode,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();
const canned = await cannedServiceForThisFile();

const templates = async () =>
	await runLoadOptions({
		nodeType: voucherNode,
		methodName: 'getTemplates',
		credentialTypes: [new VoucherServiceApi()],
		credentials: { voucherServiceApi: credentialFor(sandbox, { baseUrl: canned.url }) },
	});

describe('getTemplates', () => {
	it.each([
		[
			'a paged object',
			{ templates: [{ id: '1', name: 'Classic' }] },
			'an object (fields: templates)',
		],
		['null', null, 'null'],
		['no data', NO_DATA, 'missing'],
		['a list of ids', ['1', '2'], undefined],
	])('%s: an error saying what came back, not "No templates found"', async (_what, data, shape) => {
		canned.answerWith(data);
		await expect(templates()).rejects.toThrow(
			shape === undefined
				? "The voucher service's template list is not a list of objects: element 1 is text"
				: `The voucher service's template list is not a list: its data is ${shape}`,
		);
	});

	it('an empty list: one disabled option saying there are none', async () => {
		canned.answerWith([]);
		const options = await templates();
		expect(options).toEqual([
			expect.objectContaining({ name: 'No Templates Found for This Account', disabled: true }),
		]);
	});
});
