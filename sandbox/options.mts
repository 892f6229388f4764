import { TEMPLATES } from './catalog.mts';
import { DEFAULT_DIALECT, dialectProblem, resolveDialect } from './dialect.mts';
import type { Dialect } from './dialect.mts';
import type {
	CreateBarrier,
	FaultOptions,
	GatewayFault,
	RateLimitOptions,
	SandboxOptions,
	WebhookTarget,
} from './types.mts';

/** The create barrier is not kept here: it fires once, and barrier.mts holds its state. */
export type ResolvedOptions = Required<
	Omit<SandboxOptions, 'faults' | 'dialect' | 'createBarrier'>
> & {
	faults: FaultOptions;
	dialect: Dialect;
};

export const DEFAULT_OPTIONS: ResolvedOptions = Object.freeze({
	host: '127.0.0.1',
	port: 0,
	timeFactor: 1,
	processingDelayMs: 1500,
	latencyMs: 0,
	rateLimitPerSecond: 0,
	rateLimit: null,
	acceptDuplicateReferences: false,
	faults: {},
	gatewayNotFound: [],
	phantomOrders: false,
	gatewayNotFoundBody: 'html',
	gatewayNotFoundOnceMade: false,
	echoAuthorization: null,
	webhooks: [],
	dialect: DEFAULT_DIALECT,
	templates: TEMPLATES.map(({ id, name, screenshotUrl }) => ({ id, name, screenshotUrl })),
	initialBalanceNgn: 50_000_000,
	walletCurrencies: ['NGN', 'USD'],
	deliveryTimeoutMs: 10_000,
	log: () => {},
});

/** A bad option; the admin endpoint answers it with 400. */
export class OptionError extends Error {}

function check(ok: boolean, message: string): void {
	if (!ok) throw new OptionError(message);
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown, min: number, max = Number.MAX_SAFE_INTEGER) =>
	isNumber(v) && Number.isInteger(v) && v >= min && v <= max;

const RATES = [
	'errorRate',
	'resetRate',
	'commitThenDropRate',
	'commitThen500Rate',
	'rateLimitRate',
] as const;

function checkFaults(f: FaultOptions): void {
	check(typeof f === 'object' && f !== null, 'faults must be an object');
	for (const key of Object.keys(f))
		check(
			[...RATES, 'retryAfterSeconds', 'seed', 'drawBy', 'paths', 'gateway'].includes(key),
			`unknown fault option ${key}`,
		);
	for (const rate of RATES)
		check(
			f[rate] === undefined || (isNumber(f[rate]) && f[rate] >= 0 && f[rate] <= 1),
			`faults.${rate} must be in [0, 1]`,
		);
	check(
		f.retryAfterSeconds === undefined || isInt(f.retryAfterSeconds, 0),
		'faults.retryAfterSeconds must be an integer >= 0',
	);
	check(
		f.seed === undefined || isInt(f.seed, 0, 2 ** 32 - 1),
		'faults.seed must be an integer in [0, 2^32)',
	);
	check(
		f.paths === undefined ||
			(Array.isArray(f.paths) && f.paths.every((p) => typeof p === 'string')),
		'faults.paths must be an array of strings',
	);
	check(
		f.drawBy === undefined || f.drawBy === 'sequence' || f.drawBy === 'request',
		'faults.drawBy must be "sequence" or "request"',
	);
	check(
		f.gateway === undefined || isGateway(f.gateway),
		'faults.gateway must be { status: 404 | 429 | 500 | 502 | 503 | 504, count?: integer >= 0, skip?: integer >= 0, method?: string, afterCommit?: boolean, body?: html | text | json }',
	);
}

function isGateway(v: unknown): boolean {
	const g = v as GatewayFault;
	return (
		typeof g === 'object' &&
		g !== null &&
		Object.keys(g).every((key) =>
			['status', 'count', 'skip', 'method', 'afterCommit', 'body'].includes(key),
		) &&
		[404, 429, 500, 502, 503, 504].includes(g.status) &&
		(g.count === undefined || isInt(g.count, 0)) &&
		(g.skip === undefined || isInt(g.skip, 0)) &&
		(g.method === undefined || typeof g.method === 'string') &&
		(g.afterCommit === undefined || typeof g.afterCommit === 'boolean') &&
		(g.body === undefined || ['html', 'text', 'json'].includes(g.body))
	);
}

function isCreateBarrier(v: unknown): boolean {
	const b = v as CreateBarrier;
	return (
		typeof b === 'object' &&
		b !== null &&
		Object.keys(b).every((key) => ['creates', 'reference', 'timeoutMs'].includes(key)) &&
		isInt(b.creates, 1) &&
		(b.reference === undefined || (typeof b.reference === 'string' && b.reference.length > 0)) &&
		(b.timeoutMs === undefined || (isNumber(b.timeoutMs) && b.timeoutMs > 0))
	);
}

function isRateLimit(v: unknown): boolean {
	const r = v as RateLimitOptions;
	const keys = ['kind', 'requests', 'seconds', 'signal', 'method'];
	if (r?.kind === 'leakyBucket') keys.push('burst', 'status');
	return (
		typeof r === 'object' &&
		r !== null &&
		Object.keys(r).every((key) => keys.includes(key)) &&
		['tokenBucket', 'fixedWindow', 'leakyBucket'].includes(r.kind) &&
		isNumber(r.requests) &&
		r.requests > 0 &&
		isNumber(r.seconds) &&
		r.seconds > 0 &&
		['retryAfter', 'xRateLimit', 'rateLimit', 'none'].includes(r.signal) &&
		(r.burst === undefined || isInt(r.burst, 0)) &&
		(r.status === undefined || r.status === 429 || r.status === 503) &&
		(r.method === undefined || r.method === 'GET' || r.method === 'POST')
	);
}

/** One limit, or a non-empty list of them, one per route. */
const isRateLimits = (v: unknown) =>
	Array.isArray(v) ? v.length > 0 && v.every(isRateLimit) : isRateLimit(v);

function checkWebhook(t: WebhookTarget, i: number): void {
	check(typeof t === 'object' && t !== null, `webhooks[${i}] must be an object`);
	check(
		typeof t.url === 'string' && /^https?:\/\/[^/]/.test(t.url) && URL.canParse(t.url),
		`webhooks[${i}].url must be an http(s) URL`,
	);
	check(
		typeof t.secret === 'string' && t.secret.length > 0,
		`webhooks[${i}].secret must be a non-empty string`,
	);
	check(
		t.events === undefined ||
			(Array.isArray(t.events) &&
				t.events.every((e) => e === 'ORDER_UPDATED' || e === 'VOUCHER_UPDATED')),
		`webhooks[${i}].events must list ORDER_UPDATED and/or VOUCHER_UPDATED`,
	);
	check(
		t.duplicates === undefined || isInt(t.duplicates, 1, 100),
		`webhooks[${i}].duplicates must be an integer in [1, 100]`,
	);
}

/**
 * Validates every key of the patch (unknown keys too, to catch typos in admin calls) and returns
 * the merged options. A dialect is merged over the defaults, not over the current dialect, so
 * one patch always names the whole deviation.
 */
export function applyOptions(
	current: ResolvedOptions,
	patch: Partial<SandboxOptions>,
): ResolvedOptions {
	check(
		typeof patch === 'object' && patch !== null && !Array.isArray(patch),
		'options must be an object',
	);
	for (const [key, v] of Object.entries(patch)) {
		if (v === undefined) continue;
		switch (key) {
			case 'host':
				check(typeof v === 'string' && v.length > 0, 'host must be a non-empty string');
				break;
			case 'port':
				check(isInt(v, 0, 65535), 'port must be an integer in [0, 65535]');
				break;
			case 'timeFactor':
				check(isNumber(v) && v > 0, 'timeFactor must be a number > 0');
				break;
			case 'processingDelayMs':
			case 'latencyMs':
			case 'rateLimitPerSecond':
			case 'initialBalanceNgn':
				check(isNumber(v) && v >= 0, `${key} must be a number >= 0`);
				break;
			case 'rateLimit':
				check(
					v === null || isRateLimits(v),
					'rateLimit must be null, or one or a non-empty list of { kind: tokenBucket | fixedWindow | leakyBucket, requests > 0, seconds > 0, signal: retryAfter | xRateLimit | rateLimit | none, method?: GET | POST }, a leakyBucket with burst (integer >= 0) and status (429 | 503)',
				);
				break;
			case 'createBarrier':
				check(
					v === null || isCreateBarrier(v),
					'createBarrier must be null or { creates: integer >= 1, reference?: non-empty string, timeoutMs?: number > 0 }',
				);
				break;
			case 'acceptDuplicateReferences':
				check(typeof v === 'boolean', 'acceptDuplicateReferences must be a boolean');
				break;
			case 'deliveryTimeoutMs':
				check(isNumber(v) && v > 0, 'deliveryTimeoutMs must be a number > 0');
				break;
			case 'dialect': {
				const problem = dialectProblem(v);
				check(problem === null, problem ?? '');
				break;
			}
			case 'faults':
				checkFaults(v as FaultOptions);
				break;
			case 'webhooks':
				check(Array.isArray(v), 'webhooks must be an array');
				(v as WebhookTarget[]).forEach(checkWebhook);
				break;
			case 'templates':
				check(Array.isArray(v), 'templates must be an array');
				break;
			case 'echoAuthorization':
				check(
					v === null || v === 'text' || v === 'envelope',
					'echoAuthorization must be null, "text" or "envelope"',
				);
				break;
			case 'gatewayNotFoundOnceMade':
				check(typeof v === 'boolean', `${key} must be true or false`);
				break;
			case 'phantomOrders':
				check(
					typeof v === 'boolean' || (Array.isArray(v) && v.every((r) => typeof r === 'string')),
					'phantomOrders must be true, false or an array of References',
				);
				break;
			case 'gatewayNotFound':
				check(
					Array.isArray(v) && v.every((text) => typeof text === 'string' && text.length > 0),
					'gatewayNotFound must be an array of non-empty strings',
				);
				break;
			case 'gatewayNotFoundBody':
				check(v === 'html' || v === 'json', 'gatewayNotFoundBody must be "html" or "json"');
				break;
			case 'walletCurrencies':
				check(
					Array.isArray(v) && v.every((c) => typeof c === 'string'),
					'walletCurrencies must be an array of strings',
				);
				break;
			case 'log':
				check(typeof v === 'function', 'log must be a function');
				break;
			default:
				throw new OptionError(`unknown option ${key}`);
		}
	}
	const defined = Object.fromEntries(
		Object.entries(patch).filter(([key, v]) => v !== undefined && key !== 'createBarrier'),
	);
	const merged = { ...current, ...defined };
	if (patch.dialect !== undefined) merged.dialect = resolveDialect(patch.dialect);
	return merged;
}
