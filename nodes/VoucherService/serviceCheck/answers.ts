import type { ObservedAnswer } from '../transport/client';
import { asEnvelope, SUCCESS_CODE } from '../../serviceProtocol/api';
import { REQUEST_TIMEOUT_MS } from '../transport/client';
import {
	INTERACTIVE_PATIENCE_MS,
	isNotNow,
	MAX_RETRY_AFTER_MS,
	patienceInWords,
	REFUSAL_PATIENCE_MS,
} from '../transport/retry';
import type { CheckItem } from './types';

/*
 * What the service's answers showed beyond their data: error bodies, rate-limit headers and
 * answer times. Read from every attempt the check's reads made (retries included).
 */

/** Text shown as it came only when it is plain words: a body that names a key or a token must not reach the output. */
const PLAIN_WORDS = /^[A-Za-z][A-Za-z .,'!()-]{0,59}$/;

export const quoted = (text: string) =>
	PLAIN_WORDS.test(text.trim()) ? `"${text.trim()}"` : `(${text.length} characters, not shown)`;

function parsed(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

/** The envelope's data of an answer's body. */
export function dataOf(body: unknown): unknown {
	const value = parsed(body) as { data?: unknown } | null;
	return typeof value === 'object' && value !== null ? value.data : undefined;
}

const envelopeCode = (body: unknown): string | undefined => asEnvelope(body)?.statusCode;

/** An envelope's code and message (when it is text), as describeBody shows them. */
export function describeRefusal(code: string, message: unknown): string {
	const shownCode = /^\w{1,10}$/.test(code) ? `"${code}"` : quoted(code);
	return `code ${shownCode}${typeof message === 'string' ? `, message ${quoted(message)}` : ''}`;
}

/** A body in plain words: its shape, with only the parts that cannot be a secret. */
export function describeBody(body: unknown): string {
	const value = parsed(body);
	if (value === undefined || value === null || value === '') return 'an empty body';
	if (typeof value === 'string') return `the text ${quoted(value)}`;
	const code = envelopeCode(value);
	if (code !== undefined) {
		const { message } = value as { message?: unknown };
		return `a JSON envelope, ${describeRefusal(code, message)}`;
	}
	if (Array.isArray(value)) return 'a JSON list without the envelope';
	if (typeof value !== 'object') return `the JSON value ${quoted(String(value))}`;
	const keys = Object.keys(value).slice(0, 5).join(', ');
	return `JSON without the envelope (fields: ${keys || 'none'})`;
}

const isError = (answer: ObservedAnswer) =>
	answer.httpStatus !== undefined &&
	(answer.httpStatus >= 400 || (envelopeCode(answer.body) ?? SUCCESS_CODE) !== SUCCESS_CODE);

/** Statuses the transport reads by the status alone, whatever the body (see client.ts toEnvelope). */
const readByStatus = (http: number) =>
	http === 401 || http === 403 || http === 404 || isNotNow(http) || http >= 500;

/** The path as it can be shown: an order's reference is the check's own, made up. */
const where = (answer: ObservedAnswer) => `GET ${answer.path}`;

export function errorBodiesCheck(answers: ObservedAnswer[]): CheckItem {
	const errors = answers.filter(isError);
	const byBody = new Map<string, ObservedAnswer[]>();
	for (const answer of errors) {
		const body = `HTTP ${answer.httpStatus}, ${describeBody(answer.body)}`;
		byBody.set(body, [...(byBody.get(body) ?? []), answer]);
	}
	const described = [...byBody].map(([body, seen]) =>
		seen.length === 1 ? `${body} (${where(seen[0])})` : `${body} (${seen.length} answers)`,
	);
	const unreadable = errors.filter(
		(a) => !readByStatus(a.httpStatus!) && envelopeCode(a.body) === undefined,
	);
	const unseen = [401, 403, 500].filter((http) => !errors.some((a) => a.httpStatus === http));
	const notSeen =
		unseen.length > 0
			? ` Not seen: HTTP ${unseen.join(', ')} (the check makes no bad call on purpose).`
			: '';
	return {
		check: 'Error bodies',
		result: unreadable.length > 0 ? 'warning' : 'ok',
		seen: `${described.length > 0 ? `${described.join('; ')}.` : 'No error answer.'}${notSeen}`,
		whatThePackageDoes:
			'Reads HTTP 401, 403, 404, 429 and 5xx by their status, whatever the body. Other answers are read by the envelope: its code and message go into the error.' +
			(unreadable.length > 0
				? ' An answer with neither is not understood: after a create, its outcome counts as unknown and the order is looked up before anything is sent again.'
				: ''),
	};
}

/** How long a refused request is sent again, as the checks tell it. */
export const RESENT_FOR = `${patienceInWords(REFUSAL_PATIENCE_MS)} without an admission (${patienceInWords(INTERACTIVE_PATIENCE_MS)} for this check and the Template dropdown)`;

const RATE_LIMIT_HEADER = /^(retry-after|x-ratelimit-[\w-]+|ratelimit(-[\w-]+)?)$/i;

export function rateLimitCheck(answers: ObservedAnswer[]): CheckItem {
	const headers = new Map<string, string>();
	for (const answer of answers) {
		for (const [name, value] of Object.entries(answer.headers)) {
			if (RATE_LIMIT_HEADER.test(name)) headers.set(name.toLowerCase(), String(value).slice(0, 60));
		}
	}
	const refused = answers.flatMap(({ httpStatus }) =>
		httpStatus !== undefined && isNotNow(httpStatus) ? [httpStatus] : [],
	);
	const byStatus = [...new Set(refused)]
		.sort((a, b) => a - b)
		.map((http) => `${refused.filter((r) => r === http).length} HTTP ${http}`);
	const listed = [...headers].map(([name, value]) => `${name}: ${value}`).join('; ');
	const seen = [
		refused.length > 0
			? `${refused.length} of ${answers.length} answers were refusals: ${byStatus.join(', ')}.`
			: 'No refusal (HTTP 429, 502, 503 or 504).',
		headers.size > 0
			? `Rate-limit headers (last values): ${listed}.`
			: 'No rate-limit header (Retry-After, X-RateLimit-*, RateLimit-*).',
	].join(' ');
	return {
		check: 'Rate limits',
		result: refused.length > 0 ? 'warning' : 'ok',
		seen,
		whatThePackageDoes: `Slows down when the service refuses (429; a gateway's 502, 503 or 504 is paced the same) or struggles (other 5xx, slow answers), and waits as long as it asks, up to ${MAX_RETRY_AFTER_MS / 1000} s. A refused request is sent again for up to ${RESENT_FOR}; a create only in a way that cannot buy twice.`,
	};
}

function median(sorted: number[]): number {
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1
		? sorted[middle]
		: Math.round((sorted[middle - 1] + sorted[middle]) / 2);
}

export function answerTimesCheck(answers: ObservedAnswer[]): CheckItem {
	const answered = answers.filter((a) => a.httpStatus !== undefined);
	const timeout = `Waits up to ${REQUEST_TIMEOUT_MS / 1000} s for an answer; a create with no answer by then is looked up before it is sent again.`;
	if (answered.length === 0) {
		return {
			check: 'Answer times',
			result: 'failed',
			seen: 'No answer came.',
			whatThePackageDoes: timeout,
		};
	}
	const times = answered.map((a) => a.ms).sort((a, b) => a - b);
	const slowest = answered.reduce((a, b) => (b.ms > a.ms ? b : a));
	return {
		check: 'Answer times',
		result: slowest.ms >= REQUEST_TIMEOUT_MS / 2 ? 'warning' : 'ok',
		seen: `${answered.length} answers: median ${median(times)} ms, slowest ${slowest.ms} ms (${where(slowest)}).`,
		whatThePackageDoes: timeout,
	};
}
