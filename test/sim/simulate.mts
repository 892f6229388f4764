/**
 * Runs one simulator case against a sandbox: its steps (edits, runs cut into pages, two runs
 * at once, kills, reports), each under its own faults, then a clean run over each final
 * sheet; after every step, the rules of model.mts against the sandbox's books. Returns every
 * rule broken.
 */
import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox/server.mts';
import { Books } from './books.mts';
import type { ExecutionRecord, Violation } from './books.mts';
import { simCases } from './generate.mts';
import type { FaultSpec, RunOptions, SimCase, Step } from './generate.mts';
import { legacyRun } from './legacyRun.mts';
import { runExecution } from './lightExecution.mts';
import { buyable, READ_CAPS, scopeOf, UNSTABLE_ROW_ID_COLUMN } from './model.mts';
import type { Limits, ModelRow } from './model.mts';
import {
	checkEveryRowBought,
	checkExecution,
	checkReport,
	refusedForOldNames,
} from './outcomes.mts';
import { applyEdit, itemOf, openSheet, pagesOf, rowsOf, sliceOf } from './sheet.mts';
import type { Sheet } from './sheet.mts';
import { warped } from './timeWarp.mts';

/** The clean run's options (C9): waiting for every order, no limits. */
const CLEAN: RunOptions = {
	waitForCompletion: true,
	waitTimeoutSeconds: 3600,
	dryRun: false,
	continueOnFail: true,
	statesOldNames: true,
};

interface Planned {
	sheet: Sheet;
	rows: ModelRow[];
	options: RunOptions;
	kill?: number;
	rowIdColumn?: Sheet['rowIds'];
}

/** `oldNames`: what Orders Named by 0.3.0 says when the run states the truth. */
function campaignParameters(
	sheet: Sheet,
	options: RunOptions,
	rowIdColumn: Sheet['rowIds'],
	oldNames: 'thisCampaign' | 'ignore',
) {
	const { continueOnFail: _, statesOldNames, ...nodeOptions } = options;
	if (statesOldNames) Object.assign(nodeOptions, { oldBlockNames: oldNames });
	return {
		resource: 'order',
		operation: 'createForRecipients',
		recipientsSource: 'inputItems',
		reference: sheet.base,
		productCode: '={{ $json.product }}',
		amount: '={{ $json.amount }}',
		templateId: '={{ $json.template }}',
		rowIdField: rowIdColumn === 'none' ? '' : rowIdColumn,
		options: nodeOptions,
	} as INodeParameters;
}

/** The sandbox's fault options for a step of this campaign. */
function sandboxFaults(spec: FaultSpec, sheet: Sheet) {
	const { notFound } = spec;
	// Today's block names and 0.3.0's alike: a gateway's rule matches a path, not a campaign.
	const references =
		notFound === undefined
			? []
			: sheet.rowIds === 'none'
				? [`${sheet.base}-${notFound.number}`]
				: [
						`${sheet.base}-k${notFound.block}-n${notFound.number}`,
						`${sheet.base}-b${notFound.block}-${notFound.number}`,
					];
	return {
		faults: {
			...(spec.rates ? { ...spec.rates, drawBy: 'request' as const } : {}),
			...(spec.gateway ? { gateway: spec.gateway } : {}),
		},
		gatewayNotFound: references.map((reference) => `/${reference}`),
		gatewayNotFoundBody: notFound?.body ?? 'html',
		gatewayNotFoundOnceMade: notFound?.onceMade === true,
		phantomOrders: spec.phantomOrders === true,
	};
}

/** Past every cap the execution may meet, it is a runaway (C11): discovery, guard and blocks. */
const readBound = (scopes: string[]) =>
	READ_CAPS.sheet + new Set(scopes).size * READ_CAPS.block + 100;

export interface SimOptions {
	/** Invariants not to count (the long run's --skip). */
	skip?: string[];
	/** Told of every execution once it ended, to explain a case (the long run's --replay). */
	trace?: (record: ExecutionRecord) => void;
}

export async function simulate(
	sbx: Sandbox,
	simCase: SimCase,
	{ skip = [], trace }: SimOptions = {},
): Promise<Violation[]> {
	sbx.reset();
	sbx.configure({
		dialect: simCase.dialect,
		processingDelayMs: simCase.processingDelayMs,
		faults: {},
		gatewayNotFound: [],
		gatewayNotFoundOnceMade: false,
		phantomOrders: false,
	});
	const books = new Books(sbx);
	const counter = { next: 0 };
	const sheets = simCase.campaigns.map((spec) => openSheet(spec, counter));
	const credential = { baseUrl: sbx.url, ...sbx.keys, maxOrderTotal: simCase.credentialLimit };
	const cleanCredential = { ...credential, maxOrderTotal: 0 };
	let executions = 0;
	/** Bases begun on 0.3.0: their 0.3.0-named orders are theirs. */
	const begunOn030 = new Set<string>();

	const limitsOf = (options: RunOptions): Limits => ({
		orderNgn: Math.min(
			...[simCase.credentialLimit, options.maxOrderTotal ?? 0].filter((limit) => limit > 0),
			Infinity,
		),
		runNgn: options.maxRunTotal ?? 0,
	});

	async function execute(step: string, planned: Planned[], together: boolean, clean = false) {
		const record = async ({
			sheet,
			rows,
			options,
			kill,
			rowIdColumn = sheet.rowIds,
		}: Planned): Promise<ExecutionRecord> => {
			const id = `${step}.${++executions}`;
			const result = await runExecution({
				id,
				parameters: campaignParameters(
					sheet,
					options,
					rowIdColumn,
					begunOn030.has(sheet.base) ? 'thisCampaign' : 'ignore',
				),
				items: rows.map((row) => itemOf(row, sheet)),
				credential: clean ? cleanCredential : credential,
				continueOnFail: options.continueOnFail,
				kill: kill === undefined ? undefined : { after: kill },
				maxOrderReads: readBound(rows.map((row) => scopeOf(row.rowId))),
			});
			const fed = rowIdColumn === 'none' ? rows.map((row) => ({ ...row, rowId: undefined })) : rows;
			const limits = clean ? { orderNgn: 0, runNgn: 0 } : limitsOf(options);
			const base = sheet.base;
			return { id, step, base, kind: 'campaign', rowIdColumn, rows: fed, options, limits, result };
		};
		if (together) return await Promise.all(planned.map(record));
		const records: ExecutionRecord[] = [];
		for (const next of planned) records.push(await record(next));
		return records;
	}

	async function report(step: string, sheet: Sheet) {
		const paged =
			(books.modeOf(sheet.base) ?? (sheet.rowIds === 'none' ? 'sheet' : 'paged')) === 'paged';
		const highest = Math.max(0, ...sheet.lines.map((line) => line.rowId ?? 0));
		const id = `${step}.${++executions}`;
		const result = await runExecution({
			id,
			parameters: {
				resource: 'order',
				operation: 'getCampaign',
				reference: sheet.base,
				...(paged ? { rowIdsFrom: '0', rowIdsTo: String(highest + 200) } : {}),
				// Orders Named by 0.3.0, stated truly as a user who knows the campaign would.
				options: { oldBlockNames: begunOn030.has(sheet.base) ? 'thisCampaign' : 'ignore' },
			},
			items: [{}],
			credential,
			continueOnFail: true,
			maxOrderReads: READ_CAPS.report + 100,
		});
		const options = { ...CLEAN, waitForCompletion: false };
		const base = sheet.base;
		const limits = { orderNgn: 0, runNgn: 0 };
		return {
			id,
			step,
			base,
			kind: 'report',
			rowIdColumn: 'none',
			rows: [],
			options,
			limits,
			result,
		} as ExecutionRecord;
	}

	async function runStep(label: string, step: Step) {
		const sheet = sheets[step.base % sheets.length];
		if (step.kind === 'edit') return applyEdit(sheet, step.edit, counter);
		const before = books.holdings();
		let records: ExecutionRecord[];
		if (step.kind === 'report') {
			records = [await report(label, sheet)];
		} else if (step.kind === 'legacy') {
			// Only before every run of today's code, as 0.3.0 came before it: a 0.3.0 campaign made
			// after another campaign's orders would play 0.3.0's own name clash (defect 3), not ours.
			if (sheet.rowIds !== 'id' || sbx.state.orders.size > 0) return;
			begunOn030.add(sheet.base);
			const id = `${label}.${++executions}`;
			const rows = rowsOf(sheet);
			const requests = await legacyRun(sbx, id, sheet.base, rows);
			const result = { hints: [], requests, killed: false, runaway: false };
			const options = CLEAN;
			const limits = { orderNgn: 0, runNgn: 0 };
			const base = sheet.base;
			records = [
				{ id, step: label, base, kind: 'legacy', rowIdColumn: 'id', rows, options, limits, result },
			];
		} else {
			sbx.configure(sandboxFaults(step.faults, sheet));
			const rows = rowsOf(sheet);
			let planned: Planned[];
			let together = false;
			if (step.kind === 'race' && sheet.rowIds !== 'none') {
				// C7: two runs at once only for a paged campaign; a whole sheet runs alone.
				planned = step.slices.map(({ from, length }, i) => ({
					sheet,
					rows: sliceOf(rows, from, length),
					options: step.options[i],
					kill: step.kill?.run === i ? step.kill.after : undefined,
				}));
				together = true;
			} else {
				const options = step.kind === 'race' ? step.options[0] : step.options;
				const cut =
					step.kind === 'run' && sheet.rowIds !== 'none' ? step.cut : { kind: 'whole' as const };
				const pages = pagesOf(rows, cut);
				const kill = step.kind === 'run' ? step.kill : undefined;
				planned = pages.map((page, i) => ({
					sheet,
					rows: page,
					options,
					kill: kill && kill.page % pages.length === i ? kill.after : undefined,
				}));
				together = step.kind === 'run' && step.together && sheet.rowIds !== 'none';
			}
			records = await execute(label, planned, together);
			sbx.configure({
				faults: {},
				gatewayNotFound: [],
				gatewayNotFoundOnceMade: false,
				phantomOrders: false,
			});
		}
		books.attribute(label, records);
		for (const record of records) trace?.(record);
		for (const record of records)
			if (record.kind === 'report') checkReport(books, record);
			else if (record.kind === 'campaign') checkExecution(books, record);
		if (step.kind === 'run' && step.everyRow)
			for (const record of records) checkEveryRowBought(books, record);
		books.checkLedger(label, records, before);
	}

	/** C9: the whole final sheet, clean, in the campaign's mode; every row not refused held. */
	async function settle(label: string, sheet: Sheet) {
		const mode = books.modeOf(sheet.base);
		const rowIdColumn =
			mode === 'sheet' ? 'none' : mode === 'paged' && sheet.rowIds === 'none' ? 'id' : sheet.rowIds;
		const opaque = simCase.dialect.templateIds === 'opaque';
		const rows = rowsOf({ ...sheet, rowIds: rowIdColumn })
			.filter((row) => buyable(row, opaque))
			.map((row) => (rowIdColumn === 'none' ? { ...row, rowId: undefined } : row));
		if (rows.length === 0 || sheet.base === '') return;
		const before = books.holdings();
		const expected = books.cleanRunDecisions(sheet.base, rows);
		const [record] = await execute(
			label,
			[{ sheet, rows, options: CLEAN, rowIdColumn }],
			false,
			true,
		);
		books.attribute(label, [record]);
		trace?.(record);
		checkExecution(books, record);
		books.checkLedger(label, [record], before);
		if (rowIdColumn === UNSTABLE_ROW_ID_COLUMN || !record.result.output) return;
		for (const item of record.result.output) {
			const index = (item.pairedItem as { item: number }).item;
			const held = item.json.voucher !== null && typeof item.json.voucher === 'object';
			const wanted = expected[index];
			const error = String(item.json.error ?? '');
			if (refusedForOldNames(books, error)) continue;
			const refusal = /already has a voucher/.test(error);
			if ((wanted === 'held') !== held || (wanted !== 'held' && !refusal))
				books.fail(
					'C9',
					'clean-run-row',
					label,
					`row ${rows[index].line} (${rows[index].email.trim()}, ${rows[index].amount}) should be ${wanted}: ${JSON.stringify(item.json).slice(0, 300)}`,
				);
		}
	}

	await warped(simCase.warp, async () => {
		for (const [index, step] of simCase.steps.entries()) await runStep(String(index + 1), step);
		for (const sheet of sheets) await settle('clean', sheet);
	});
	return books.violations.filter((v) => !skip.includes(v.invariant));
}

/** A failing case a long run found and shrank, kept to be replayed by the unit suite. */
export interface Regression {
	/** The invariants it broke when found, and on which commit. */
	invariants: string[];
	found: string;
	/** fast-check's seed and path of the shrunk case, for `npm run sim -- --seed S --path P`. */
	seed: number;
	path: string;
	case: SimCase;
}

/** A case's violations, one line per invariant with its first detail, for a failure message. */
export function describeViolations(violations: Violation[]): string {
	const byInvariant = new Map<string, Violation[]>();
	for (const v of violations)
		byInvariant.set(v.invariant, [...(byInvariant.get(v.invariant) ?? []), v]);
	return [...byInvariant.values()]
		.map(
			([first, ...more]) =>
				`${first.rule} ${first.invariant} (step ${first.step}${more.length ? `, ${more.length} more` : ''}): ${first.detail}`,
		)
		.join('\n');
}

/** The rules as a fast-check property over generated cases: a case fails with its violations. */
export const simProperty = (sbx: Sandbox, options: SimOptions = {}) =>
	fc.asyncProperty(simCases, async (generated) => {
		const violations = await simulate(sbx, generated, options);
		if (violations.length > 0) throw new Error(describeViolations(violations));
	});

/** One execution as a few lines: what it was fed, what it sent, what each row got. */
export function describeExecution(record: ExecutionRecord): string {
	const { result } = record;
	const head = `${record.id} ${record.kind} "${record.base}" Row ID ${record.rowIdColumn} ${JSON.stringify(record.options)}${result.killed ? ' KILLED' : ''}${result.runaway ? ' RUNAWAY' : ''}`;
	const sent = result.requests.map(
		(r) =>
			`  ${r.unsent ? '(unsent) ' : ''}${r.method} ${r.path} ${r.status ?? 'no answer'}${r.method === 'POST' ? ` ${JSON.stringify(r.body)}` : ''}`,
	);
	const rows = (result.output ?? []).map(
		(item) =>
			`  row ${record.rows[(item.pairedItem as { item: number }).item]?.line}: ${JSON.stringify(item.json).slice(0, 400)}`,
	);
	return [
		head,
		...sent,
		...rows,
		...(result.error ? [`  threw: ${result.error.message}`] : []),
	].join('\n');
}
