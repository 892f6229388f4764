import { createHash } from 'crypto';

/*
 * What identifies an answer, so that two answers can be told the same although each carries
 * its own request id, time, or echo of what was asked: the HTTP status, the media type (without
 * parameters), and the body. A JSON body counts field by field, by the path of each field:
 * - the fields that name the kind of answer (type, title, status, code, statusCode, error,
 *   errorCode, in any case) by their exact value;
 * - any other text with every word holding a digit masked (ids, times, counters), a number
 *   only as a number;
 * - in every text and field name, the path asked for and its last segment (the Reference an
 *   answer echoes), as sent or decoded, in any case, masked.
 * Any other body counts as one text, masked so. Only digests are kept: an answer may echo a
 * key, and none of it is carried.
 */

/** Entry name → digest. The names are 'status', 'content-type', 'text', or a field's digest. */
export type AnswerIdentity = Readonly<Record<string, string>>;

const IDENTIFYING = new Set([
	'type',
	'title',
	'status',
	'code',
	'statuscode',
	'error',
	'errorcode',
]);

/** Past these, the rest of a JSON body counts as text: an identity stays small whatever comes. */
const MAX_FIELDS = 64;
const MAX_DEPTH = 8;

const ECHO = '\u0000echo\u0000';

const digest = (text: string) => createHash('sha256').update(text).digest('base64').slice(0, 16);

const withoutDigits = (text: string) => text.replace(/\S*\d\S*/g, '#');

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The forms of the path an answer may echo, masked where they stand alone (not inside a word). */
function echoMask(path: string): (text: string) => string {
	const segment = path.slice(path.lastIndexOf('/') + 1);
	let decoded = segment;
	try {
		decoded = decodeURIComponent(segment);
	} catch {
		// A segment that does not decode is echoed as sent, if at all.
	}
	const forms = [...new Set([path, segment, decoded])].filter(Boolean);
	forms.sort((a, b) => b.length - a.length);
	const echo = new RegExp(
		`(?<![\\p{L}\\p{N}])(?:${forms.map(escaped).join('|')})(?![\\p{L}\\p{N}])`,
		'giu',
	);
	return (text) => text.replace(echo, ECHO);
}

const isContainer = (value: unknown): value is object =>
	typeof value === 'object' && value !== null;

/** The JSON body's leaves as [masked field path, template], or undefined past the bounds. */
function leaves(body: object, mask: (text: string) => string): Array<[string, string]> | undefined {
	const out: Array<[string, string]> = [];
	const walk = (value: unknown, path: string[]): boolean => {
		if (out.length > MAX_FIELDS || path.length > MAX_DEPTH) return false;
		const name = path[path.length - 1]?.toLowerCase() ?? '';
		const exact = IDENTIFYING.has(name);
		if (!isContainer(value)) {
			const template =
				typeof value === 'string'
					? exact
						? mask(value)
						: withoutDigits(mask(value))
					: typeof value === 'number' && !exact
						? 'number'
						: JSON.stringify(value);
			out.push([JSON.stringify(path.map(mask)), `${typeof value} ${template}`]);
			return true;
		}
		const entries = Object.entries(value);
		if (entries.length === 0) out.push([JSON.stringify(path.map(mask)), JSON.stringify(value)]);
		return entries.every(([key, child]) => walk(child, [...path, key]));
	};
	return walk(body, []) ? out : undefined;
}

function parsedJson(body: unknown): object | undefined {
	if (isContainer(body)) return body;
	if (typeof body !== 'string') return undefined;
	try {
		const value: unknown = JSON.parse(body);
		return isContainer(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

const mediaType = (headers: Record<string, unknown> | undefined) => {
	const value = headers?.['content-type'];
	const first = Array.isArray(value) ? value[0] : value;
	return String(first ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
};

/**
 * The identity of an answer to `path`. `withoutKeys` masks the credential first, so not even a
 * digest is taken of a key.
 */
export function answerIdentity(
	answer: { statusCode: number; headers?: Record<string, unknown>; body: unknown },
	path: string,
	withoutKeys: (text: string) => string,
): AnswerIdentity {
	const echo = echoMask(path);
	const mask = (text: string) => echo(withoutKeys(text));
	const identity: Record<string, string> = {
		status: String(answer.statusCode),
		'content-type': digest(mediaType(answer.headers)),
	};
	const json = parsedJson(answer.body);
	const fields = json === undefined ? undefined : leaves(json, mask);
	if (fields) {
		for (const [name, template] of fields) identity[digest(name)] = digest(template);
	} else {
		const body = answer.body ?? '';
		const text = typeof body === 'string' ? body : JSON.stringify(body);
		identity.text = digest(withoutDigits(mask(text.trim())));
	}
	return identity;
}

/** An answer as two answers to the same kind of request showed it (see learnAnswer). */
export interface LearntAnswer {
	/** Every entry it has, sorted. */
	entries: string[];
	/** The entries that were the same both times, with their digest. */
	stable: Record<string, string>;
}

/** Entries that must hold still: without them nothing tells the answer from another. */
const WHOLE = ['status', 'content-type', 'text'];

/**
 * What two answers that should be the same have in common: their entries, and the value of
 * each entry that did not change between them. A field that changed anyway (an id without
 * digits, say) then counts by its presence only. Undefined when they differ in their fields,
 * status, media type or text: no answer could then be recognised as theirs.
 */
export function learnAnswer(
	first: AnswerIdentity,
	second: AnswerIdentity,
): LearntAnswer | undefined {
	const entries = Object.keys(first).sort();
	if (entries.join('\n') !== Object.keys(second).sort().join('\n')) return undefined;
	const stable = Object.fromEntries(
		entries.filter((name) => first[name] === second[name]).map((name) => [name, first[name]]),
	);
	return WHOLE.every((name) => !(name in first) || name in stable)
		? { entries, stable }
		: undefined;
}

/** True when `identity` has exactly the learnt answer's entries and each of its stable values. */
export const isLearntAnswer = (learnt: LearntAnswer, identity: AnswerIdentity) =>
	Object.keys(identity).sort().join('\n') === learnt.entries.join('\n') &&
	Object.entries(learnt.stable).every(([name, value]) => identity[name] === value);
