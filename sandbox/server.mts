import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { routeAdmin } from './admin.mts';
import { createGate, isCreate } from './barrier.mts';
import { authenticate } from './auth.mts';
import { FORBIDDEN_KEYS, SANDBOX_KEYS, SEED_VOUCHERS, findProduct } from './catalog.mts';
import { createFaultRoller, gatewayReply } from './faults.mts';
import { json, parseBody, readBody, send, text } from './http.mts';
import type { Reply } from './http.mts';
import { openLedger } from './ledger.mts';
import { DEFAULT_OPTIONS, OptionError, applyOptions } from './options.mts';
import { createRateLimiters } from './rateLimit.mts';
import { createIssuer, maskCode, orderEventData, settleOrder } from './orders.mts';
import { errorReply, routeApi } from './routes.mts';
import { inDialect } from './dialect.mts';
import { createScheduler } from './timers.mts';
import type {
	RequestLogEntry,
	SandboxOptions,
	SandboxOrder,
	SandboxState,
	Serial,
} from './types.mts';
import { createWebhooks } from './webhooks.mts';

export type * from './types.mts';
export { PRODUCT_CODES, SEED_VOUCHERS } from './catalog.mts';
export { DIALECT_VALUES, DIALECTS } from './dialect.mts';
export { sign } from './webhooks.mts';

export interface Sandbox {
	url: string;
	keys: { publicKey: string; secretKey: string };
	forbiddenKeys: { publicKey: string; secretKey: string };
	state: SandboxState;
	configure(patch: Partial<SandboxOptions>): void;
	reset(): void;
	emitVoucherUpdate(serial: Serial, newBalance: number): void;
	close(): Promise<void>;
}

const INTERNAL_ERROR: Reply = text(500, 'Internal Server Error');
/** Get Order's path (templates excepted), answered by `phantomOrders` with an order naming no Reference. */
const PHANTOM_PATH = /^\/v2\/orders\/(?!templates$)([^/]+)$/;
const PHANTOM_ORDER = { orderNumber: 'SBX-PHANTOM', status: 'FAILED', vouchers: null };
const isPhantom = (phantom: boolean | string[] | undefined, path: string) => {
	const reference = PHANTOM_PATH.exec(path)?.[1];
	if (reference === undefined) return false;
	return Array.isArray(phantom)
		? phantom.includes(decodeURIComponent(reference))
		: phantom === true;
};

const GATEWAY_NOT_FOUND: Record<'html' | 'json', Reply> = {
	html: {
		...text(
			404,
			'<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>',
		),
		headers: { 'content-type': 'text/html' },
	},
	json: json(404, { message: 'no Route matched with those values' }),
};

/** The dialect's rate limit: tight enough that a run's first burst is refused, with nothing to learn from but timing. */
const DIALECT_RATE_LIMIT = {
	kind: 'fixedWindow',
	requests: 10,
	seconds: 1,
	signal: 'none',
} as const;

/** The Authorization header in every form a careless service might repeat it (see echoAuthorization). */
function credentialEcho(header: string): string {
	const pair = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
	const colon = pair.indexOf(':');
	const keys = [pair.slice(0, colon), pair.slice(colon + 1)];
	const base64 = (key: string) => Buffer.from(key, 'utf8').toString('base64');
	return `Bad request: keys ${keys.map(base64).join(' ')} ${keys.map(encodeURIComponent).join(' ')}, query ${encodeURIComponent(header)}, header ${header}, user ${pair}`;
}

/** Voucher codes travel in the status path; log lines keep only its first segments. */
const loggablePath = (path: string) => path.split('/').slice(0, 4).join('/');

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	let opts = applyOptions(DEFAULT_OPTIONS, options);
	let rollFault = createFaultRoller(opts.faults);
	// The limiter a request of a method counts against, if any.
	const limiter = () =>
		opts.rateLimit
			? createRateLimiters(opts.rateLimit)
			: opts.rateLimitPerSecond > 0
				? createRateLimiters({
						kind: 'tokenBucket',
						requests: opts.rateLimitPerSecond,
						seconds: 1,
						signal: 'retryAfter',
					})
				: opts.dialect.rateLimit === 'fixedWindowNoHints'
					? createRateLimiters(DIALECT_RATE_LIMIT)
					: () => undefined;
	let rateLimiterFor = limiter();
	const gate = createGate();
	/** Orders still PROCESSING: when each was committed, and how to cancel its settling. */
	const processing = new Map<SandboxOrder, { committedAt: number; cancel: () => void }>();
	const state: SandboxState = {
		requests: [],
		orders: new Map(),
		ledger: [],
		deliveries: [],
		vouchers: new Map(),
	};
	const issuer = createIssuer(() => opts.dialect);
	const scheduler = createScheduler();
	const log = (line: string) => opts.log(line);
	const webhooks = createWebhooks({
		targets: () => opts.webhooks,
		dialect: () => opts.dialect,
		timeFactor: () => opts.timeFactor,
		timeoutMs: () => opts.deliveryTimeoutMs,
		deliveries: state.deliveries,
		scheduler,
		log,
	});

	// Cleared in place: callers may hold references to state's collections.
	function reset(): void {
		gate.refuseHeld('Sandbox createBarrier: the sandbox was reset; nothing was committed');
		scheduler.cancelAll();
		processing.clear();
		webhooks.forgetInFlight();
		state.requests.length = 0;
		state.deliveries.length = 0;
		state.orders.clear();
		state.vouchers.clear();
		for (const seed of SEED_VOUCHERS) {
			state.vouchers.set(seed.code, {
				...seed,
				balance: seed.value,
				orderNumber: 'SBX-ORD-000000',
				email: null,
			});
		}
		openLedger(state.ledger, opts.initialBalanceNgn);
	}

	function configure(patch: Partial<SandboxOptions>): void {
		if (patch && ('host' in patch || 'port' in patch))
			throw new OptionError('host and port cannot change at runtime');
		opts = applyOptions(opts, patch);
		if (patch.createBarrier !== undefined) gate.set(patch.createBarrier);
		// A new delay applies to orders already PROCESSING too, counted from their commit: a
		// test holds orders PROCESSING as long as it needs, then settles them with 0.
		if (patch.processingDelayMs !== undefined) {
			for (const [order, { committedAt, cancel }] of [...processing]) {
				cancel();
				scheduleSettling(order, committedAt);
			}
		}
		if (patch.faults !== undefined) rollFault = createFaultRoller(opts.faults);
		if (
			patch.rateLimitPerSecond !== undefined ||
			patch.rateLimit !== undefined ||
			patch.dialect !== undefined
		)
			rateLimiterFor = limiter();
	}

	function settle(order: SandboxOrder): void {
		processing.delete(order);
		settleOrder(state, issuer, order, findProduct(order.productCode)!.outcome);
		log(`order ${order.orderNumber} ${order.status}`);
		webhooks.emit('ORDER_UPDATED', orderEventData(order));
	}

	/** Settles `order` processingDelayMs after its commit; at once when that is past. */
	function scheduleSettling(order: SandboxOrder, committedAt: number): void {
		const due = committedAt + opts.processingDelayMs - performance.now();
		if (due <= 0) return settle(order);
		processing.set(order, { committedAt, cancel: scheduler.after(due, () => settle(order)) });
	}

	function onCommitted(order: SandboxOrder): void {
		if (order.status === 'PROCESSING') scheduleSettling(order, performance.now());
	}

	function emitVoucherUpdate(serial: Serial, newBalance: number): void {
		const voucher = [...state.vouchers.values()].find((v) => v.serial === serial);
		if (!voucher) throw new Error(`No voucher with serial ${serial}`);
		voucher.balance = newBalance;
		// A balance change can use a voucher up or bring it back; expired and invalid ones stay so.
		if (voucher.state === 'ACTIVE' || voucher.state === 'USED')
			voucher.state = newBalance > 0 ? 'ACTIVE' : 'USED';
		webhooks.emit('VOUCHER_UPDATED', {
			orderNumber: voucher.orderNumber,
			voucherCode: maskCode(voucher.code),
			serialNumber: voucher.serial,
			balance: newBalance,
			email: voucher.email,
		});
	}

	async function handleApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
		const method = req.method ?? 'GET';
		const { value: body, isJson } = parseBody(await readBody(req));
		const entry: RequestLogEntry = {
			seq: state.requests.length + 1,
			method,
			path,
			body: body ?? null,
			publicKey: null,
			client: [req.headers['x-sandbox-client']].flat()[0] ?? null,
			status: null,
			statusCode: null,
			fault: null,
			time: new Date().toISOString(),
		};
		state.requests.push(entry);
		let limitHeaders: Record<string, string> = {};
		const finish = (answer: Reply | null) => {
			const reply =
				answer?.json === undefined
					? answer
					: { ...answer, json: inDialect(answer.json, opts.dialect) };
			if (reply === null) {
				req.socket.destroy();
			} else {
				entry.status = reply.status;
				entry.statusCode = (reply.json as { statusCode?: string } | undefined)?.statusCode ?? null;
				send(res, { ...reply, headers: { ...reply.headers, ...limitHeaders } });
			}
			log(
				`${method} ${loggablePath(path)} -> ${entry.status ?? 'dropped'} ${entry.statusCode ?? ''}`.trimEnd(),
			);
		};

		if (opts.latencyMs > 0) await sleep(opts.latencyMs);
		const held = isCreate(method, path)
			? gate.admit((body as { reference?: unknown } | undefined)?.reference)
			: null;
		const barrierRefusal = held && (await held);
		if (barrierRefusal) {
			entry.fault = 'barrier';
			return finish(json(400, { statusCode: '05', message: barrierRefusal }));
		}
		const rateLimiter = rateLimiterFor(method);
		if (rateLimiter) {
			const { admitted, headers } = rateLimiter.admit();
			limitHeaders = headers;
			if (!admitted) return finish(rateLimiter.refusal);
		}
		const reference = (body as { reference?: unknown } | null)?.reference;
		const fault = rollFault(path, method, typeof reference === 'string' ? reference : '');
		entry.fault = fault;
		const gateway = opts.faults.gateway;
		if (fault === 'gateway' && gateway) return finish(gatewayReply(gateway));
		if (fault === 'rateLimit') {
			return finish(
				text(429, 'Too Many Requests', {
					'retry-after': String(opts.faults.retryAfterSeconds ?? 1),
				}),
			);
		}
		const internalError = errorReply(opts.dialect, 500, 'Internal Server Error');
		if (fault === 'error') return finish(internalError);
		if (fault === 'reset') return finish(null);

		if (opts.echoAuthorization !== null) {
			const words = credentialEcho(req.headers.authorization ?? '');
			return finish(
				opts.echoAuthorization === 'text'
					? text(400, words)
					: json(400, { statusCode: '05', message: words }),
			);
		}

		const identity = authenticate(req.headers.authorization);
		entry.publicKey = identity.publicKey;
		if (identity.access === 'none')
			return finish(
				errorReply(opts.dialect, 401, 'Unauthorized', {
					'www-authenticate': 'Basic realm="sandbox"',
				}),
			);
		if (identity.access === 'forbidden') return finish(errorReply(opts.dialect, 403, 'Forbidden'));

		if (method === 'GET' && isPhantom(opts.phantomOrders, path))
			return finish(json(200, { data: PHANTOM_ORDER, statusCode: '00', message: 'Successful' }));
		const reply = routeApi(
			{
				state,
				issuer,
				dialect: () => opts.dialect,
				acceptDuplicateReferences: () => opts.acceptDuplicateReferences,
				templates: () => opts.templates,
				walletCurrencies: () => opts.walletCurrencies,
				onCommitted,
			},
			{ method, path, body, isJson },
		);
		if (fault === 'commitThenDrop') return finish(null);
		if (fault === 'gatewayAfterCommit' && gateway) return finish(gatewayReply(gateway));
		finish(fault === 'commitThen500' ? internalError : reply);
	}

	/** Under gatewayNotFoundOnceMade, only a path naming an order that exists. */
	function gatewayInTheWay(path: string): boolean {
		if (!opts.gatewayNotFoundOnceMade) return true;
		const reference = PHANTOM_PATH.test(path) ? path.slice(path.lastIndexOf('/') + 1) : '';
		try {
			return state.orders.has(decodeURIComponent(reference));
		} catch {
			return false;
		}
	}

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const path = (req.url ?? '/').split('?')[0];
		if (path.startsWith('/__sandbox/')) {
			const { value } = parseBody(await readBody(req));
			return send(res, routeAdmin(sandbox, req.method ?? 'GET', path, value));
		}
		if (opts.gatewayNotFound.some((text) => path.includes(text)) && gatewayInTheWay(path))
			return send(res, GATEWAY_NOT_FOUND[opts.gatewayNotFoundBody]);
		if (path === '/v2' || path.startsWith('/v2/')) return handleApi(req, res, path);
		send(res, text(404, 'Not Found'));
	}

	const sandbox: Sandbox = {
		url: '',
		keys: { ...SANDBOX_KEYS },
		forbiddenKeys: { ...FORBIDDEN_KEYS },
		state,
		configure,
		reset,
		emitVoucherUpdate,
		async close() {
			gate.refuseHeld('Sandbox createBarrier: the sandbox closed; nothing was committed');
			scheduler.cancelAll();
			await webhooks.close();
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await closed;
		},
	};
	reset();
	if (options.createBarrier !== undefined) gate.set(options.createBarrier);
	const server = createServer((req, res) => {
		handle(req, res).catch((err: unknown) => {
			log(`internal error: ${err instanceof Error ? err.message : String(err)}`);
			if (!res.headersSent && !res.destroyed) send(res, INTERNAL_ERROR);
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(opts.port, opts.host, () => resolve());
	});
	const { port } = server.address() as AddressInfo;
	const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
	sandbox.url = `http://${host}:${port}`;
	log(`sandbox listening on ${sandbox.url}`);
	return sandbox;
}
