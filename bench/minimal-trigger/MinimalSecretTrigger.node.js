// Dev-only benchmark floor for a trigger that checks a signature: the minimal
// trigger plus the one thing such a trigger cannot skip, reading its secret from
// n8n's credential store in webhook(). n8n 2.41 reads the credential from the
// database, decrypts it and takes a second expression isolate for it on every
// call, whatever the node does next. Same headers as MinimalTrigger.node.js.
'use strict';

const { MinimalTrigger } = require('./MinimalTrigger.node.js');

class MinimalSecretTrigger extends MinimalTrigger {
	constructor() {
		super();
		this.description = {
			...this.description,
			displayName: 'Minimal Secret Trigger (bench)',
			name: 'minimalSecretTrigger',
			description: 'Benchmark floor: reads its secret, then answers every delivery at once',
			defaults: { name: 'Minimal Secret Trigger' },
			credentials: [{ name: 'minimalTriggerSecretApi', required: true }],
		};
	}

	async webhook() {
		const { secret } = await this.getCredentials('minimalTriggerSecretApi');
		if (!secret) throw new Error('no secret');
		return await super.webhook();
	}
}

module.exports = { MinimalSecretTrigger };
