import type { Dialect } from './dialect.mts';

type OrderStatus = 'PROCESSING' | 'COMPLETED' | 'PARTIALLY_COMPLETED' | 'CANCELED' | 'FAILED';
export type TerminalStatus = Exclude<OrderStatus, 'PROCESSING'>;
type ItemStatus = 'DELIVERED' | 'FAILED' | 'CANCELED' | 'PROCESSING';
export type VoucherState = 'ACTIVE' | 'USED' | 'EXPIRED' | 'INVALID';
export type OrderType = 'download' | 'recipients';
export type WebhookEvent = 'ORDER_UPDATED' | 'VOUCHER_UPDATED';

export interface Recipient {
	firstName: string;
	lastName: string;
	email: string;
}

/**
 * A serial, exact: a number while it is a safe integer, a bigint past 2^53 (the `long` serials
 * of the dialect), which answers write as a bare JSON number (http.mts, writeJson).
 */
export type Serial = number | bigint;

/** A voucher as the sandbox holds it; API and webhook views hide fields from this. */
export interface SandboxVoucher {
	value: number;
	serial: Serial;
	code: string;
	pin: string;
	expiryDate: string;
	status: ItemStatus | null;
	firstName: string | null;
	lastName: string | null;
	email: string | null;
}

export interface SandboxOrder {
	orderNumber: string;
	reference: string;
	type: OrderType;
	productCode: string;
	status: OrderStatus;
	amount: number;
	/** Per-voucher debit after any coupon, in kobo. */
	chargeKobo: number;
	count: number;
	couponCode: string | null;
	pin: string | null;
	/** As sent: a number, or the opaque id under dialect.templateIds 'opaque'. */
	templateId: number | string | null;
	narration: string | null;
	recipients: Recipient[];
	vouchers: SandboxVoucher[];
	createdAt: string;
	settledAt: string | null;
}

export interface LedgerEntry {
	seq: number;
	kind: 'opening' | 'debit' | 'refund';
	currency: string;
	/** Signed: debits are negative. */
	amountKobo: number;
	balanceAfterKobo: number;
	reference: string | null;
	orderNumber: string | null;
	note: string;
	time: string;
}

export interface RequestLogEntry {
	seq: number;
	method: string;
	path: string;
	body: unknown;
	/** Public key of the caller when the credential pair is known; the secret is never kept. */
	publicKey: string | null;
	/** The caller's own label for itself, from the `x-sandbox-client` header (a test's execution id, say). */
	client: string | null;
	/** HTTP status sent, or null when the socket was dropped. */
	status: number | null;
	/** Envelope statusCode, when a JSON envelope was sent. */
	statusCode: string | null;
	fault: FaultKind | null;
	time: string;
}

export interface DeliveryAttempt {
	event: WebhookEvent;
	url: string;
	/** 1-based copy number when a target asks for duplicates. */
	copy: number;
	attempt: number;
	/** Delay waited before this attempt, after timeFactor scaling. */
	delayMs: number;
	status: number | null;
	error: string | null;
	outcome: 'delivered' | 'retry' | 'gave-up' | 'rejected';
	time: string;
	body: string;
	signature: string;
}

export type FaultKind =
	| 'error'
	| 'reset'
	| 'commitThenDrop'
	| 'commitThen500'
	| 'rateLimit'
	| 'gateway'
	| 'gatewayAfterCommit'
	/** Refused by the create barrier: its creates did not all come in time (or a reset). */
	| 'barrier';

/**
 * A gateway in front of the service answering "not now" as nginx's limit_req does by default:
 * an error page and no Retry-After. Or, with 404 or 500, a proxy whose route or upstream
 * broke for a while.
 */
export interface GatewayFault {
	/**
	 * 404: a gateway that misses the route (nginx's page), as in front of a look-up that must not
	 * read as "no such order"; 500: an upstream that broke.
	 */
	status: 404 | 429 | 500 | 502 | 503 | 504;
	/** How many requests (of `method`, under `paths`) it answers so from when it is set; then none. All if absent. */
	count?: number;
	/** How many such requests it lets through first (a block's read before its create, say). */
	skip?: number;
	method?: string;
	/** The service handles the request first (an order is committed and paid), then the gateway answers: a timeout after the work. */
	afterCommit?: boolean;
	/** nginx's HTML page (the default), plain text, or a JSON body. */
	body?: 'html' | 'text' | 'json';
}

export interface FaultOptions {
	errorRate?: number;
	resetRate?: number;
	commitThenDropRate?: number;
	commitThen500Rate?: number;
	rateLimitRate?: number;
	retryAfterSeconds?: number;
	seed?: number;
	/** `sequence` (the default): the n-th request draws the n-th number; `request`: each request draws by what it is (see faults.mts). */
	drawBy?: 'sequence' | 'request';
	paths?: string[];
	gateway?: GatewayFault;
}

export interface RateLimitOptions {
	kind: 'tokenBucket' | 'fixedWindow' | 'leakyBucket';
	/**
	 * Admitted per `seconds`: a token bucket's burst and refill, a fixed window's allowance, or a
	 * leaky bucket's rate.
	 */
	requests: number;
	seconds: number;
	signal: 'retryAfter' | 'xRateLimit' | 'rateLimit' | 'none';
	/** A leaky bucket's burst: admitted at once beyond the one its rate admits (nginx's `burst`). */
	burst?: number;
	/** A leaky bucket's refusal: 503 (nginx's default) or 429. */
	status?: 429 | 503;
	/**
	 * Counts only requests of this method (nginx's `limit_req` in one `location`: reads are GETs,
	 * creates POSTs); every request when absent. See `rateLimit` for several at once.
	 */
	method?: 'GET' | 'POST';
}

/** One limit, or limits per route (see `rateLimit`). */
export type RateLimits = RateLimitOptions | RateLimitOptions[];

/** Holds creates until a race is certain (barrier.mts). */
export interface CreateBarrier {
	/** Held until this many creates wait, then all go on in the order they came. */
	creates: number;
	/** Only creates of this reference are held; every create when absent. */
	reference?: string;
	/** From the first create held; then every held create is refused. 10,000 when absent. */
	timeoutMs?: number;
}

export interface WebhookTarget {
	url: string;
	secret: string;
	events?: WebhookEvent[];
	duplicates?: number;
}

export interface SandboxOptions {
	host?: string;
	port?: number;
	timeFactor?: number;
	processingDelayMs?: number;
	latencyMs?: number;
	/** Requests per second over which /v2 answers 429 (token bucket, one second of burst); 0 = no limit. Short for `rateLimit: { kind: 'tokenBucket', requests: n, seconds: 1, signal: 'retryAfter' }`. */
	rateLimitPerSecond?: number;
	/**
	 * A rate limit on /v2 (see rateLimit.mts), or limits per route: a list, where each request
	 * counts against the first whose `method` is its own or absent. When set, it replaces
	 * rateLimitPerSecond; null = none.
	 */
	rateLimit?: RateLimits | null;
	/** Accept a create under a used reference as a new order (a service that does not check). */
	acceptDuplicateReferences?: boolean;
	faults?: FaultOptions;
	/** Arms the create barrier (barrier.mts), once; null disarms it and lets what it holds go. */
	createBarrier?: CreateBarrier | null;
	/**
	 * Refuse every /v2 request with HTTP 400 that repeats the Authorization header as a careless service
	 * might (as sent, decoded, URL-encoded, each key in base64), in `text` or as an envelope's
	 * message; before the keys are checked, so any keys can be tried. null: never.
	 */
	echoAuthorization?: 'text' | 'envelope' | null;
	/** Text in a raw path on which a gateway in front answers 404 with its own HTML page, unseen by the service (as Apache does to `%2F`, IIS to `%25`). */
	gatewayNotFound?: string[];
	/** Get Order answers every Reference (or those listed) with a FAILED order that names none, as a broken service or a misrouting gateway might. */
	phantomOrders?: boolean | string[];
	/** That gateway's 404: an HTML page (the default) or JSON, as Kong's `{"message":"no Route matched with those values"}`. */
	gatewayNotFoundBody?: 'html' | 'json';
	/** That gateway answers only once the order the path names exists: a look-up that fails after its create, never before. */
	gatewayNotFoundOnceMade?: boolean;
	webhooks?: WebhookTarget[];
	/** How the open points of the spec are answered, merged over DEFAULT_DIALECT (see dialect.mts). */
	dialect?: Partial<Dialect>;
	/** The template list GET /v2/orders/templates answers; the catalogue's by default. The spec types ids as strings. */
	templates?: Array<{ id: string; name: string; screenshotUrl: string }>;
	initialBalanceNgn?: number;
	/** The wallets GET /v2/transactions/wallets lists, by currency, in order (NGN, USD by default). Every NGN one shows the ledger's balance; others 0. */
	walletCurrencies?: string[];
	deliveryTimeoutMs?: number;
	log?: (line: string) => void;
}

/** Every code the status endpoint knows: seeded vouchers and vouchers issued by orders. */
interface IssuedVoucher {
	code: string;
	serial: Serial;
	value: number;
	balance: number;
	expiryDate: string;
	state: VoucherState;
	orderNumber: string | null;
	email: string | null;
}

export interface SandboxState {
	requests: RequestLogEntry[];
	/** Keyed by reference, which is unique across both order types. */
	orders: Map<string, SandboxOrder>;
	ledger: LedgerEntry[];
	deliveries: DeliveryAttempt[];
	/** Keyed by voucher code. */
	vouchers: Map<string, IssuedVoucher>;
}
