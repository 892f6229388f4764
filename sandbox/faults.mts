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

export type FaultRoller = (path: string, method: string) => FaultKind | null;

/**
 * One draw per matching request, split into consecutive bands by rate, so the
 * rates are exclusive probabilities and a seed replays the same fault sequence.
 * The gateway answers before any draw, and takes none, while its count lasts.
 */
export function createFaultRoller(options: FaultOptions = {}): FaultRoller {
	const next = prng(options.seed ?? 1);
	const prefixes = options.paths ?? ['/v2'];
	const { gateway } = options;
	let gatewayLeft = gateway?.count ?? Infinity;
	let gatewaySkip = gateway?.skip ?? 0;
	return (path, method) => {
		if (!prefixes.some((p) => path.startsWith(p))) return null;
		const throughGateway = gateway && (gateway.method ?? method) === method;
		if (throughGateway && gatewaySkip > 0) gatewaySkip--;
		else if (throughGateway && gatewayLeft > 0) {
			gatewayLeft--;
			return gateway.afterCommit ? 'gatewayAfterCommit' : 'gateway';
		}
		const draw = next();
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
