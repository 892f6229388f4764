import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { WEBHOOK_CREDENTIAL } from '../shared/credentials';
import { hasSignatureShape, openDelivery, type WebhookEvent } from '../shared/signature';
import { voucherServiceWebhookSecretTest } from '../shared/webhookSecretTest';
import { claimInExecution, hasSeen, processStore, recordFirstSighting } from './deduplication';
import { deduplicationKey, isWanted, type EventFilter } from './events';
import { triggerProperties } from './properties';

interface OutputOptions {
	includeHeaders?: boolean;
	includeRawBody?: boolean;
	includeUnknownEvents?: boolean;
}

/** Writes the answer ourselves so that n8n starts no execution and the service stops retrying. */
function refuse(this: IWebhookFunctions, status: 400 | 401, message: string): IWebhookResponseData {
	this.getResponseObject().status(status).send(message).end();
	return { noWebhookResponse: true };
}

/** A 2xx without workflowData: the service counts it delivered and n8n runs nothing. */
function acknowledgeWithoutRunning(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, ignored: reason } };
}

async function readSecret(this: IWebhookFunctions): Promise<unknown> {
	try {
		const credentials = await this.getCredentials(WEBHOOK_CREDENTIAL);
		return credentials.secret;
	} catch {
		// Missing or undecryptable credentials must fail closed, like a wrong secret
		return undefined;
	}
}

function toItem(
	event: WebhookEvent,
	key: string | undefined,
	rawBody: Buffer,
	headers: IDataObject,
	options: OutputOptions,
): IDataObject {
	return {
		event: event.type,
		data: event.data as IDataObject,
		// Same for every copy of an event: a unique key on it in the user's own database
		// enforces "once" where n8n's stores cannot (docs/trigger.md).
		deduplicationKey: key ?? null,
		receivedAt: new Date().toISOString(),
		...(options.includeHeaders ? { headers } : {}),
		...(options.includeRawBody ? { rawBody: rawBody.toString('utf8') } : {}),
	};
}

export class VoucherServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voucher Service Trigger',
		name: 'voucherServiceTrigger',
		icon: { light: 'file:voucherService.svg', dark: 'file:voucherService.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		// n8n's node panel lists this trigger under the action node's entry and shows the
		// trigger's description for both, so it describes the whole package.
		description:
			'Order gift-card vouchers priced in Naira, e-mail them to recipients, and start workflows on signed order and voucher events',
		defaults: { name: 'Voucher Service Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: WEBHOOK_CREDENTIAL,
				required: true,
				testedBy: 'voucherServiceWebhookSecretTest',
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: triggerProperties,
	};

	methods = {
		credentialTest: { voucherServiceWebhookSecretTest },
	};

	// URLs are registered by hand in the dashboard, so there is nothing to call here.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		// A header that cannot be a signature is refused before the credential is decrypted.
		if (!hasSignatureShape(request.headers.signature)) {
			return refuse.call(this, 401, 'Unauthorized');
		}
		const secret = await readSecret.call(this);
		const delivery = openDelivery(request.rawBody, request.headers.signature, secret);
		if (delivery.status === 'unauthorized') return refuse.call(this, 401, 'Unauthorized');
		if (delivery.status === 'malformed') return refuse.call(this, 400, 'Not a webhook event');

		const { event } = delivery;
		const options = this.getNodeParameter('options', {}) as OutputOptions;
		const filter: EventFilter = {
			events: this.getNodeParameter('events', []) as string[],
			orderStatuses: this.getNodeParameter('orderStatuses', []) as string[],
			includeUnknownEvents: options.includeUnknownEvents === true,
		};
		if (!isWanted(event, filter)) return acknowledgeWithoutRunning('filtered');

		const key = deduplicationKey(event);
		// A cheap first filter: copies that reach this process at once, and events whose
		// executions already saved them in static data. execute() holds the real check.
		// A Test URL delivery (the editor listening) is neither filtered nor remembered, so
		// it can never swallow the production copy of the same event.
		const remembers =
			key !== undefined &&
			this.getMode() !== 'manual' &&
			(this.getNodeParameter('suppressDuplicates', true) as boolean);
		if (remembers) {
			const now = Date.now();
			const scope = `${this.getWorkflow().id}:${this.getNode().id}`;
			const persisted = hasSeen(this.getWorkflowStaticData('node'), key, now);
			if (persisted || !recordFirstSighting(processStore(scope), key, now)) {
				return acknowledgeWithoutRunning('duplicate');
			}
		}

		const item = toItem(event, key, request.rawBody, request.headers as IDataObject, options);
		return { workflowData: [[{ json: item }]] };
	}

	/*
	 * Runs inside the execution a delivery started: in queue mode on a worker, where n8n's
	 * deduplication store is available. A duplicate found here leaves the execution without
	 * items, so nothing after the trigger runs. Executions started from the editor's test
	 * URL record nothing, so a test event never swallows the real one.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		if (!(this.getNodeParameter('suppressDuplicates', 0, true) as boolean)) return [items];
		if (this.getMode() === 'manual') return [items];
		const fresh: INodeExecutionData[] = [];
		for (const item of items) {
			const key = item.json.deduplicationKey;
			if (typeof key !== 'string') {
				fresh.push(item);
			} else if (await claimInExecution(this.helpers, this.getNode(), key, this.getExecutionId())) {
				// Static data is saved when the execution ends: it keeps webhook()'s filter warm.
				recordFirstSighting(this.getWorkflowStaticData('node'), key, Date.now());
				fresh.push(item);
			}
		}
		return [fresh];
	}
}
