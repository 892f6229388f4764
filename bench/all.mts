// Runs every benchmark, one after another (never two at once: they would
// share the two cores), and prints the machine first.
//   npm run bench                  all of them
//   npm run bench -- orders trigger    only these
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { NOISY_LOAD } from './report.mts';

const ALL = ['signature', 'orders', 'campaign', 'memory', 'trigger', 'engine', 'election', 'queue'];
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
for (const name of chosen) if (!ALL.includes(name)) throw new Error(`unknown benchmark ${name}; choose from ${ALL.join(', ')}`);

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' }).trim();
process.stdout.write(
	['## Machine', '', '```', `$ nproc\n${sh('nproc', [])}`, `$ free -h\n${sh('free', ['-h'])}`, `$ node --version\n${process.version}`, '```', ''].join('\n') + '\n',
);
let failed = 0;
/**
 * The previous benchmark's own n8n lifts the 1-minute load average, which decays over
 * about a minute; wait (bounded) for it to settle so the next one is not marked NOISY
 * for our own load.
 */
async function settle(): Promise<void> {
	const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
	const deadline = Date.now() + Number(process.env.BENCH_SETTLE_MS ?? 240_000);
	while (load() > NOISY_LOAD && Date.now() < deadline) await sleep(5000);
}

for (const name of chosen) {
	await settle();
	process.stdout.write(`## bench:${name}\n\n`);
	const t0 = Date.now();
	const r = spawnSync(process.execPath, ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', new URL(`./${name}.mts`, import.meta.url).pathname], {
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	if (r.status !== 0) failed++;
	process.stdout.write(`(bench:${name} took ${Math.round((Date.now() - t0) / 1000)} s${r.status === 0 ? '' : `, exited ${r.status ?? r.signal}`})\n\n`);
}
process.exitCode = failed ? 1 : 0;
