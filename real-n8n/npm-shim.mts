// An `npm` that stands in front of the real one on the n8n process's PATH, so that n8n's
// editor installer (Settings → Community Nodes) gets our package from a registry on
// loopback (registry.mts) instead of registry.npmjs.org:
//
//   const shim = writeNpmShim(registry.url);
//   await startInstance({ tarballs: [], pathFirst: shim.dir, ... });
//   shim.commands();   // the npm command lines n8n ran, e.g. ['outdated --json', ...]
//   shim.remove();
//
// Why: n8n passes `--registry=<its registry>` to the npm commands it runs (`outdated`
// gets none), and pointing that setting (N8N_COMMUNITY_PACKAGES_REGISTRY) anywhere else is
// a licensed feature: without the licence n8n answers "Your license does not allow for
// feat:communityNodes:customRegistry" (2.41.1 and 1.85.3). The shim drops any
// `--registry=...`, adds the local one and a cache of its own, and runs the real npm with
// the rest unchanged.
import {
	accessSync,
	appendFileSync,
	constants,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface NpmShim {
	/** The folder holding the `npm` stand-in: put it first on n8n's PATH. */
	dir: string;
	/** The npm command lines run through the shim so far, arguments as n8n passed them. */
	commands(): string[];
	remove(): void;
}

/** The first executable `npm` on PATH: what n8n would run without the shim. */
function realNpm(path = process.env.PATH ?? ''): string {
	for (const folder of path.split(delimiter).filter(Boolean)) {
		const candidate = join(folder, 'npm');
		try {
			accessSync(candidate, constants.X_OK);
			return candidate;
		} catch {
			/* not here */
		}
	}
	throw new Error('no npm on PATH');
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function writeNpmShim(registryUrl: string, npm = realNpm()): NpmShim {
	const dir = mkdtempSync(join(tmpdir(), 'voucher-npm-shim-'));
	const log = join(dir, 'commands.log');
	appendFileSync(log, '');
	// POSIX sh: n8n 1.x runs npm through a shell, 2.x with execFile; both find it on PATH.
	writeFileSync(
		join(dir, 'npm'),
		`#!/bin/sh
# Stands in for npm (real-n8n/npm-shim.mts): the registry is the local one, the rest is npm's.
# Its own cache: a tarball of an earlier run with the same bytes would not be fetched.
printf '%s\\n' "$*" >> ${quote(log)}
for arg do
  shift
  case "$arg" in
    --registry=*) ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec ${quote(npm)} "$@" ${quote(`--registry=${registryUrl}`)} ${quote(`--cache=${join(dir, 'cache')}`)}
`,
		{ mode: 0o755 },
	);
	return {
		dir,
		commands: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
		remove: () => rmSync(dir, { recursive: true, force: true }),
	};
}
