// Benchmark 3c: what n8n 2.41's expression-engine settings do to webhook deliveries
// for our trigger. Every community trigger takes an expression isolate per request
// (n8n skips that only for its own Webhook node), and the default pool holds one.
//   npm run bench:engine
// Env: BENCH_ENGINE_N (deliveries per measurement, default 100, at concurrency 16),
//      BENCH_ENGINE_SETTINGS (comma-separated names from SETTINGS below; default all).
// Each setting gets a fresh n8n with our trigger, the minimal trigger (the floor)
// and the plain Webhook node; accepted and refused (401) deliveries are measured
// for each, ours and the floor alternating.
import { fire, type LoadResult } from './load.mts';
import { beginRun, conditionsTable, envInt, fmt, info, machine, print, say, table, type Row } from './report.mts';
import { badSignature, drain, event, floorRefuse, merge, setUpHooks, signed, startTriggerN8n, type Hook } from './triggerWorkflows.mts';
import { executionCount } from './harness.mts';

const N = envInt('BENCH_ENGINE_N', 100);

/** n8n 2.41.1's N8N_EXPRESSION_ENGINE_* settings that can matter for a webhook (see @n8n/config's expression-engine config). */
const SETTINGS: Record<string, Record<string, string>> = {
	default: {},
	'pool 4': { N8N_EXPRESSION_ENGINE_POOL_SIZE: '4' },
	'pool 8': { N8N_EXPRESSION_ENGINE_POOL_SIZE: '8' },
	'lazy acquire': { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	'lazy acquire + pool 4': { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true', N8N_EXPRESSION_ENGINE_POOL_SIZE: '4' },
	'no observability': { N8N_EXPRESSION_ENGINE_OBSERVABILITY_ENABLED: 'false', N8N_EXPRESSION_ENGINE_TRACES_ENABLED: 'false' },
	'compile cache': { N8N_EXPRESSION_ENGINE_COMPILE_CACHE: 'true' },
	'legacy engine (N8N_EXPRESSION_ENGINE)': { N8N_EXPRESSION_ENGINE: 'legacy' },
};
const chosen = process.env.BENCH_ENGINE_SETTINGS ? process.env.BENCH_ENGINE_SETTINGS.split(',').map((s) => s.trim()) : Object.keys(SETTINGS);
for (const name of chosen) if (!SETTINGS[name]) throw new Error(`unknown setting ${name}; choose from ${Object.keys(SETTINGS).join(', ')}`);

await beginRun();
const rows: Row[] = [];
let defaults: { ours: number; refused: number } | undefined;
for (const name of chosen) {
	const b = await startTriggerN8n(SETTINGS[name]);
	try {
		const hooks = await setUpHooks(b);
		const expected: Record<Hook, number> = { plain: 0, ours: 0, floor: 0, secretFloor: 0 };
		const accept = async (which: Hook, count: number) => {
			const r = await fire(hooks[which].url, 16, count, () => signed(event()));
			expected[which] += r.statuses[200] ?? 0;
			await drain(b, hooks[which].id, expected[which]);
			return r;
		};
		for (const which of ['plain', 'floor', 'ours'] as const) await accept(which, 40); // warm-up
		const half = Math.ceil(N / 2);
		const acc: Record<Hook, LoadResult[]> = { plain: [], floor: [], ours: [], secretFloor: [] };
		for (let round = 0; round < 2; round++) for (const which of ['plain', 'floor', 'ours'] as const) acc[which].push(await accept(which, half));
		const [plain, floor, ours] = (['plain', 'floor', 'ours'] as const).map((w) => merge(acc[w][0], acc[w][1]));
		const refused = merge(await fire(hooks.ours.url, 16, half, badSignature), await fire(hooks.ours.url, 16, half, badSignature));
		const floorRefused = merge(await fire(hooks.floor.url, 16, half, floorRefuse), await fire(hooks.floor.url, 16, half, floorRefuse));
		const stored = await executionCount(b.rest, hooks.ours.id);
		if (stored !== expected.ours) say(`${name}: ours stored ${stored} executions, expected ${expected.ours}`);
		defaults ??= { ours: ours.perSecond, refused: refused.perSecond };
		const vsDefault = (x: number, d: number) => `${fmt(x / d, 2)} × default`;
		say(`${name}: ours ${fmt(ours.perSecond)}/s accepted, ${fmt(refused.perSecond)}/s refused; floor ${fmt(floor.perSecond)} / ${fmt(floorRefused.perSecond)}; plain ${fmt(plain.perSecond)}`);
		rows.push(
			info(`${name}: ours accepted/s (p99)`, `${fmt(ours.perSecond)}/s (${fmt(ours.p99, 0)} ms)`, vsDefault(ours.perSecond, defaults.ours)),
			info(`${name}: ours refused (401)/s (p99)`, `${fmt(refused.perSecond)}/s (${fmt(refused.p99, 0)} ms)`, vsDefault(refused.perSecond, defaults.refused)),
			info(`${name}: floor accepted / refused per s`, `${fmt(floor.perSecond)} / ${fmt(floorRefused.perSecond)}`, `plain Webhook node accepted ${fmt(plain.perSecond)}/s (p99 ${fmt(plain.p99, 0)} ms)`),
		);
	} finally {
		await b.stop();
	}
}
print(table(`Benchmark 3c: expression-engine settings, ${N} deliveries each at concurrency 16 — ${machine()}`, rows));
print(conditionsTable('bench:engine'));
