// A bounded HTTP load client (undici): sends `count` POSTs with at most
// `concurrency` in flight over as many kept-alive connections, and records
// each answer's status and latency. Loopback only.
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

const monoUs = () => Number(process.hrtime.bigint() / 1000n);

export async function fire(url: string, concurrency: number, count: number, make: (i: number) => Delivery): Promise<LoadResult> {
	const { origin, pathname, search } = new URL(url);
	const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
	const latencies: number[] = [];
	const statuses: Record<number, number> = {};
	let next = 0;
	const monoStartUs = monoUs();
	const t0 = performance.now();
	const worker = async () => {
		while (next < count) {
			const { body, headers } = make(next++);
			const s = performance.now();
			const res = await pool.request({ method: 'POST', path: pathname + search, body, headers: { 'content-type': 'application/json', ...headers } });
			await res.body.dump();
			latencies.push(performance.now() - s);
			statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	const seconds = (performance.now() - t0) / 1000;
	const monoEndUs = monoUs();
	await pool.close();
	latencies.sort((a, b) => a - b);
	return { count, seconds, perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), statuses, monoStartUs, monoEndUs };
}
