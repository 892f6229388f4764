// Benchmark 5: cost of checking one webhook signature, ours against the limit.
//   npm run bench:signature        (BENCH_SIG_ROUNDS, BENCH_SIG_ITERATIONS to change the effort)
// Ours: verifySignature() from nodes/serviceProtocol/signature.ts (format check of the
// header, HMAC-SHA512 of the raw body, constant-time compare). The limit: a bare
// crypto.createHmac('sha512') of the same bytes. Both run in alternating rounds
// in this one process, so only their ratio counts.
import { createHmac, randomBytes } from 'node:crypto';

import { openDelivery, verifySignature } from '../nodes/serviceProtocol/signature.ts';
import { beginRun, conditionsTable, envInt, fmt, machine, median, print, table, type Row } from './report.mts';

const SECRET = 'whsec_bench_0123456789abcdef';
const ROUNDS = envInt('BENCH_SIG_ROUNDS', 15);
const ITERATIONS = envInt('BENCH_SIG_ITERATIONS', 4000);

function body(size: number): Buffer {
	// A real-looking event padded to the size; JSON so openDelivery can parse it.
	const pad = 'x'.repeat(Math.max(0, size - 120));
	const json = JSON.stringify({ type: 'ORDER_UPDATED', data: { orderNumber: 'SBX-1', reference: 'r-1', status: 'COMPLETED', pad } });
	return Buffer.from(json.padEnd(size, ' '));
}

/** µs per call of fn over `iterations` calls. */
function timeIt(iterations: number, fn: () => unknown): number {
	let sink = 0;
	const t0 = process.hrtime.bigint();
	for (let i = 0; i < iterations; i++) if (fn()) sink++;
	const ns = Number(process.hrtime.bigint() - t0);
	if (sink < 0) throw new Error('unreachable');
	return ns / 1000 / iterations;
}

export function measureSignature(size: number): Row[] {
	const raw = body(size);
	const header = createHmac('sha512', SECRET).update(raw).digest('hex');
	const wrong = randomBytes(64).toString('hex');
	if (!verifySignature(raw, header, SECRET) || verifySignature(raw, wrong, SECRET)) {
		throw new Error('verifySignature disagrees with a bare HMAC: the benchmark would be meaningless');
	}
	const iterations = Math.max(50, Math.round(ITERATIONS / Math.max(1, size / 4096)));
	const cases = {
		bare: () => createHmac('sha512', SECRET).update(raw).digest(),
		ours: () => verifySignature(raw, header, SECRET),
		oursBad: () => verifySignature(raw, wrong, SECRET),
		open: () => openDelivery(raw, header, SECRET),
	};
	const samples: Record<keyof typeof cases, number[]> = { bare: [], ours: [], oursBad: [], open: [] };
	for (const fn of Object.values(cases)) timeIt(iterations, fn); // warm-up
	for (let round = 0; round < ROUNDS; round++) {
		// Rotate the order each round so neither side always runs first.
		const names = Object.keys(cases) as Array<keyof typeof cases>;
		const rotated = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
		for (const name of rotated) samples[name].push(timeIt(iterations, cases[name]));
	}
	const bare = median(samples.bare);
	const ours = median(samples.ours);
	const label = size >= 1024 ? `${size / 1024} KB` : `${size} B`;
	return [
		{ measure: `${label}: bare createHmac('sha512') (the limit)`, value: `${fmt(bare, 2)} µs` },
		{
			measure: `${label}: verifySignature, good signature`,
			value: `${fmt(ours, 2)} µs`,
			reference: `${fmt(bare, 2)} µs`,
			ratio: ours / bare,
			goal: 'report (limit = 1 ×)',
		},
		{ measure: `${label}: verifySignature, bad signature`, value: `${fmt(median(samples.oursBad), 2)} µs`, ratio: median(samples.oursBad) / bare },
		{ measure: `${label}: openDelivery (verify + JSON.parse)`, value: `${fmt(median(samples.open), 2)} µs`, ratio: median(samples.open) / bare },
		{ measure: `${label}: our overhead over the limit`, value: `${fmt(ours - bare, 2)} µs` },
	];
}

if (import.meta.url === `file://${process.argv[1]}`) {
	await beginRun();
	const rows = [...measureSignature(1024), ...measureSignature(64 * 1024)];
	print(table(`Benchmark 5: signature check per delivery (median of ${ROUNDS} alternating rounds) — ${machine()}`, rows));
	print(conditionsTable('bench:signature'));
}
