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
import { NodeConnectionTypes, NodeOperationError, sleep } from 'n8n-workflow';

import { WEBHOOK_CREDENTIAL } from '../serviceProtocol/credentials';
import { readEvent, type WebhookEvent } from '../serviceProtocol/events';
import { hasSignatureShape, parseJsonObject, verifySignature } from '../serviceProtocol/signature';
import { voucherServiceWebhookSecretTest } from '../serviceProtocol/webhookSecretCheck';
import {
	claimInExecution,
	hasSeen,
	IN_FLIGHT_MS,
	processStore,
	recordFirstSighting,
	unsettledError,
} from './deduplication';
import { deduplicationKey, filterEvent, type EventFilter } from './events';
import { triggerProperties } from './properties';
import { SecretCache } from './secretCache';
import { UNSETTLED_ELECTION } from './unsettledElection';

interface OutputOptions {
	includeHeaders?: boolean;
	includeRawBody?: boolean;
	includeUnknownEvents?: boolean;
}

type WebhookRequest = ReturnType<IWebhookFunctions['getRequestObject']>;

/*
 * The service never retries a 2xx, 400 or 401, and retries a 5xx with backoff. A delivery
 * this node cannot check for a reason of its own (the credential or n8n's database failed)
 * may be genuine, so it gets a 5xx and comes back later. 503: the failure is ours and
 * expected to pass; the service retries every 5xx alike.
 */
const UNAVAILABLE = 503;

/*
 * A signed event this node cannot read with certainty (docs/trigger.md): a 2xx would drop
 * it for good, a 5xx brings it back once the workflow or the node can read it. 500: the
 * failure is not expected to pass by itself.
 */
const UNREADABLE = 500;

/**
 * Writes the answer ourselves so that n8n starts no execution. A 4xx is final for the
 * service; a 5xx makes it deliver again later.
 */
function refuse(
	this: IWebhookFunctions,
	status: 400 | 401 | typeof UNAVAILABLE | typeof UNREADABLE,
	message: string,
): IWebhookResponseData {
	this.getResponseObject().status(status).send(message).end();
	return { noWebhookResponse: true };
}

/** A 2xx without workflowData: the service counts it delivered and n8n runs nothing. */
function acknowledgeWithoutRunning(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, ignored: reason } };
}

/** Throws when the credential gives no usable secret: a fault on our side, not the sender's. */
async function readSecret(this: IWebhookFunctions): Promise<string> {
	const { secret } = await this.getCredentials(WEBHOOK_CREDENTIAL);
	if (typeof secret !== 'string' || secret.length === 0) {
		throw new NodeOperationError(this.getNode(), 'The webhook credential holds no secret');
	}
	return secret;
}

/*
 * Shared by every request this process serves. A cache hit spares n8n a database read, a
 * decryption and an expression isolate per delivery; SecretCache bounds what it can change.
 */
const webhookSecrets = new SecretCache(() => Date.now(), sleep);

/*
 * Per workflow and credential id: n8n decides at each read whether this workflow's node
 * may use the credential, so one workflow's read is not reused by another. A node without
 * a credential id (n8n always sets one when a credential is selected) is not cached.
 */
function secretCacheKey(this: IWebhookFunctions): string | undefined {
	const id = this.getNode().credentials?.[WEBHOOK_CREDENTIAL]?.id;
	if (typeof id !== 'string' || id.length === 0) return undefined;
	return JSON.stringify([this.getWorkflow().id ?? null, id]);
}

/**
 * Whether the signature matches the cached secret, or a secret read for this request or
 * shared with others waiting (SecretCache has the rules). One HMAC per secret tried, so one
 * on a cache hit. Undefined when the cache cannot decide without a credential read it may
 * not start yet. Throws when the read fails. `known` collects the secrets tried, for
 * masking them in a logged error.
 */
async function checkSignature(
	this: IWebhookFunctions,
	request: WebhookRequest,
	known: string[],
): Promise<boolean | undefined> {
	const { rawBody } = request;
	const header = request.headers.signature;
	const matches = (secret: string) => {
		known.push(secret);
		return verifySignature(rawBody, header, secret);
	};
	const read = () => readSecret.call(this);
	const key = secretCacheKey.call(this);
	if (key === undefined) return matches(await read());
	const lookup = await webhookSecrets.check(key, matches, read);
	if (lookup.outcome === 'undecided') return undefined;
	return lookup.outcome === 'matched';
}

/*
 * The error's class and message only. n8n's credential errors have fixed messages and keep
 * what was decrypted in their cause, which is left out; a secret already read is masked in
 * case a later error quotes it.
 */
function describeFailure(error: unknown, secrets: string[]): string {
	const text =
		error instanceof Error ? `${error.constructor.name}: ${error.message}` : 'a non-Error value';
	return secrets.reduce((masked, secret) => masked.split(secret).join('[secret]'), text);
}

/*
 * Throwing from webhook() would not do: n8n answers 500 but also starts an execution that
 * fails at the trigger. So the failure is answered here, and the cause goes to n8n's log.
 */
function answerUnavailable(
	this: IWebhookFunctions,
	error: unknown,
	secrets: string[],
): IWebhookResponseData {
	this.logger.warn(
		`Voucher Service Trigger answered ${UNAVAILABLE}, so the service will deliver again: ${describeFailure(error, secrets)}`,
		{ workflowId: this.getWorkflow().id, node: this.getNode().name },
	);
	return refuse.call(this, UNAVAILABLE, 'Service Unavailable');
}

/** Nothing about the event is remembered, so the service's retry is read afresh. */
function answerUnreadable(this: IWebhookFunctions, why: string): IWebhookResponseData {
	this.logger.warn(
		`Voucher Service Trigger answered ${UNREADABLE} to a signed event, so the service will deliver it again: ${why}`,
		{ workflowId: this.getWorkflow().id, node: this.getNode().name },
	);
	return refuse.call(this, UNREADABLE, 'Event not understood');
}

/**
 * Process memory is written last: once it holds the key, a 5xx for this delivery would
 * make the service's retry look like a duplicate.
 */
function isKnownDuplicate(this: IWebhookFunctions, key: string | undefined): boolean {
	// A Test URL delivery (the editor listening) passes the filters like any other, but is
	// never deduplicated nor remembered, so it can never swallow the production copy.
	const remembers =
		key !== undefined &&
		this.getMode() !== 'manual' &&
		(this.getNodeParameter('suppressDuplicates', true) as boolean);
	if (!remembers) return false;
	const now = Date.now();
	const scope = `${this.getWorkflow().id}:${this.getNode().id}`;
	// A cheap first filter: copies that reach this process at once, and events whose
	// executions already saved them in static data. execute() holds the real check.
	const persisted = hasSeen(this.getWorkflowStaticData('node'), key, now);
	return persisted || !recordFirstSighting(processStore(scope), key, now, IN_FLIGHT_MS);
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

/**
 * Reads the event from the verified bytes only, never from a body n8n parsed earlier. Bytes
 * that are not a JSON object hold no event to run: a retry would bring the same bytes.
 */
function answerVerified(this: IWebhookFunctions, request: WebhookRequest): IWebhookResponseData {
	const body = parseJsonObject(request.rawBody);
	if (body === undefined) return refuse.call(this, 400, 'Not a webhook event');
	const reading = readEvent(body);
	if ('unreadable' in reading) return answerUnreadable.call(this, reading.unreadable);

	const { event } = reading;
	const options = this.getNodeParameter('options', {}) as OutputOptions;
	const filter: EventFilter = {
		events: this.getNodeParameter('events', []) as string[],
		orderStatuses: this.getNodeParameter('orderStatuses', []) as string[],
		includeUnknownEvents: options.includeUnknownEvents === true,
	};
	const verdict = filterEvent(event, filter);
	if (verdict === 'filtered') return acknowledgeWithoutRunning('filtered');
	if (verdict !== 'run') return answerUnreadable.call(this, verdict.unreadable);

	const key = deduplicationKey(event);
	const item = toItem(event, key, request.rawBody, request.headers as IDataObject, options);
	if (isKnownDuplicate.call(this, key)) return acknowledgeWithoutRunning('duplicate');
	return { workflowData: [[{ json: item }]] };
}

export class VoucherServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voucher Service Trigger',
		name: 'voucherServiceTrigger',
		icon: { light: 'file:voucherService.svg', dark: 'file:voucherService.dark.svg' },
		group: ['trigger'],
		// Version 2 changes nothing the node does. n8n evaluates an expression for every
		// request to a version-1 node while it parses the body, which costs an expression
		// isolate; at version 2 it does not (docs/queue-mode.md, lazy isolates).
		version: [1, 2],
		defaultVersion: 2,
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
		const secrets: string[] = [];
		try {
			// At version 2 n8n leaves unread the body of a content type it does not parse,
			// and the signature is over those bytes. A multipart body was consumed by n8n's
			// form parser at either version: it has no raw bytes to check and stays a 401.
			if (!request.rawBody && !request.readableEnded) await request.readRawBody();
			const verified = await checkSignature.call(this, request, secrets);
			// Forged deliveries beyond those the cache lets wait for its next read end here.
			if (verified === undefined) return refuse.call(this, UNAVAILABLE, 'Service Unavailable');
			if (!verified) return refuse.call(this, 401, 'Unauthorized');
			return answerVerified.call(this, request);
		} catch (error) {
			return answerUnavailable.call(this, error, secrets);
		}
	}

	/*
	 * Runs inside the execution a delivery started: in queue mode on a worker, where n8n's
	 * deduplication store is available. A duplicate found here leaves the execution without
	 * items, so nothing after the trigger runs. Executions started from the editor's test
	 * URL record nothing, so a test event never swallows the real one. A retry from the
	 * executions list runs this node again only when it failed, that is when its election
	 * could not reach the database or did not settle, possibly after writing its claim: the
	 * retry would find that claim and stop, so a retry runs the event as the person asked.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		if (!(this.getNodeParameter('suppressDuplicates', 0, true) as boolean)) return [items];
		if (this.getMode() === 'manual' || this.getMode() === 'retry') return [items];
		const fresh: INodeExecutionData[] = [];
		for (const item of items) {
			const key = item.json.deduplicationKey;
			if (typeof key !== 'string') {
				fresh.push(item);
				continue;
			}
			const claim = await claimInExecution(
				this.helpers,
				this.getNode(),
				key,
				this.getExecutionId(),
			);
			if (claim === 'unsettled') {
				this.logger.warn(UNSETTLED_ELECTION, {
					workflowId: this.getWorkflow().id,
					executionId: this.getExecutionId(),
				});
				throw unsettledError(this.getNode());
			}
			if (claim === 'run') {
				// Static data is saved when the execution ends: it keeps webhook()'s filter warm.
				recordFirstSighting(this.getWorkflowStaticData('node'), key, Date.now());
				fresh.push(item);
			}
		}
		return [fresh];
	}
}
