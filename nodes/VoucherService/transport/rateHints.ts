import { parseRetryAfter } from './retry';

/**
 * What one answer's headers said about the service's rate limit; times on the pacer's clock.
 * A policy's quota and window (`RateLimit-Policy`, a `limit`) are not read: every form that
 * names one also sends Remaining and Reset, which tell what is left of the quota, shared with
 * the service's other clients, where the quota alone would overshoot it.
 */
export interface RateHints {
	/** Retry-After, in ms from the answer. */
	retryAfterMs?: number;
	/** Requests the current window still admits. */
	remaining?: number;
	/** When the window's allowance is restored. */
	resetAt?: number;
}

/** A Reset above this is a moment (epoch seconds), below it a count of seconds left. */
const EPOCH_SECONDS = 1e9;
/** A Reset above this is epoch milliseconds. */
const EPOCH_MS = 1e12;
/** The longest wait a Reset may impose, like a Retry-After (see MAX_RETRY_AFTER_MS). */
const MAX_RESET_MS = 60_000;

const header = (headers: Record<string, unknown>, name: string) => {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
};

const count = (value: unknown) => {
	const n = Number(value);
	return value !== undefined && value !== '' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** Reset as epoch seconds, epoch ms or seconds left, told apart by size; kept within a minute ahead. */
function resetTime(value: unknown, now: number): number | undefined {
	const n = count(value);
	if (n === undefined) return undefined;
	const at = n > EPOCH_MS ? n : n > EPOCH_SECONDS ? n * 1000 : now + n * 1000;
	return Math.min(Math.max(at, now), now + MAX_RESET_MS);
}

/** One member of a structured header (RFC 8941): a dictionary's `key=value`, or a list's value. */
interface Member {
	key?: string;
	value: string;
	params: Record<string, string>;
}

const unquote = (text: string) => text.trim().replace(/^"(.*)"$/, '$1');

/** A structured header read leniently: commas outside quotes part members, semicolons parameters. */
function members(value: unknown): Member[] {
	if (value === undefined || value === null) return [];
	return (String(value).match(/(?:"[^"]*"|[^,])+/g) ?? []).map((member) => {
		const [item = '', ...params] = member.match(/(?:"[^"]*"|[^;])+/g) ?? [];
		const pair = /^\s*([a-z][\w-]*)\s*=(.*)$/i.exec(item);
		return {
			key: pair?.[1].toLowerCase(),
			value: unquote(pair ? pair[2] : item),
			params: Object.fromEntries(
				params.map((param) => {
					const [key, val = ''] = param.split('=');
					return [key.trim().toLowerCase(), unquote(val)];
				}),
			),
		};
	});
}

/**
 * The one-header `RateLimit`: the older draft's dictionary `remaining=3, reset=4`, or the
 * current draft's list `"default";r=0;t=5`, one member per policy, of which the one with the
 * fewest requests left binds.
 */
function rateLimitHeader(value: unknown) {
	const all = members(value);
	const dictionary = new Map(all.flatMap(({ key, value }) => (key ? [[key, value]] : [])));
	if (dictionary.size > 0)
		return { remaining: dictionary.get('remaining'), reset: dictionary.get('reset') };
	const left = (member: Member) => count(member.params.r) ?? Infinity;
	const binding = all.reduce<Member | undefined>(
		(fewest, member) => (fewest && left(fewest) <= left(member) ? fewest : member),
		undefined,
	);
	return { remaining: binding?.params.r, reset: binding?.params.t };
}

/**
 * The rate-limit hints of an answer's headers (lower-case names): Retry-After (seconds or
 * HTTP date), `X-RateLimit-Remaining/Reset`, `RateLimit-Remaining/Reset`, and the one-header
 * `RateLimit`, in the older and in the current draft's form.
 */
export function readRateHints(
	headers: Record<string, unknown> | undefined,
	now = Date.now(),
): RateHints {
	if (!headers) return {};
	const first = (name: string) => members(header(headers, name))[0]?.value;
	const one = rateLimitHeader(header(headers, 'ratelimit'));
	const hints: RateHints = {
		retryAfterMs: parseRetryAfter(header(headers, 'retry-after'), now),
		remaining: count(
			first('x-ratelimit-remaining') ?? first('ratelimit-remaining') ?? one.remaining,
		),
		resetAt: resetTime(first('x-ratelimit-reset') ?? first('ratelimit-reset') ?? one.reset, now),
	};
	for (const key of Object.keys(hints) as Array<keyof RateHints>)
		if (hints[key] === undefined) delete hints[key];
	return hints;
}
