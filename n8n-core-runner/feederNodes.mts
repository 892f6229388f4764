/**
 * Two tiny node types runWorkflow adds to every workflow so a test can feed
 * items into the node under test without depending on n8n-nodes-base.
 */
import {
	NodeConnectionTypes,
	jsonParse,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type ITriggerFunctions,
	type ITriggerResponse,
} from 'n8n-workflow';

export const START_NODE_TYPE = 'n8n-test-feeders.manualTrigger';
export const ITEMS_NODE_TYPE = 'n8n-test-feeders.items';

/**
 * Same body as n8n-nodes-base's Manual Trigger: a trigger whose manual run
 * emits one empty item. WorkflowExecute runs it through TriggersAndPollers,
 * just as it does when you click "Execute workflow" in the editor.
 */
export class FeederManualTrigger implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Manual Trigger (test)',
		name: START_NODE_TYPE,
		group: ['trigger'],
		version: 1,
		description: 'Starts a test run',
		defaults: { name: 'Start' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const manualTriggerFunction = async () => {
			this.emit([this.helpers.returnJsonArray([{}])]);
		};
		return { manualTriggerFunction };
	}
}

/**
 * Emits the JSON items given in its `items` parameter (a JSON array string),
 * like a Code node returning fixed data. n8n pairs each output with the single
 * input item, as it would for a Code node.
 */
export class FeederItems implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Items (test)',
		name: ITEMS_NODE_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Emits fixed JSON items',
		defaults: { name: 'Items' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string;
		const items = jsonParse<object[]>(raw);
		return [
			items.map((json) => ({ json: json as INodeExecutionData['json'], pairedItem: { item: 0 } })),
		];
	}
}
