/**
 * One worker of `npm run sim` (scripts/sim.mts): runs SIM_RUNS cases from SIM_SEED against a
 * sandbox of its own, shrinks each failure to its smallest case and goes on with the next
 * seed, then writes what it found to SIM_OUT. With SIM_PATH (or SIM_CASE, a case's JSON) it
 * replays one case and prints every execution of it.
 */
import { readFileSync, writeFileSync } from 'node:fs';

import fc from 'fast-check';
import { afterAll, it } from 'vitest';

import { startSandbox } from '../../sandbox/server.mts';
import { simCases } from './generate.mts';
import type { SimCase } from './generate.mts';
import { describeExecution, describeViolations, simulate } from './simulate.mts';

const env = process.env;
const skip = (env.SIM_SKIP ?? '').split(',').filter(Boolean);
const sbx = await startSandbox();
afterAll(async () => await sbx.close());

export interface WorkerReport {
	runs: number;
	/** Wall time, and the part of it spent shrinking failures. */
	ms: number;
	shrinkMs: number;
	/** Cases that broke a set of rules already known, by that set. */
	repeats: Record<string, number>;
	failures: Array<{
		seed: number;
		path: string;
		case: SimCase;
		violations: string;
		shrinkMs: number;
	}>;
}

it('simulates', async () => {
	if (env.SIM_PATH !== undefined || env.SIM_CASE !== undefined) {
		const replayed: SimCase =
			env.SIM_CASE !== undefined
				? (JSON.parse(readFileSync(env.SIM_CASE, 'utf8')) as SimCase)
				: caseAt(Number(env.SIM_SEED), env.SIM_PATH!);
		const violations = await simulate(sbx, replayed, {
			trace: (record) => console.log(describeExecution(record)),
		});
		console.log(JSON.stringify(replayed));
		console.log(describeViolations(violations) || 'no rule broken');
		return;
	}
	const report: WorkerReport = { runs: 0, ms: 0, shrinkMs: 0, failures: [], repeats: {} };
	const wanted = Number(env.SIM_RUNS);
	const started = performance.now();
	// Sets of broken rules shrunk already (kept regressions, this run's failures): a case that
	// breaks one of them again is counted, not shrunk again, so a long run goes on hunting.
	const known = new Set<string>(JSON.parse(env.SIM_KNOWN ?? '[]') as string[]);
	let failedAt: number | undefined;
	let firstSignature = '';
	const property = fc.asyncProperty(simCases, async (generated) => {
		const violations = await simulate(sbx, generated, { skip });
		if (violations.length === 0) return;
		const signature = signatureOf(violations.map((v) => v.invariant));
		if (known.has(signature)) {
			if (failedAt === undefined) report.repeats[signature] = (report.repeats[signature] ?? 0) + 1;
			return;
		}
		if (failedAt === undefined) firstSignature = signature;
		failedAt ??= performance.now();
		throw new Error(describeViolations(violations));
	});
	for (let seed = Number(env.SIM_SEED); report.runs < wanted; seed++) {
		failedAt = undefined;
		const details = await fc.check(property, { seed, numRuns: wanted - report.runs });
		report.runs += details.numRuns;
		if (details.failed) {
			const message = String((details.errorInstance as Error | undefined)?.message ?? '');
			known.add(firstSignature);
			known.add(signatureOf([...message.matchAll(/^C\d+ (\S+)/gm)].map((m) => m[1])));
			const shrinkMs = Math.round(performance.now() - failedAt!);
			report.shrinkMs += shrinkMs;
			report.failures.push({
				seed,
				path: details.counterexamplePath ?? '',
				case: details.counterexample![0],
				violations: message,
				shrinkMs,
			});
		}
	}
	report.ms = Math.round(performance.now() - started);
	writeFileSync(env.SIM_OUT!, JSON.stringify(report));
});

/** A set of broken rules, as the regressions file lists it. */
export const signatureOf = (invariants: string[]) =>
	JSON.stringify([...new Set(invariants)].sort());

/** The case fast-check's seed and path name: the first value the property is run on. */
function caseAt(seed: number, path: string): SimCase {
	let found: SimCase | undefined;
	fc.check(
		fc.property(simCases, (generated) => {
			found = generated;
			return false;
		}),
		{ seed, path, endOnFailure: true },
	);
	return found!;
}
