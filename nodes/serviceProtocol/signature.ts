import { createHmac, timingSafeEqual } from 'crypto';

import { readEvent, type WebhookEvent } from './events';
import { parseJson } from './numbers';

/*
 * Webhook signatures as the service defines them: HMAC-SHA512, keyed with the webhook
 * secret's UTF-8 bytes, over the raw body bytes, sent as hex in the `signature` header.
 * Kept free of n8n imports so the trigger, the Verify Signature action and the tests share
 * one implementation. Secrets may be Buffers only so RFC 4231's binary keys can be tested.
 */

type Secret = string | Buffer;

const SIGNATURE_HEX = /^[0-9a-f]{128}$/i;

export function signPayload(body: Buffer | string, secret: Secret): string {
	return createHmac('sha512', secret).update(body).digest('hex');
}

function isUsableSecret(secret: unknown): secret is Secret {
	return (typeof secret === 'string' || Buffer.isBuffer(secret)) && secret.length > 0;
}

/** Whether a header could be a signature at all; checked before any secret is read. */
export function hasSignatureShape(header: unknown): header is string {
	return typeof header === 'string' && SIGNATURE_HEX.test(header);
}

/**
 * Fails closed: anything but one well-formed header matching the exact body is `false`,
 * including a missing body or secret, a repeated header (array) and odd lengths.
 */
export function verifySignature(rawBody: unknown, header: unknown, secret: unknown): boolean {
	if (!Buffer.isBuffer(rawBody) || rawBody.length === 0) return false;
	if (!hasSignatureShape(header)) return false;
	if (!isUsableSecret(secret)) return false;

	const expected = createHmac('sha512', secret).update(rawBody).digest();
	return timingSafeEqual(Buffer.from(header, 'hex'), expected);
}

function hasControlCharacter(text: string): boolean {
	return Array.from(text).some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}

/**
 * Why a configured secret cannot be the dashboard's, or undefined when it could be. Only a
 * signed delivery proves it right. The message never repeats the secret.
 */
export function secretProblem(secret: unknown): string | undefined {
	if (typeof secret !== 'string' || secret.length === 0) return 'The webhook secret is empty.';
	if (secret.trim() !== secret) {
		return 'The webhook secret starts or ends with whitespace. Copy it again from the dashboard.';
	}
	if (hasControlCharacter(secret)) {
		return 'The webhook secret contains line breaks or control characters. Copy it again from the dashboard.';
	}
	return undefined;
}

export type Delivery =
	| { status: 'verified'; event: WebhookEvent }
	| { status: 'unauthorized' }
	| { status: 'malformed' };

function isJsonObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON object a body holds (long integers exact: parseJson), or undefined when its bytes are not one. */
export function parseJsonObject(rawBody: Buffer): Record<string, unknown> | undefined {
	try {
		const parsed: unknown = parseJson(rawBody.toString('utf8'));
		return isJsonObject(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The event is parsed from the verified bytes only, never from a body parsed earlier, and read
 * as the trigger reads it (readEvent).
 */
export function openDelivery(rawBody: unknown, header: unknown, secret: unknown): Delivery {
	if (!verifySignature(rawBody, header, secret)) return { status: 'unauthorized' };
	const body = parseJsonObject(rawBody as Buffer);
	const reading = body === undefined ? undefined : readEvent(body);
	return reading === undefined || 'unreadable' in reading
		? { status: 'malformed' }
		: { status: 'verified', event: reading.event };
}
