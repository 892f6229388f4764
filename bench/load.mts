// A bounded HTTP load client (undici): sends `count` POSTs with at most
// `concurrency` in flight over as many kept-alive connections per origin, and
// records each answer's status and latency. Loopback only.
import { Pool } from 'undici';

import { percentile } from './report.mts';

export interface Delivery {
	body: string;
	headers: Record<string, string>;
}

export interface LoadResult {
	count: number;
	seconds: number;
	perSecond: number;
	p50: number;
	p99: number;
	statuses: Record<number, number>;
	/** The run on the monotonic clock (as V8 profiles stamp samples), µs. */
	monoStartUs: number;
	monoEndUs: number;
}

/** Latency of the answers one target gave. */
export interface TargetLatency {
	count: number;
	p50: number;
	p99: number;
}

export interface SpreadResult extends LoadResult {
	/** Per target, in the order of `urls`. */
	byTarget: TargetLatency[];
	/** How many answers `classify` put in each class (empty without `classify`). */
	answers: Record<string, number>;
}

/** A delivery and the index (into `urls`) of the target it goes to. */
export type TargetedDelivery = Delivery & { target: number };

const monoUs = () => Number(process.hrtime.bigint() / 1000n);

const latencyOf = (values: number[]): TargetLatency => {
	const sorted = [...values].sort((a, b) => a - b);
	return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};

/**
 * Sends `count` deliveries, at most `concurrency` in flight in all, each to the target
 * `make(i)` names. With `classify`, reads each answer's body and counts its class.
 */
export async function fireAt(
	urls: string[],
	concurrency: number,
	count: number,
	make: (i: number) => TargetedDelivery,
	classify?: (status: number, body: string) => string,
): Promise<SpreadResult> {
	const targets = urls.map((url) => {
		const { origin, pathname, search } = new URL(url);
		return { pool: new Pool(origin, { connections: concurrency, pipelining: 1 }), path: pathname + search, latencies: [] as number[] };
	});
	const latencies: number[] = [];
	const statuses: Record<number, number> = {};
	const answers: Record<string, number> = {};
	let next = 0;
	const monoStartUs = monoUs();
	const t0 = performance.now();
	const worker = async () => {
		while (next < count) {
			const { body, headers, target } = make(next++);
			const to = targets[target];
			const s = performance.now();
			const res = await to.pool.request({ method: 'POST', path: to.path, body, headers: { 'content-type': 'application/json', ...headers } });
			const text = classify ? await res.body.text() : await res.body.dump();
			const ms = performance.now() - s;
			latencies.push(ms);
			to.latencies.push(ms);
			statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
			if (classify) {
				const kind = classify(res.statusCode, String(text));
				answers[kind] = (answers[kind] ?? 0) + 1;
			}
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	const seconds = (performance.now() - t0) / 1000;
	const monoEndUs = monoUs();
	await Promise.all(targets.map((t) => t.pool.close()));
	const all = latencyOf(latencies);
	return {
		count,
		seconds,
		perSecond: count / seconds,
		p50: all.p50,
		p99: all.p99,
		statuses,
		monoStartUs,
		monoEndUs,
		byTarget: targets.map((t) => latencyOf(t.latencies)),
		answers,
	};
}

/** `count` deliveries to one URL, at most `concurrency` in flight. */
export async function fire(url: string, concurrency: number, count: number, make: (i: number) => Delivery): Promise<LoadResult> {
	const { byTarget: _byTarget, answers: _answers, ...result } = await fireAt([url], concurrency, count, (i) => ({ ...make(i), target: 0 }));
	return result;
}
