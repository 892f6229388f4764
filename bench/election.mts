// Benchmark 3d: what the run-once election costs the trigger's answers. Accepted
// deliveries at concurrency 1 to ours with "Suppress Duplicates" on (the election in
// execute()) and off, beside the secret floor, in alternating halves.
//   npm run bench:election
// Env: BENCH_ELECTION_N (deliveries per variant, default 100).
import { webhookCredential } from '../real-n8n/fixtures.mts';
import { fire, type LoadResult } from './load.mts';
import { beginRun, conditionsTable, envInt, fmt, machine, print } from './report.mts';
import { TRIGGER_SECRET, activeTriggerWorkflow, drain, event, merge, setUpHooks, signed, startTriggerN8n, voucherTriggerNode } from './triggerWorkflows.mts';

const N = envInt('BENCH_ELECTION_N', 100);
await beginRun();
const b = await startTriggerN8n();
try {
	const hooks = await setUpHooks(b);
	const cred = await webhookCredential(b.rest, 'Voucher webhooks (no election)', TRIGGER_SECRET);
	const HOOK = 'b3c4d5e6-0000-4000-8000-00000noelect';
	const withoutElection = await activeTriggerWorkflow(b, 'ours without election', voucherTriggerNode(HOOK, cred, { suppressDuplicates: false }));
	const variants = {
		secretFloor: hooks.secretFloor,
		ours: hooks.ours,
		oursNoElection: { id: withoutElection, url: `${b.n8n.url}/webhook/${HOOK}/webhook` },
	};
	const expected: Record<string, number> = { secretFloor: 0, ours: 0, oursNoElection: 0 };
	const run = async (name: keyof typeof variants, c: number, n: number) => {
		const r = await fire(variants[name].url, c, n, () => signed(event()));
		expected[name] += r.statuses[200] ?? 0;
		await drain(b, variants[name].id, expected[name]);
		return r;
	};
	for (const name of Object.keys(variants) as Array<keyof typeof variants>) await run(name, 4, 40);
	const halves: Record<string, LoadResult[]> = { secretFloor: [], ours: [], oursNoElection: [] };
	for (let round = 0; round < 2; round++) for (const name of Object.keys(variants) as Array<keyof typeof variants>) halves[name].push(await run(name, 1, N / 2));
	const lines = Object.entries(halves).map(([name, [a, c]]) => {
		const m = merge(a, c);
		return `| ${name} | ${fmt(m.perSecond)}/s | ${fmt(m.p50)} ms | ${fmt(m.p99)} ms | ${JSON.stringify(m.statuses)} |`;
	});
	print([`### Benchmark 3d: accepted deliveries at c=1, ${N} each in alternating halves, with and without the run-once election — ${machine()}`, '', '| variant | accepted/s | p50 | p99 | statuses |', '|---|---|---|---|---|', ...lines].join('\n'));
} finally {
	await b.stop();
}
print(conditionsTable('bench:election'));
