// Printing and statistics shared by the benchmarks. Nothing here fails on a
// number: a goal is reported as met or missed, and the run goes on.
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

function render(title: string, head: string[], cells: string[][]): string {
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
	return `${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}, ${new Date().toISOString()}`;
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
