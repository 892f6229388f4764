// Runs every benchmark, one after another (never two at once: they would
// share the two cores), and prints the machine first.
//   npm run bench                  all of them
//   npm run bench -- orders trigger    only these
import { execFileSync, spawnSync } from 'node:child_process';

const ALL = ['signature', 'orders', 'campaign', 'memory', 'trigger', 'engine'];
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
for (const name of chosen) if (!ALL.includes(name)) throw new Error(`unknown benchmark ${name}; choose from ${ALL.join(', ')}`);

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' }).trim();
process.stdout.write(
	['## Machine', '', '```', `$ nproc\n${sh('nproc', [])}`, `$ free -h\n${sh('free', ['-h'])}`, `$ node --version\n${process.version}`, '```', ''].join('\n') + '\n',
);
let failed = 0;
for (const name of chosen) {
	process.stdout.write(`## bench:${name}\n\n`);
	const t0 = Date.now();
	const r = spawnSync(process.execPath, ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', new URL(`./${name}.mts`, import.meta.url).pathname], {
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	if (r.status !== 0) failed++;
	process.stdout.write(`(bench:${name} took ${Math.round((Date.now() - t0) / 1000)} s${r.status === 0 ? '' : `, exited ${r.status ?? r.signal}`})\n\n`);
}
process.exitCode = failed ? 1 : 0;
