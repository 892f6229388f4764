/**
 * How Create for Recipients → From Input Items reads each row's fields. n8n 2.x evaluates every
 * expression in an isolate, which costs more per row than the rest of a campaign's work: a
 * row's Template mapped as `={{ $json.template_id }}` and its column fields are read without
 * asking n8n per row (shared/parameters.ts), and give what n8n's evaluation gives.
 */
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { campaignParameters } from '../../campaignParameters.mts';
import {
	apiRequests,
	runVoucher,
	sandboxForThisFile,
	uniqueReference,
} from '../../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

/** Rows as a database gives them: a bigint ID as text, the template as a number. */
const rows: IDataObject[] = Array.from({ length: 6 }, (_, i) => ({
	id: String(500 + i),
	first_name: `First${i}`,
	last_name: `Last${i}`,
	email: `row${i}@example.com`,
	template_id: i < 3 ? 1 : 2,
}));

async function campaign(templateId: string) {
	sandbox.reset();
	const reads: string[] = [];
	const run = await runVoucher(
		sandbox,
		campaignParameters(
			uniqueReference('tpl'),
			{},
			{
				templateId,
				firstNameField: 'first_name',
				lastNameField: 'last_name',
				emailField: 'email',
				rowIdField: 'id',
			},
		),
		{ items: rows, parameterReads: reads },
	);
	const bodies = apiRequests(sandbox, 'POST').map((entry) => {
		const { templateId: sent, recipients } = entry.body as IDataObject;
		return { templateId: sent, recipients };
	});
	const readsOf = (name: string) => reads.filter((read) => read === name).length;
	return { run, bodies, readsOf };
}

describe('Create for Recipients reads each row without an evaluation per row', () => {
	it('Template mapped to a field of the row: read from the row, the same orders as n8n evaluating it', async () => {
		const fast = await campaign('={{ $json.template_id }}');
		// The parenthesised form is the same value, which n8n evaluates for every row.
		const evaluated = await campaign('={{ ($json.template_id) }}');
		expect(fast.run.json.every((item) => !item.error)).toBe(true);
		expect(fast.bodies).toEqual(evaluated.bodies);
		expect(fast.bodies.map((body) => body.templateId)).toEqual([1, 2]);
		expect(evaluated.readsOf('templateId')).toBe(rows.length);
		expect(fast.readsOf('templateId')).toBe(0);
	});

	it('column names (recipient and Row ID) are read once per run, not once per row', async () => {
		const { readsOf } = await campaign('={{ $json.template_id }}');
		for (const field of ['firstNameField', 'lastNameField', 'emailField', 'rowIdField'])
			expect(readsOf(field), field).toBe(1);
	});
});
