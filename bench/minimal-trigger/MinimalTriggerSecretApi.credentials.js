// Dev-only: the secret MinimalSecretTrigger.node.js reads on every delivery.
'use strict';

class MinimalTriggerSecretApi {
	constructor() {
		this.name = 'minimalTriggerSecretApi';
		this.displayName = 'Minimal Trigger Secret (bench)';
		this.properties = [{ displayName: 'Secret', name: 'secret', type: 'string', typeOptions: { password: true }, default: '' }];
	}
}

module.exports = { MinimalTriggerSecretApi };
