import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

import type { AnswerIdentity } from './answerIdentity';

/** Why a call failed, as far as deciding on a retry or a look-up goes. */
export type FailureKind =
	| 'network' // timeout, reset, refused: the request may or may not have been processed
	| 'server' // HTTP 5xx other than 502, 503, 504
	| 'notNow' // HTTP 502, 503 or 504 to a create: it may have been processed, so it is looked up
	| 'unavailable' // HTTP 429, 502, 503 or 504 for the client's patience: see retry.ts
	| 'auth' // HTTP 401 / 403
	| 'notFound' // HTTP 404 (but `04` where the caller accepts it)
	| 'unreadable' // an answer that is not the envelope: whether it was processed cannot be told
	| 'rejected'; // an envelope with a statusCode other than 00, or a 4xx without one

/**
 * The one error type the transport throws. It carries only what the service said
 * (HTTP status, envelope code and message), never the request, so no key can leak
 * into an error item, a log or the editor.
 */
export class VoucherApiError extends NodeApiError {
	readonly kind: FailureKind;

	readonly serviceCode?: string;

	/** The service's own words: may echo anything sent, so never shown unmasked. */
	readonly serviceMessage?: string;

	/** A 404's: what tells it from other 404s (see answerIdentity.ts). */
	readonly answerIdentity?: AnswerIdentity;

	constructor(
		node: INode,
		details: {
			kind: FailureKind;
			message: string;
			description?: string;
			httpCode?: number;
			serviceCode?: string;
			serviceMessage?: string;
			answerIdentity?: AnswerIdentity;
			itemIndex?: number;
		},
	) {
		const response: JsonObject = {
			message: details.message,
			...(details.serviceCode !== undefined ? { statusCode: details.serviceCode } : {}),
			...(details.serviceMessage ? { serviceMessage: details.serviceMessage } : {}),
		};
		super(node, response, {
			message: details.message,
			description: details.description,
			httpCode: details.httpCode !== undefined ? String(details.httpCode) : undefined,
			itemIndex: details.itemIndex,
		});
		keepMessage(this, details.message);
		this.kind = details.kind;
		this.serviceCode = details.serviceCode;
		this.serviceMessage = details.serviceMessage;
		this.answerIdentity = details.answerIdentity;
	}

	/**
	 * True when the request may have been processed although no answer arrived. A 429 is refused
	 * before processing; a gateway's 502, 503 or 504 may come after the service did the work.
	 */
	get outcomeUnknown(): boolean {
		if (this.kind === 'unavailable') return this.httpCode !== '429';
		return ['network', 'server', 'unreadable', 'notNow'].includes(this.kind);
	}
}

export function isVoucherApiError(error: unknown): error is VoucherApiError {
	return error instanceof VoucherApiError;
}

export type OperationErrorOptions = NonNullable<
	ConstructorParameters<typeof NodeOperationError>[2]
>;

/**
 * n8n's error classes replace a message that holds a Node.js error code, in any case, with
 * canned text: a Reference "preexisting-1" holds EEXIST, and its error would read "The file or
 * directory already exists". Our messages name the item and the Reference, so they are put
 * back, and the copy the rewrite kept in `messages` is dropped. A raw error that asNodeError
 * wraps is not ours, and keeps n8n's wording.
 */
export function keepMessage<E extends NodeApiError | NodeOperationError>(
	error: E,
	message: string,
): E {
	if (error.message === message) return error;
	const { messages } = error;
	if (messages[messages.length - 1] === message) messages.pop();
	error.message = message;
	return error;
}

/** A NodeOperationError with our own message, kept as written (see keepMessage). */
export function operationError(
	node: INode,
	message: string,
	options?: OperationErrorOptions,
): NodeOperationError {
	return keepMessage(new NodeOperationError(node, message, options), message);
}

/**
 * n8n's error classes for rethrowing: an error that already is one is kept as it is
 * (with its HTTP context), anything else becomes a NodeOperationError.
 */
export function asNodeError(node: INode, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error);
}
