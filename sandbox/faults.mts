import { json, text } from './http.mts';
import type { Reply } from './http.mts';
import type { FaultKind, FaultOptions, GatewayFault } from './types.mts';

/** mulberry32: tiny, seedable, good enough to make fault runs reproducible. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const ORDER: ReadonlyArray<[FaultKind, keyof FaultOptions]> = [
	['rateLimit', 'rateLimitRate'],
	['error', 'errorRate'],
	['reset', 'resetRate'],
	['commitThenDrop', 'commitThenDropRate'],
	['commitThen500', 'commitThen500Rate'],
];

/** `request`: what the request is, for `drawBy: 'request'` (its create's reference, say). */
export type FaultRoller = (path: string, method: string, request?: string) => FaultKind | null;

/** FNV-1a: a string as a seed. */
function hash(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
	return h >>> 0;
}

/**
 * One draw per matching request, split into consecutive bands by rate, so the
 * rates are exclusive probabilities and a seed replays the same fault sequence.
 * With `drawBy: 'request'`, the draw depends on the seed, the request (method, path and
 * `request`) and how many such requests came before, not on the order of arrival: requests
 * sent at once in any order meet the same faults, so a case replays.
 * The gateway answers before any draw, and takes none, while its count lasts (after the
 * requests it lets through first).
 */
export function createFaultRoller(options: FaultOptions = {}): FaultRoller {
	const seed = options.seed ?? 1;
	const inSequence = prng(seed);
	const seen = new Map<string, number>();
	const next = (key: string) => {
		if (options.drawBy !== 'request') return inSequence();
		const n = (seen.get(key) ?? 0) + 1;
		seen.set(key, n);
		return prng(hash(`${seed} ${n} ${key}`))();
	};
	const prefixes = options.paths ?? ['/v2'];
	const { gateway } = options;
	let gatewayLeft = gateway?.count ?? Infinity;
	let gatewaySkip = gateway?.skip ?? 0;
	return (path, method, request = '') => {
		if (!prefixes.some((p) => path.startsWith(p))) return null;
		const throughGateway = gateway && (gateway.method ?? method) === method;
		if (throughGateway && gatewaySkip > 0) gatewaySkip--;
		else if (throughGateway && gatewayLeft > 0) {
			gatewayLeft--;
			return gateway.afterCommit ? 'gatewayAfterCommit' : 'gateway';
		}
		const draw = next(`${method} ${path} ${request}`);
		let upper = 0;
		for (const [kind, rate] of ORDER) {
			upper += (options[rate] as number | undefined) ?? 0;
			if (draw < upper) return kind;
		}
		return null;
	};
}

/** nginx's reason phrases. */
const GATEWAY_TITLES: Record<GatewayFault['status'], string> = {
	404: 'Not Found',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Temporarily Unavailable',
	504: 'Gateway Time-out',
};

/** The gateway's answer, never with Retry-After: nginx's error page unless `body` says otherwise. */
export function gatewayReply({ status, body = 'html' }: GatewayFault): Reply {
	const title = `${status} ${GATEWAY_TITLES[status]}`;
	if (body === 'json') return json(status, { message: title });
	if (body === 'text') return text(status, title);
	const page = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
	return text(status, page, { 'content-type': 'text/html' });
}
