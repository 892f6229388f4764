/*
 * How the sandbox answers the points the spec leaves open. The defaults are the sandbox's
 * own reading; every other value is a reading a real account could plausibly have, so the
 * package can be tried against each before it meets one.
 */

export interface Dialect {
	/** How a create with a used Reference is answered. */
	duplicateReference:
		| 'envelope200' /* 200 {statusCode:'09'} */
		| 'envelope400' /* the default: 400 {statusCode:'09'} */
		| 'text409'
		| 'existingOrder200' /* 200 00 with the existing order */;
	/** The order in a create's answer: as the spec lists it, or without its `reference`. */
	createdOrder: 'full' | 'noReference';
	/** How Get Order answers an unknown reference. */
	unknownOrder:
		| 'envelope200' /* the default: 200 '04' */
		| 'envelope404' /* 404 with the '04' envelope */
		| 'text404'
		| 'problem404' /* ASP.NET Core: problem+json with a new traceId on every answer */
		| 'spring404' /* Spring Boot: a new timestamp, the path and the Reference echoed */;
	/** Bodies of 401, 403, 404 (voucher) and 500: the spec's text, or a JSON envelope {statusCode, message}. */
	errorBodies: 'text' | 'envelope';
	/** Numbers (balance, value, amount, serial, serialNumber) as JSON numbers or as decimal strings ("30000.00"). */
	numbers: 'number' | 'string';
	/** Order, item and voucher statuses, and webhook event types, in upper (spec) or lower case. */
	statusCase: 'upper' | 'lower';
	/** Undocumented extra fields on envelopes, orders, vouchers, wallets, countries, templates. */
	extraFields: boolean;
	/** Template ids as numeric strings (the default) or opaque ones ("tpl_ab12"). */
	templateIds: 'numeric' | 'opaque';
	/** How a create with a template that is not the client's is refused: 05 on HTTP 200, or on 400 (the default). */
	badTemplate: 'envelope200' | 'envelope400';
	/** A rate limit on /v2: none (the default), or a fixed window answering 429 with no hints. */
	rateLimit: 'none' | 'fixedWindowNoHints';
	/**
	 * Serials of the vouchers issued while it holds: below 2^53 (the default), or past it, which
	 * a JSON number written as it is cannot carry into a double without losing digits.
	 */
	serials: 'safe' | 'long';
}

/** Every reading of each key, the default among them: a generator can draw any dialect from it. */
export const DIALECT_VALUES: { readonly [K in keyof Dialect]: readonly Dialect[K][] } = {
	duplicateReference: ['envelope200', 'envelope400', 'text409', 'existingOrder200'],
	createdOrder: ['full', 'noReference'],
	unknownOrder: ['envelope200', 'envelope404', 'text404', 'problem404', 'spring404'],
	errorBodies: ['text', 'envelope'],
	numbers: ['number', 'string'],
	statusCase: ['upper', 'lower'],
	extraFields: [false, true],
	templateIds: ['numeric', 'opaque'],
	badTemplate: ['envelope200', 'envelope400'],
	rateLimit: ['none', 'fixedWindowNoHints'],
	serials: ['safe', 'long'],
};

/** The sandbox's own reading: what it answered before dialects existed. */
export const DEFAULT_DIALECT: Readonly<Dialect> = Object.freeze({
	duplicateReference: 'envelope400',
	createdOrder: 'full',
	unknownOrder: 'envelope200',
	errorBodies: 'text',
	numbers: 'number',
	statusCase: 'upper',
	extraFields: false,
	templateIds: 'numeric',
	badTemplate: 'envelope400',
	rateLimit: 'none',
	serials: 'safe',
});

/**
 * Dialects for the suites: the default, each single deviation, all of them at once, and all
 * but opaque template ids (which the package refuses, so recipient flows stop there) with the
 * other duplicate and unknown-order readings.
 */
export const DIALECTS: Readonly<Record<string, Partial<Dialect>>> = Object.freeze({
	spec: {},
	duplicate200: { duplicateReference: 'envelope200' },
	duplicate409Text: { duplicateReference: 'text409' },
	duplicateExisting: { duplicateReference: 'existingOrder200' },
	createdWithoutReference: { createdOrder: 'noReference' },
	unknownOrder404Envelope: { unknownOrder: 'envelope404' },
	unknownOrder404Text: { unknownOrder: 'text404' },
	unknownOrder404Problem: { unknownOrder: 'problem404' },
	unknownOrder404Spring: { unknownOrder: 'spring404' },
	errorEnvelopes: { errorBodies: 'envelope' },
	numbersAsStrings: { numbers: 'string' },
	lowerCaseStatuses: { statusCase: 'lower' },
	extraFields: { extraFields: true },
	opaqueTemplateIds: { templateIds: 'opaque' },
	badTemplate200: { badTemplate: 'envelope200' },
	rateLimitFixedWindow: { rateLimit: 'fixedWindowNoHints' },
	longSerials: { serials: 'long' },
	everythingDifferent: {
		duplicateReference: 'text409',
		createdOrder: 'noReference',
		unknownOrder: 'text404',
		errorBodies: 'envelope',
		numbers: 'string',
		statusCase: 'lower',
		extraFields: true,
		templateIds: 'opaque',
		badTemplate: 'envelope200',
		serials: 'long',
	},
	everythingReadable: {
		duplicateReference: 'existingOrder200',
		createdOrder: 'noReference',
		unknownOrder: 'envelope404',
		errorBodies: 'envelope',
		numbers: 'string',
		statusCase: 'lower',
		extraFields: true,
		badTemplate: 'envelope200',
		serials: 'long',
	},
});

/** Readings of an unknown order as a 404 without the `04` envelope, which the package learns (lookup.ts). */
export const isBare404 = (dialect: Partial<Dialect>) =>
	['text404', 'problem404', 'spring404'].includes(dialect.unknownOrder ?? '');

/** Null when the patch is a valid partial dialect, else what is wrong with it. */
export function dialectProblem(patch: unknown): string | null {
	if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
		return 'dialect must be an object';
	for (const [key, value] of Object.entries(patch)) {
		if (!Object.hasOwn(DIALECT_VALUES, key)) return `unknown dialect option ${key}`;
		const allowed = DIALECT_VALUES[key as keyof Dialect] as readonly unknown[];
		if (value !== undefined && !allowed.includes(value))
			return `dialect.${key} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
	}
	return null;
}

/** A partial dialect over the defaults: a patch names only what differs from the spec reading. */
export const resolveDialect = (patch: Partial<Dialect> = {}): Dialect => ({
	...DEFAULT_DIALECT,
	...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
});

/** The id a template shows under `opaque`; stable, so a test can predict it. An id already not a number stays. */
export const opaqueTemplateId = (id: string) =>
	/^\d+$/.test(id) ? `tpl_${(0xab00 + Number(id)).toString(16)}` : id;

/** The id a catalogue template is listed and accepted under in this dialect. */
export const templateIdIn = (dialect: Dialect, id: string) =>
	dialect.templateIds === 'opaque' ? opaqueTemplateId(id) : id;

const NUMBER_KEYS = new Set(['balance', 'value', 'amount', 'serial', 'serialNumber']);
const SERIAL_KEYS = new Set(['serial', 'serialNumber']);

type Json = Record<string, unknown>;

/** Undocumented fields a real account might add, by what the object is. */
function extrasFor(object: Json, root: boolean): Json {
	if (root) return { timestamp: new Date().toISOString(), traceId: 'sbx-trace-0001' };
	if ('orderNumber' in object && 'reference' in object)
		return { createdAt: new Date().toISOString(), currency: 'NGN', channel: 'API' };
	if ('serial' in object) return { currency: 'NGN', productName: 'Sandbox voucher' };
	if ('balance' in object && 'currency' in object)
		return { walletId: `W-${String(object.currency)}`, updatedAt: new Date().toISOString() };
	if ('screenshotUrl' in object) return { clientId: null, createdAt: '2024-01-01T00:00:00Z' };
	if ('code' in object && 'name' in object) return { active: true, dialCode: '+000' };
	if ('expiryDate' in object && 'status' in object) return { redemptions: [] };
	return {};
}

function transform(value: unknown, dialect: Dialect, key: string | null, root: boolean): unknown {
	if (Array.isArray(value)) return value.map((v) => transform(v, dialect, null, false));
	if (typeof value === 'object' && value !== null) {
		const object = value as Json;
		const out: Json = {};
		for (const [k, v] of Object.entries(object)) out[k] = transform(v, dialect, k, false);
		if (!dialect.extraFields) return out;
		// An answer's own field (a problem's traceId, say) is never overwritten by an extra.
		const extras = Object.entries(extrasFor(object, root)).filter(([k]) => !(k in out));
		return { ...out, ...Object.fromEntries(extras) };
	}
	if (key === null) return value;
	// A long serial is a bigint (see Serial): as text it is its digits, like any serial.
	if (dialect.numbers === 'string' && typeof value === 'bigint' && SERIAL_KEYS.has(key))
		return String(value);
	if (dialect.numbers === 'string' && typeof value === 'number' && NUMBER_KEYS.has(key))
		return SERIAL_KEYS.has(key) ? String(value) : value.toFixed(2);
	if (dialect.statusCase === 'lower' && key === 'status' && typeof value === 'string')
		return value.toLowerCase();
	return value;
}

/** A /v2 JSON answer as this dialect writes it: number types, status case, extra fields. */
export const inDialect = (body: unknown, dialect: Dialect): unknown =>
	transform(body, dialect, null, true);

/** A webhook body as this dialect writes it: as a /v2 answer, and the event type in the statuses' case. */
export function eventInDialect(type: string, data: unknown, dialect: Dialect): unknown {
	const body = inDialect({ type, data }, dialect) as Json;
	return dialect.statusCase === 'lower' ? { ...body, type: type.toLowerCase() } : body;
}
