import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';

import { eventInDialect, type Dialect } from './dialect.mts';
import { writeJson } from './http.mts';
import type { Scheduler } from './timers.mts';
import type { DeliveryAttempt, WebhookEvent, WebhookTarget } from './types.mts';

const MAX_ATTEMPTS = 5;
const FIRST_RETRY_DELAY_MS = 3 * 60_000;

/** Lowercase hex HMAC-SHA512 over the exact body bytes, keyed by the secret's UTF-8 bytes. */
export function sign(secret: string, body: string): string {
	return createHmac('sha512', Buffer.from(secret, 'utf8'))
		.update(Buffer.from(body, 'utf8'))
		.digest('hex');
}

/** Delay before attempt n (n >= 2): 3, 6, 12, 24 minutes, scaled by timeFactor. */
function retryDelayMs(attempt: number, timeFactor: number): number {
	return FIRST_RETRY_DELAY_MS * 2 ** (attempt - 2) * timeFactor;
}

export interface WebhookContext {
	targets(): readonly WebhookTarget[];
	dialect(): Dialect;
	timeFactor(): number;
	timeoutMs(): number;
	deliveries: DeliveryAttempt[];
	scheduler: Scheduler;
	log(line: string): void;
}

export interface Webhooks {
	emit(event: WebhookEvent, data: unknown): void;
	/** Forget in-flight attempts: their results must not land in a log that was just cleared. */
	forgetInFlight(): void;
	close(): Promise<void>;
}

interface Delivery {
	event: WebhookEvent;
	url: string;
	body: string;
	signature: string;
	copy: number;
}

function classify(status: number | null, attempt: number): DeliveryAttempt['outcome'] {
	if (status !== null && status >= 200 && status < 300) return 'delivered';
	// The spec retries 5xx, timeouts and connection errors; any other answer (400, 401, ...) is final.
	if (status !== null && (status < 500 || status > 599)) return 'rejected';
	return attempt < MAX_ATTEMPTS ? 'retry' : 'gave-up';
}

/** URLs may carry tokens in their query, so log lines show only origin and path. */
function printable(url: string): string {
	const u = new URL(url);
	return u.origin + u.pathname;
}

export function createWebhooks(ctx: WebhookContext): Webhooks {
	const agent = new Agent();
	let generation = 0;
	let closed = false;

	async function attempt(d: Delivery, n: number, delayMs: number): Promise<void> {
		const started = generation;
		let status: number | null = null;
		let error: string | null = null;
		try {
			const res = await request(d.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', signature: d.signature },
				body: d.body,
				dispatcher: agent,
				signal: AbortSignal.timeout(ctx.timeoutMs()),
			});
			status = res.statusCode;
			await res.body.dump();
		} catch (err) {
			// DOMException (the timeout) has a numeric code; undici's errors have string codes.
			const e = err as { code?: unknown; name?: string };
			if (status === null) error = typeof e.code === 'string' ? e.code : (e.name ?? String(err));
		}
		if (closed || started !== generation) return;
		const outcome = classify(status, n);
		ctx.deliveries.push({
			event: d.event,
			url: d.url,
			copy: d.copy,
			attempt: n,
			delayMs,
			status,
			error,
			outcome,
			time: new Date().toISOString(),
			body: d.body,
			signature: d.signature,
		});
		const next = retryDelayMs(n + 1, ctx.timeFactor());
		ctx.log(
			`webhook ${d.event} -> ${printable(d.url)} copy ${d.copy} attempt ${n}: ${status ?? error} ${outcome}` +
				(outcome === 'retry' ? ` (next in ${Math.round(next)} ms)` : ''),
		);
		if (outcome === 'retry') ctx.scheduler.after(next, () => void attempt(d, n + 1, next));
	}

	return {
		emit(event, data) {
			if (closed) return;
			// Serialised once: every copy and retry carries these very bytes.
			const body = writeJson(eventInDialect(event, data, ctx.dialect()));
			for (const target of ctx.targets()) {
				if (target.events && !target.events.includes(event)) continue;
				const signature = sign(target.secret, body);
				for (let copy = 1; copy <= (target.duplicates ?? 1); copy++) {
					void attempt({ event, url: target.url, body, signature, copy }, 1, 0);
				}
			}
		},
		forgetInFlight() {
			generation++;
		},
		async close() {
			closed = true;
			await agent.destroy();
		},
	};
}
