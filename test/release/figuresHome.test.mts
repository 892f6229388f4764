/**
 * bench/RESULTS.md is the one home of every measured figure in the repository (issue #18):
 * other Markdown files link to its sections instead of copying its tables or its analyses.
 * This fails on a line elsewhere, table row or prose, that holds a measured figure: a ratio,
 * a time or a rate with decimals, or any figure in µs; and on a table with a Ratio column.
 * Behaviour constants stay allowed: whole seconds and milliseconds ("polls every 1 s",
 * "200 ms to 3 s"), counts ("retries 10 times", "5,000 events"), goals ("≤ 0.5 ×"), growth
 * factors ("1.5× per poll"), versions (2.41.1), code spans and fenced code.
 */
import { describe, expect, it } from 'vitest';

import { readRepoFile, repoFiles } from '../../scripts/repoFiles.mts';

const HOME = 'bench/RESULTS.md';

/** Not part of a longer number, a version or a word; not after a comparison (a goal or a bound). */
const START = String.raw`(?<![\w.,]|[≤≥<>~]\s*)`;
const DECIMAL = String.raw`${START}\d[\d,]*\.\d+(?![\d.])`;
const NUMBER = String.raw`${START}\d[\d,]*(?:\.\d+)?(?![\d.])`;
/** "2.4 (2.8) ×": the unit may follow a figure in parentheses. */
const THEN = String.raw`(?:\s*\(\s*\d[\d,]*(?:\.\d+)?\s*\))?\s*`;

const MEASURED: Array<[string, RegExp]> = [
	['a figure in µs', new RegExp(`${NUMBER}${THEN}µs`)],
	['a time with decimals', new RegExp(`${DECIMAL}${THEN}(?:ms|s|min)(?!\\w)`)],
	[
		'a rate with decimals',
		new RegExp(`${DECIMAL}${THEN}(?:[a-z]+\\s*)?(?:/\\s*s\\b|per s(?:econd)?\\b)`),
	],
	['a ratio', new RegExp(`${DECIMAL}${THEN}×(?!\\s*per\\b)`)],
	['a percentage with decimals', new RegExp(`${DECIMAL}\\s*%`)],
];

const cells = (row: string) =>
	row
		.trim()
		.replace(/^\||\|$/g, '')
		.split('|');

/** Inline code is quoted input, not a figure: `0.1 × 3`. */
const withoutCode = (line: string) => line.replace(/`[^`]*`/g, '``');

/**
 * The lines of a Markdown text that hold a measured figure, as "line: what: text". In a
 * table, a column headed "Ratio" holding a decimal counts as well: that is a results table.
 */
function measuredLines(markdown: string): string[] {
	const found: string[] = [];
	let fenced = false;
	let ratioColumn = -1;
	let header = true;
	markdown.split('\n').forEach((raw, index) => {
		if (/^\s*(```|~~~)/.test(raw)) fenced = !fenced;
		if (fenced) return;
		const line = withoutCode(raw);
		const inTable = /^\s*\|/.test(line);
		if (inTable && header) {
			ratioColumn = cells(line).findIndex((cell) => /^\s*ratio\s*$/i.test(cell));
			header = false;
		} else if (!inTable) {
			header = true;
			ratioColumn = -1;
		}
		const reasons = MEASURED.filter(([, pattern]) => pattern.test(line)).map(([what]) => what);
		const ratioCell = inTable && ratioColumn >= 0 ? cells(line)[ratioColumn] : undefined;
		if (ratioCell !== undefined && /\d\.\d/.test(ratioCell)) reasons.push('a ratio column');
		if (reasons.length > 0) found.push(`${index + 1}: ${reasons.join(', ')}: ${raw.trim()}`);
	});
	return found;
}

const asTable = (...rows: string[]) => ['| Measure | Value |', '|---|---|', ...rows].join('\n');

describe('bench/RESULTS.md is the one home of measured figures', () => {
	const markdownFiles = repoFiles().filter((file) => file.endsWith('.md') && file !== HOME);

	it.each(markdownFiles)('%s copies no table of measured figures', (file) => {
		expect(measuredLines(readRepoFile(file)), `link to ${HOME} instead`).toEqual([]);
	});

	it('finds the measured figures of bench/RESULTS.md itself', () => {
		// One row per goal and a few lines of prose since the file holds current figures only (issue #28).
		expect(measuredLines(readRepoFile(HOME)).length).toBeGreaterThan(15);
	});

	it.each([
		'| Download orders at 25 ms, wall time | 4.22 s | HTTP Request node 10.17 s |',
		'| Trigger, refused, cost each at c=16 | 61.6 / 58.1 / 60.2 ms | floor 34.7 ms |',
		'| Trigger, accepted deliveries, c=1 / c=16 | 8.2 / 8.6 per s | |',
		'| 2,000 orders against a limit | 97.2 admitted/s | the limit |',
		'| admitted requests/s vs the permitted rate | 97.2 /s | 100.0 /s |',
		'| per-request overhead @0 ms | 1.34 ms/req | 3.51 ms/req |',
		'| Trigger with lazy acquire (+ pool 4) | 18.9 (22.0) per s accepted | 2.4 (2.8) × |',
		'| Legacy engine: accepted / refused | 7.92 / 10.62 × | |',
		'| expression evaluation | 1,366 ms | 683 µs/req |',
		"  | of which our node's code | | | | 1.2 ms |",
		'| n8n busy during the network part | 52.3 % | |',
	])('flags %s', (row) => {
		expect(measuredLines(asTable(row))).toHaveLength(1);
	});

	it('flags a decimal in a Ratio column', () => {
		const table = ['| Benchmark | Ours | Ratio |', '|---|---|---|', '| Discovery | 87 ms | 0.09 |'];
		expect(measuredLines(table.join('\n'))).toEqual([
			'3: a ratio column: | Discovery | 87 ms | 0.09 |',
		]);
	});

	it.each([
		'| Wait for Completion | off | Polls start after 1 s and grow 1.5× per poll, up to 15 s apart. |',
		'| Maximum Order Total (NGN) | 0 (none) | compared in integer kobo, so `0.1 × 3` is exact |',
		'| Orders at 25 ms: wall ≤ 0.5 × DIY, default settings | Benchmark 2 |',
		'| Campaign network part ≤ 1.15 × model | Benchmark 1 |',
		'| `npm run bench:orders` | 2. download orders | ~10 min |',
		'| 100 existing orders, no gaps | 100 + 32 = 132 | 5 |',
		'| 2.41.1 | 24 | 2026-11-24 |',
		'| `processingDelayMs` | `SANDBOX_PROCESSING_DELAY_MS` | 1500 | how long an order stays |',
		'| reads | retried 10 times, 200 ms to 3 s apart, a 45 minutes retry window | |',
		'| Coupon | `SAVE10` | 10% off |',
	])('leaves the behaviour constant alone: %s', (row) => {
		expect(measuredLines(asTable(row))).toEqual([]);
	});

	it('reads prose too, but not fenced code', () => {
		const text = [
			'n8n spent 1,674 µs of CPU per request; the network part took 0.4 s.',
			'```',
			'| a | 4.22 s |',
			'```',
		].join('\n');
		expect(measuredLines(text)).toEqual([
			'1: a figure in µs, a time with decimals: n8n spent 1,674 µs of CPU per request; the network part took 0.4 s.',
		]);
	});
});
