import { Workflow, type IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { nodeTypes, triggerNode as node } from './n8nWebhookHost.mts';

/*
 * Pins down the n8n 2.41 behaviour the trigger's design rests on (see n8nWebhookHost.mts):
 * if this starts failing after an n8n upgrade, revisit where dedup keys are recorded.
 */
const wrap = (staticData: IDataObject | undefined) =>
	new Workflow({ id: 'wf', nodes: [node], connections: {}, active: true, nodeTypes, staticData });

describe('n8n workflow static data written during webhook()', () => {
	it('loses its change flag when the execution is started from the same workflow data', () => {
		const fromDatabase = { [`node:${node.name}`]: { seen: {} } };
		const webhookWorkflow = wrap(fromDatabase);
		webhookWorkflow.getStaticData('node', node).seen = { key: 1 };
		expect(webhookWorkflow.staticData.__dataChanged).toBe(true);

		wrap(fromDatabase); // WorkflowRunner.run builds its own Workflow on the same object
		expect(webhookWorkflow.staticData.__dataChanged).toBe(false);
	});

	it('keeps it when no execution is started', () => {
		const webhookWorkflow = wrap({ [`node:${node.name}`]: { seen: {} } });
		webhookWorkflow.getStaticData('node', node).seen = { key: 1 };
		expect(webhookWorkflow.staticData.__dataChanged).toBe(true);
	});
});
