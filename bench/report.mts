// Printing and statistics shared by the benchmarks. Nothing here fails on a
// number: a goal is reported as met or missed, and the run goes on.
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export interface Row {
	measure: string;
	value: string;
	/** What the value is compared with, when there is a goal. */
	reference?: string;
	ratio?: number;
	goal?: string;
	met?: boolean;
}

export function fmt(n: number, digits = 1): string {
	if (!Number.isFinite(n)) return String(n);
	return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const HEAD = ['measure', 'value', 'reference', 'ratio', 'goal', 'result'];

/** A markdown table; `head` renames the columns (e.g. for profiles). */
export function table(title: string, rows: Row[], head = HEAD): string {
	const cells = rows.map((r) => [
		r.measure,
		r.value,
		r.reference ?? '',
		r.ratio === undefined ? '' : `${fmt(r.ratio, 3)}`,
		r.goal ?? '',
		r.met === undefined ? '' : r.met ? 'met' : 'MISSED',
	]);
	const used = head.map((_, i) => i < 2 || cells.some((c) => c[i] !== ''));
	const keep = <T,>(xs: T[]) => xs.filter((_, i) => used[i]);
	return render(title, keep(head), cells.map(keep));
}

/** A markdown table with columns of its own: `head`, then one row of cells each. */
export function render(title: string, head: string[], cells: string[][]): string {
	const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
	const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i])).join(' | ')} |`;
	const out = [`### ${title}`, '', line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)];
	return out.join('\n');
}

export function print(text: string): void {
	process.stdout.write(`${text}\n\n`);
}

/** Progress on stderr so stdout stays the report. */
export function say(msg: string): void {
	process.stderr.write(`[bench] ${msg}\n`);
}

export function envInt(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const n = Number(raw);
	if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`);
	return n;
}

export function percentile(sorted: number[], p: number): number {
	if (sorted.length === 0) return NaN;
	const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
	return sorted[i];
}

export function median(values: number[]): number {
	return percentile([...values].sort((a, b) => a - b), 50);
}

export function machine(): string {
	const noisy = start?.noisy ? ` — NOISY (1-min load ${fmt(start.load[0], 2)} before the start)` : '';
	return `${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}, ${new Date().toISOString()}${noisy}`;
}

// ---- how quiet the machine was ------------------------------------------------

/** A run whose 1-minute load average was above this before it started is marked NOISY. */
export const NOISY_LOAD = 1.5;

const loadAverage = (): number[] => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);

/** Aggregate CPU jiffies from /proc/stat: all of them, and those stolen by the hypervisor. */
function cpuJiffies(): { total: number; steal: number } {
	const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
	// user nice system idle iowait irq softirq steal (guest time is already inside user)
	return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

const stealPercent = (from: { total: number; steal: number }, to: { total: number; steal: number }) =>
	to.total > from.total ? (100 * (to.steal - from.steal)) / (to.total - from.total) : 0;

let start: { load: number[]; stealBefore: number; jiffies: ReturnType<typeof cpuJiffies>; at: string; noisy: boolean } | undefined;

/**
 * Call first thing in a benchmark: records the load average and the CPU steal over the
 * second before the start (nothing of ours runs then). Tables printed afterwards carry
 * NOISY in their title when the 1-minute load was above NOISY_LOAD.
 */
export async function beginRun(): Promise<void> {
	const a = cpuJiffies();
	await new Promise((r) => setTimeout(r, 1000));
	const jiffies = cpuJiffies();
	const load = loadAverage();
	start = { load, stealBefore: stealPercent(a, jiffies), jiffies, at: new Date().toISOString(), noisy: load[0] > NOISY_LOAD };
	say(`load average before the start ${load.map((l) => fmt(l, 2)).join(' ')}, steal ${fmt(start.stealBefore, 1)} %${start.noisy ? ' — NOISY' : ''}`);
}

/** Load and steal before and after the run, for the end of a benchmark's output. */
export function conditionsTable(name: string): string {
	if (!start) throw new Error('beginRun() was not called');
	const load = loadAverage();
	const during = stealPercent(start.jiffies, cpuJiffies());
	const la = (l: number[]) => l.map((x) => fmt(x, 2)).join(' / ');
	return table(`Machine during ${name}: ${start.noisy ? `NOISY (1-min load above ${NOISY_LOAD} before the start)` : 'quiet'}`, [
		info('load average 1 / 5 / 15 min, before the start', la(start.load), start.at),
		info('load average 1 / 5 / 15 min, after the run', la(load), new Date().toISOString()),
		info('CPU steal, the second before the start', `${fmt(start.stealBefore, 1)} %`),
		info('CPU steal, start to end of the run', `${fmt(during, 1)} %`),
	]);
}

function goal(better: 'lower' | 'higher', measure: string, ours: number, reference: number, limit: number, unit: string, digits: number): Row {
	const ratio = ours / reference;
	return {
		measure,
		value: `${fmt(ours, digits)} ${unit}`,
		reference: `${fmt(reference, digits)} ${unit}`,
		ratio,
		goal: `${better === 'lower' ? '≤' : '≥'} ${limit} ×`,
		met: better === 'lower' ? ratio <= limit : ratio >= limit,
	};
}

/** A goal "ours ≤ limit × reference" (lower is better). */
export function atMost(measure: string, ours: number, reference: number, limit: number, unit: string, digits = 1): Row {
	return goal('lower', measure, ours, reference, limit, unit, digits);
}

/** A goal "ours ≥ limit × reference" (higher is better). */
export function atLeast(measure: string, ours: number, reference: number, limit: number, unit: string, digits = 1): Row {
	return goal('higher', measure, ours, reference, limit, unit, digits);
}

export function info(measure: string, value: string, reference?: string): Row {
	return { measure, value, reference };
}
