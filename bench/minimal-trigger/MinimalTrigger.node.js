// Dev-only benchmark floor: a community trigger whose webhook() does nothing but
// answer, the way ours answers. What it costs per delivery is what n8n charges any
// community trigger (loading the workflow, the expression isolate, routing), so ours
// is measured against it. Plain CommonJS: nothing to build.
//   header x-floor: refuse -> 401 written by the node, no execution (ours: bad signature)
//   header x-floor: ignore -> 2xx without workflowData, no execution (ours: duplicate, filtered)
//   otherwise              -> one item with the parsed body, an execution starts (ours: accepted)
'use strict';

class MinimalTrigger {
	constructor() {
		this.description = {
			displayName: 'Minimal Trigger (bench)',
			name: 'minimalTrigger',
			group: ['trigger'],
			version: 1,
			description: 'Benchmark floor: answers every delivery at once',
			defaults: { name: 'Minimal Trigger' },
			inputs: [],
			outputs: ['main'],
			webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
			properties: [],
		};
		this.webhookMethods = {
			default: {
				checkExists: async () => true,
				create: async () => true,
				delete: async () => true,
			},
		};
	}

	async webhook() {
		const request = this.getRequestObject();
		const floor = request.headers['x-floor'];
		if (floor === 'refuse') {
			this.getResponseObject().status(401).send('Unauthorized').end();
			return { noWebhookResponse: true };
		}
		if (floor === 'ignore') return { webhookResponse: { received: true, ignored: 'floor' } };
		return { workflowData: [[{ json: { event: request.body } }]] };
	}
}

module.exports = { MinimalTrigger };
