import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	INode,
} from 'n8n-workflow';

import { AdaptiveConcurrency } from './adaptiveConcurrency';
import { answerIdentity } from './answerIdentity';
import { asNodeError, VoucherApiError } from './errors';
import { readRateHints } from './rateHints';
import { joinPaces, paceKey } from './sharedPaces';
import {
	backoffDelay,
	isNotNow,
	patienceInWords,
	READ_RETRY,
	RefusalClock,
	REFUSAL_PATIENCE_MS,
	wait,
} from './retry';
import { asEnvelope, SUCCESS_CODE } from '../../serviceProtocol/api';
import type { Envelope } from '../../serviceProtocol/api';
import { API_CREDENTIAL } from '../../serviceProtocol/credentials';
import { parseJson } from '../../serviceProtocol/numbers';

export interface ApiCall {
	method: IHttpRequestMethods;
	/** Path under the base URL, already URL-encoded, e.g. `/v2/orders/ABC%201`. */
	path: string;
	body?: IDataObject;
	itemIndex?: number;
	/** Envelope codes the caller handles itself (e.g. `04` on Get Order) instead of an error. */
	acceptCodes?: string[];
	/** What to say when the service answers HTTP 404. */
	notFoundMessage?: string;
	/** The order a create is for: a refusal names it and the item. */
	reference?: string;
	/** Sent beside the pacing's current limit (see AdaptiveConcurrency.acquire). */
	burst?: boolean;
}

/**
 * One attempt as Service → Check sees it: what came back, never what was sent, so no key.
 * `httpStatus` is absent when no answer came.
 */
export interface ObservedAnswer {
	path: string;
	httpStatus?: number;
	headers: Record<string, unknown>;
	body: unknown;
	ms: number;
}

interface HttpResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

type ApiContext = IExecuteFunctions | ILoadOptionsFunctions;

export const REQUEST_TIMEOUT_MS = 60_000;

/*
 * Plain words for socket errors. The raw code stays out of the message because n8n
 * replaces any message naming one with its own generic text.
 */
const NETWORK_REASONS: Record<string, string> = {
	ECONNRESET: 'connection reset',
	ECONNREFUSED: 'connection refused',
	ECONNABORTED: 'timed out',
	ETIMEDOUT: 'timed out',
	ENOTFOUND: 'host not found',
	EAI_AGAIN: 'host not found',
	EPIPE: 'connection closed',
};

/** What each "not now" status says (see isNotNow), in the words of its reason phrase. */
const NOT_NOW_REASONS: Record<number, string> = {
	429: 'rate limited',
	502: 'bad gateway',
	503: 'unavailable',
	504: 'gateway timeout',
};

/**
 * The only code that talks HTTP to the service. Every request goes through
 * httpRequestWithAuthentication so n8n's proxy, TLS and credential handling apply,
 * and every answer is turned into the envelope or one VoucherApiError.
 */
export class VoucherApiClient {
	private settings?: Promise<{
		baseUrl: string;
		credentials: ICredentialsDecrypted;
	}>;

	/** One per node execution: every item's look-ups, retries and creates share it. */
	private readonly pacing: AdaptiveConcurrency;

	/** The patience of this execution's requests, shared like the pacing. */
	private readonly refusals = new RefusalClock();

	/** Taken once: n8n-core deep-copies the node on every getNode(). */
	readonly node: INode;

	/** Every form of the credential's keys (see credentialForms), to strip from any text of the service's that an error repeats. */
	private keys: string[] = [];

	/** Whether this execution's pacing is shared (see sharePacing). */
	private sharing = false;

	/** Leaves the shared paces, once joined. */
	private leavePaces?: () => void;

	/** Told of every attempt; only Service → Check listens, on a client of its own. */
	observe?: (answer: ObservedAnswer) => void;

	constructor(
		private readonly context: ApiContext,
		maxConcurrency = 1,
		/** How long requests of a method may go without an admission: see retry.ts. */
		private readonly patienceMs = REFUSAL_PATIENCE_MS,
	) {
		this.pacing = new AdaptiveConcurrency(maxConcurrency);
		this.node = context.getNode();
	}

	/**
	 * Paces this execution's requests with those of the executions at once on the same account
	 * (see sharedPaces.ts), from its first request; call what it returns when the execution ends.
	 */
	sharePacing(): () => void {
		this.sharing = true;
		return () => this.leavePaces?.();
	}

	/** Read once, on first use: operations that never call the API need no API credential. */
	private async credentialSettings() {
		this.settings ??= this.context.getCredentials(API_CREDENTIAL).then((data) => {
			const reference = this.node.credentials?.[API_CREDENTIAL];
			this.keys = credentialForms(String(data.publicKey ?? ''), String(data.secretKey ?? ''));
			const baseUrl = String(data.baseUrl ?? '')
				.trim()
				.replace(/\/+$/, '');
			if (this.sharing) {
				const joined = joinPaces(paceKey(baseUrl, String(data.publicKey ?? '')), Date.now);
				this.pacing.sharePaces(joined.paces);
				this.leavePaces = joined.leave;
			}
			return {
				// Handed to every request so n8n does not read and decrypt the credential again.
				credentials: {
					id: reference?.id ?? '',
					name: reference?.name ?? '',
					type: API_CREDENTIAL,
					data,
				},
				baseUrl,
			};
		});
		return await this.settings;
	}

	/**
	 * One attempt. Resolves with the envelope for any enveloped answer, throws otherwise.
	 * "Not now" (see isNotNow) is sent again after the pacing's wait, using up no attempt, until
	 * requests of its method have gone the patience without an admission:
	 * - a read on any of them: reading again changes nothing;
	 * - a create only on a 429, which a limiter answers before anything is processed, so the
	 *   create is still to be made. A 502 or 504 may come after the service bought the order (a
	 *   gateway's timeout, an upstream that broke off while answering), so it is thrown as
	 *   'notNow' for the caller to look the order up before sending it again. So is a 503:
	 *   nginx's limit_req answers it before processing, but proxies answer it too when their
	 *   upstream broke off, and the spec shows neither, so the safe reading wins, at the cost
	 *   of one look-up per refused create.
	 */
	async send(call: ApiCall): Promise<Envelope> {
		for (;;) {
			const response = await this.sendOnce(call);
			const http = response.statusCode;
			if (!isNotNow(http)) {
				if (http < 500) this.refusals.admitted(call.method);
				return this.toEnvelope(response, call);
			}
			if (this.refusals.refused(call.method) >= this.patienceMs)
				throw this.notNowError('unavailable', http, call);
			if (call.method !== 'GET' && http !== 429) throw this.notNowError('notNow', http, call);
		}
	}

	private async sendOnce(call: ApiCall): Promise<HttpResponse> {
		const { baseUrl, credentials } = await this.credentialSettings();
		const slot = await this.pacing.acquire(call.burst, call.method);
		const started = Date.now();
		let response: HttpResponse;
		try {
			response = (await this.context.helpers.httpRequestWithAuthentication.call(
				this.context,
				API_CREDENTIAL,
				{
					method: call.method,
					url: `${baseUrl}${call.path}`,
					body: call.body,
					// Sent as JSON, asking for JSON, as before; the answer comes back as text (n8n
					// 1.85 to 2.41 make `encoding` axios's responseType), for readAnswerBody to
					// read its long integers exactly.
					json: true,
					encoding: 'text',
					timeout: REQUEST_TIMEOUT_MS,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
				},
				{ credentialsDecrypted: credentials },
			)) as HttpResponse;
		} catch (error) {
			this.pacing.release(slot, { overloaded: true, unanswered: true });
			this.observe?.({ path: call.path, headers: {}, body: undefined, ms: Date.now() - started });
			throw this.networkError(error, call);
		}
		response.body = readAnswerBody(response.body);
		const http = response.statusCode;
		this.observe?.({
			path: call.path,
			httpStatus: http,
			headers: response.headers ?? {},
			body: response.body,
			ms: Date.now() - started,
		});
		this.pacing.release(slot, {
			overloaded: http >= 500,
			refused: isNotNow(http),
			hints: readRateHints(response.headers),
		});
		return response;
	}

	/** A read: sends, unwraps `00` to its data, and retries on transient failures. */
	async request<T>(call: ApiCall & { method: 'GET' }): Promise<T> {
		for (let attempt = 1; ; attempt++) {
			try {
				return (await this.send(call)).data as T;
			} catch (error) {
				// 'unavailable' has waited out the patience already: a retry would be refused again.
				const retriable =
					error instanceof VoucherApiError && error.outcomeUnknown && error.kind !== 'unavailable';
				if (!retriable || attempt >= READ_RETRY.attempts) {
					throw asNodeError(this.node, error);
				}
				await wait(backoffDelay(READ_RETRY, attempt));
			}
		}
	}

	private toEnvelope(response: HttpResponse, call: ApiCall): Envelope {
		const { statusCode: http } = response;
		const envelope = asEnvelope(response.body);
		const itemIndex = call.itemIndex;
		const fail = (details: Omit<ConstructorParameters<typeof VoucherApiError>[1], 'itemIndex'>) =>
			new VoucherApiError(this.node, { ...details, itemIndex });

		if (http === 401) {
			throw fail({
				kind: 'auth',
				httpCode: 401,
				message: 'The voucher service refused the credentials (HTTP 401)',
				description:
					'Check the public key, the secret key and the base URL in the Voucher Service API credential.',
			});
		}
		if (http === 403) {
			throw fail({
				kind: 'auth',
				httpCode: 403,
				message: 'The voucher service denied permission for this call (HTTP 403)',
				description:
					'The keys are valid but not allowed to do this. Ask the account owner to grant the permission in the business dashboard.',
			});
		}
		if (http >= 500) {
			throw fail({
				kind: 'server',
				httpCode: http,
				message: `The voucher service had an internal error (HTTP ${http})`,
				description: 'This is a problem on the service side. Try again later.',
			});
		}
		const accepted = envelope && call.acceptCodes?.includes(envelope.statusCode);
		// A 404 is "not found" whatever its body (text, or an envelope with the service's own
		// code), unless the caller reads that code itself (`04` on Get Order). What identifies
		// it is kept: the order look-up tells the order route's 404 from a gateway's by it.
		if (http === 404 && !accepted) {
			const body =
				typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
			throw fail({
				kind: 'notFound',
				httpCode: 404,
				serviceMessage: this.serviceText(body),
				answerIdentity: answerIdentity(response, call.path, (text) => this.withoutKeys(text)),
				message: call.notFoundMessage ?? 'The voucher service answered: not found (HTTP 404)',
			});
		}
		if (!envelope) {
			// A 4xx says the request was not acted on (a used Reference answered 409, say), so it
			// is a refusal, not an unclear outcome; only its body is not the envelope.
			if (http >= 400) {
				const text = this.serviceText(typeof response.body === 'string' ? response.body : '');
				throw fail({
					kind: 'rejected',
					httpCode: http,
					serviceMessage: text || undefined,
					message: `${refused(call)}: ${text || 'no message'} (HTTP ${http})`,
				});
			}
			throw fail({
				kind: 'unreadable',
				httpCode: http,
				message: `The voucher service sent an unexpected answer (HTTP ${http})`,
				description: 'The answer was not the JSON envelope the API documents.',
			});
		}
		if (envelope.statusCode === SUCCESS_CODE || accepted) {
			return envelope;
		}
		const serviceMessage =
			envelope.message === null ? undefined : this.withoutKeys(envelope.message);
		throw fail({
			kind: 'rejected',
			httpCode: http,
			serviceCode: envelope.statusCode,
			serviceMessage,
			message: `${refused(call)}: ${serviceMessage ?? 'no message'} (code ${envelope.statusCode})`,
		});
	}

	/**
	 * "Not now" as an error: 'notNow' for the caller to settle (a create's 502, 503 or 504),
	 * 'unavailable' once the patience is spent.
	 */
	private notNowError(kind: 'notNow' | 'unavailable', http: number, call: ApiCall) {
		const who = 'The voucher service (or a gateway in front of it)';
		const status = `HTTP ${http}, ${NOT_NOW_REASONS[http]}`;
		return new VoucherApiError(this.node, {
			kind,
			httpCode: http,
			itemIndex: call.itemIndex,
			...(kind === 'notNow'
				? { message: `${who} answered "not now" (${status})` }
				: {
						message: `${who} refused every request for ${patienceInWords(this.patienceMs)} (${status})`,
						description:
							'It answers so while it is rate limiting, overloaded or down. Try again later.',
					}),
		});
	}

	/**
	 * The service's own words go into error messages; a service that echoes the request
	 * (an "invalid key sk_…" message, say) must not put a key there.
	 */
	private withoutKeys(text: string): string {
		return this.keys.reduce((clean, key) => clean.split(key).join('[key withheld]'), text);
	}

	/** A body's text as an error repeats it: masked before it is cut, so no part of a key is left. */
	private serviceText(body: string | undefined): string {
		return this.withoutKeys((body ?? '').trim()).slice(0, 200);
	}

	private networkError(error: unknown, call: ApiCall): VoucherApiError {
		// Only the error code is kept: the original error holds the request and its auth header.
		const code =
			(error as { code?: unknown; cause?: { code?: unknown } }).code ??
			(error as { cause?: { code?: unknown } }).cause?.code;
		const reason = NETWORK_REASONS[String(code)] ?? 'no answer';
		return new VoucherApiError(this.node, {
			kind: 'network',
			message: `Could not reach the voucher service (${reason})`,
			description: `The ${call.method} request got no answer${typeof code === 'string' ? ` (${code})` : ''}. Check the base URL and the network; the request may or may not have been processed.`,
			itemIndex: call.itemIndex,
		});
	}
}

/**
 * Every form in which a service may repeat the credential. The credential sends HTTP Basic
 * (credentials/VoucherServiceApi.credentials.ts), `Basic base64(utf8(public:secret))`; a service
 * that echoes its request may show that header, the pair decoded, either key, base64 of a key,
 * or any of these URL-encoded (in either case of hex). Base64 is matched without its padding,
 * so a cut one is caught too, and in the URL-safe alphabet as well. Longest first, so a pair is
 * masked whole. A key of any length is masked: a short one garbles the service's text where it
 * happens to occur, which is better than a key shown (no real service issues such keys).
 */
function credentialForms(publicKey: string, secretKey: string): string[] {
	const keys = [publicKey, secretKey].filter((key) => key.length > 0);
	if (keys.length === 0) return [];
	const plain = [...keys, `${publicKey}:${secretKey}`];
	const base64 = plain.flatMap((text) => {
		const encoded = Buffer.from(text, 'utf8').toString('base64');
		const unpadded = encoded.replace(/=+$/, '');
		return [encoded, unpadded, unpadded.replace(/\+/g, '-').replace(/\//g, '_')];
	});
	const urlEncoded = [...plain, ...base64].flatMap((text) => {
		const upper = encodeURIComponent(text);
		return [upper, upper.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())];
	});
	return [...new Set([...plain, ...base64, ...urlEncoded])].sort((a, b) => b.length - a.length);
}

/** A body as JSON, its long integers exact (parseJson); text that is not JSON stays text. */
function readAnswerBody(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return parseJson(body);
	} catch {
		return body;
	}
}

/** The head of a refusal's message; a create's names the item and the order's Reference. */
const refused = ({ reference, itemIndex }: ApiCall) =>
	reference === undefined
		? 'The voucher service refused the request'
		: `${itemIndex === undefined ? '' : `Item ${itemIndex}: `}the voucher service refused order "${reference}"`;
