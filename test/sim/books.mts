/**
 * The simulator's reading of the sandbox's books: which campaign (and scope) made each order,
 * told from the creates each execution sent, never from the order's name (names are what
 * defect 3 gets wrong); and the ledger-wide rules checked after every step (model.mts): C1
 * (names and modes never meet), C4 (never more), and C8's "nothing bought" for every row
 * reported so.
 */
import type { IDataObject } from 'n8n-workflow';

import type {
	RequestLogEntry,
	Sandbox,
	SandboxOrder,
	SandboxVoucher,
} from '../../sandbox/server.mts';
import type { RunOptions, RowIdColumn } from './generate.mts';
import type { ExecutionResult } from './lightExecution.mts';
import {
	claims,
	demandOf,
	kobo,
	outcomeOf,
	PRODUCTS_WITH_VOUCHERS,
	oldBlockOfName,
	recipientKey,
	scopeOf,
	scopeOfName,
	slotOf,
} from './model.mts';
import type { Decision, Limits, ModelRow, ModelVoucher, Scope } from './model.mts';
import { cleanRunDecisions } from './model.mts';

export interface Violation {
	rule: string;
	invariant: string;
	step: string;
	detail: string;
}

/** One execution of a step, with what it was fed and what it did. */
export interface ExecutionRecord {
	id: string;
	step: string;
	base: string;
	/** `legacy`: orders a 0.3.0 run made for the campaign, under 0.3.0's names (simulate.mts). */
	kind: 'campaign' | 'report' | 'legacy';
	rowIdColumn: RowIdColumn;
	rows: ModelRow[];
	options: RunOptions;
	limits: Limits;
	result: ExecutionResult;
}

interface Owner {
	base: string;
	scope: Scope;
	step: string;
	/** The execution whose create made it. */
	execution: string;
}

const sameKind = (a: Scope, b: Scope) => (a === 'sheet') === (b === 'sheet');

/**
 * Whether a create the sandbox logged made its order: the sandbox commits in the order it logs,
 * so the first create of a reference that reached the books (no fault before the work, not
 * refused as invalid or for the wallet) is the one that made it.
 */
const committed = (entry: RequestLogEntry) =>
	!['reset', 'error', 'rateLimit', 'gateway'].includes(entry.fault ?? '') &&
	entry.status !== 429 &&
	!['05', '51'].includes(entry.statusCode ?? '');

/** Each row's outcome in one execution, claims (model.mts) included; killed or thrown: all claim. */
function rowClaims(execution: ExecutionRecord): boolean[] {
	const { result, rows } = execution;
	if (result.killed || !result.output) return rows.map(() => true);
	const claimed = rows.map(() => false);
	for (const item of result.output) {
		const index = (item.pairedItem as { item: number } | undefined)?.item ?? -1;
		const isError = item.error !== undefined || typeof item.json.error === 'string';
		if (index in claimed) claimed[index] ||= claims(outcomeOf(item.json, isError));
	}
	// A row with no outcome is reported apart (outcomes.mts); here it may hold anything.
	const answered = new Set(result.output.map((item) => (item.pairedItem as { item: number }).item));
	return claimed.map((claim, index) => claim || !answered.has(index));
}

export class Books {
	readonly violations: Violation[] = [];

	private readonly owners = new Map<string, Owner>();

	private readonly limits = new Map<string, number>();

	/** For C4's one-line rule: lines seen per (base, recipient, value), and values per line. */
	private readonly linesOf = new Map<string, Set<number>>();

	private readonly valuesOfLine = new Map<number, Set<string>>();

	private readonly reported = new Set<string>();

	constructor(private readonly sbx: Sandbox) {}

	fail(rule: string, invariant: string, step: string, detail: string): void {
		this.violations.push({ rule, invariant, step, detail });
	}

	/** Once per invariant and subject: a slot doubled stays doubled in every later step. */
	private failOnce(rule: string, invariant: string, step: string, subject: string, detail: string) {
		const key = `${invariant}:${subject}`;
		if (this.reported.has(key)) return;
		this.reported.add(key);
		this.fail(rule, invariant, step, detail);
	}

	ownerOf(reference: string): Owner | undefined {
		return this.owners.get(reference);
	}

	order(reference: string): SandboxOrder | undefined {
		return this.sbx.state.orders.get(reference);
	}

	voucherBySerial(serial: string): { order: SandboxOrder; voucher: SandboxVoucher } | undefined {
		for (const order of this.sbx.state.orders.values()) {
			const voucher = order.vouchers.find((v) => String(v.serial) === serial);
			if (voucher) return { order, voucher };
		}
		return undefined;
	}

	/** The base's mode, by its first order: whole sheet or paged (C1). */
	modeOf(base: string): 'sheet' | 'paged' | undefined {
		for (const owner of this.owners.values())
			if (owner.base === base) return owner.scope === 'sheet' ? 'sheet' : 'paged';
		return undefined;
	}

	/** Orders of a base, with their scope. */
	ordersOf(base: string): Array<{ order: SandboxOrder; scope: Scope }> {
		return [...this.owners.entries()].flatMap(([reference, owner]) => {
			const order = this.order(reference);
			return owner.base === base && order ? [{ order, scope: owner.scope }] : [];
		});
	}

	/** What an execution's creates bought, in kobo: each order it made, once. */
	spentBy(execution: string): number {
		return [...this.owners.entries()]
			.filter(([, owner]) => owner.execution === execution)
			.map(([reference]) => this.order(reference)!)
			.reduce((kobos, order) => kobos + kobo(order.amount) * order.recipients.length, 0);
	}

	/** Vouchers each slot holds or will hold: the recipients of every order made (C4). */
	holdings(): Map<string, number> {
		const held = new Map<string, number>();
		for (const [reference, owner] of this.owners) {
			const order = this.order(reference);
			if (!order || !PRODUCTS_WITH_VOUCHERS.includes(order.productCode)) continue;
			for (const recipient of order.recipients) {
				const slot = slotOf(owner.base, owner.scope, recipient as ModelVoucher, order.amount);
				held.set(slot, (held.get(slot) ?? 0) + 1);
			}
		}
		return held;
	}

	/**
	 * The scope of a create: the block its rows share (a paged run never mixes blocks), told by
	 * recipient, value, product and template; when one person at one value is in two blocks of
	 * the execution, by the block its reference names.
	 */
	private scopeOfCreate(execution: ExecutionRecord, body: IDataObject): Scope {
		if (execution.rowIdColumn === 'none') return 'sheet';
		let common: Scope[] | undefined;
		for (const recipient of (body.recipients as IDataObject[]) ?? []) {
			const scopes = execution.rows
				.filter(
					(row) =>
						recipientKey(row) === recipientKey(recipient) &&
						kobo(row.amount) === kobo(body.amount) &&
						row.product === body.productCode &&
						row.template === body.templateId,
				)
				.map((row) => scopeOf(row.rowId));
			common = common ? common.filter((scope) => scopes.includes(scope)) : scopes;
		}
		const named = scopeOfName(String(body.reference));
		const byName = common?.find((scope) => scope === named);
		return byName ?? common?.[0] ?? 'k-1';
	}

	/**
	 * Owners of the orders made in this step, from the creates sent (C1: two campaigns sending
	 * one reference meet). A read of another campaign's order is no fault by itself (a paged
	 * campaign reads 0.3.0's names): taking it for its own is, as a voucher or a refusal.
	 */
	attribute(step: string, executions: ExecutionRecord[]): void {
		const creates = executions.flatMap((execution) =>
			execution.result.requests
				.filter((r) => r.method === 'POST' && !r.unsent && r.body?.reference !== undefined)
				.map((request) => ({ execution, request })),
		);
		for (const { execution, request } of creates) {
			const owner = this.owners.get(String(request.body!.reference));
			if (owner && owner.base !== execution.base)
				this.fail(
					'C1',
					'names-meet',
					step,
					`"${execution.base}" sent a create of ${String(request.body!.reference)}, an order of "${owner.base}"`,
				);
		}
		const senders = new Map<string, Set<string>>();
		for (const { execution, request } of creates) {
			const reference = String(request.body!.reference);
			senders.set(reference, (senders.get(reference) ?? new Set()).add(execution.base));
		}
		for (const [reference, bases] of senders)
			if (bases.size > 1)
				this.fail('C1', 'names-meet', step, `${reference} was sent by ${[...bases].join(' and ')}`);
		const byId = new Map(executions.map((execution) => [execution.id, execution]));
		for (const entry of this.sbx.state.requests) {
			const reference = (entry.body as IDataObject | null)?.reference;
			if (entry.method !== 'POST' || typeof reference !== 'string') continue;
			const creator = byId.get(entry.client ?? '');
			const order = this.order(reference);
			if (!creator || !order || this.owners.has(reference) || !committed(entry)) continue;
			const scope = this.scopeOfCreate(creator, entry.body as IDataObject);
			this.owners.set(reference, { base: creator.base, scope, step, execution: creator.id });
		}
	}

	/** C1's modes, C4 and C8's "nothing bought", after a step's outcomes are checked. */
	checkLedger(step: string, executions: ExecutionRecord[], before: Map<string, number>): void {
		const campaigns = executions.filter((e) => e.kind !== 'report');
		for (const execution of campaigns) this.learn(execution);
		const after = this.holdings();
		this.checkModes(step);
		for (const [slot, held] of after) {
			const limit = this.limits.get(slot) ?? 0;
			if (held > limit)
				this.failOnce(
					'C4',
					'bought-twice',
					step,
					slot,
					`${slot} holds ${held}, at most ${limit} rows of it came in one execution`,
				);
		}
		this.checkOneLine(step, after);
		const claimed = new Map<string, number>();
		for (const execution of campaigns) {
			const rowClaimed = rowClaims(execution);
			execution.rows.forEach((row, index) => {
				if (!rowClaimed[index]) return;
				const slot = slotOf(execution.base, scopeOf(row.rowId), row, row.amount);
				claimed.set(slot, (claimed.get(slot) ?? 0) + 1);
			});
		}
		for (const [slot, held] of after) {
			const allowed = Math.max(before.get(slot) ?? 0, claimed.get(slot) ?? 0);
			if (held > allowed)
				this.fail(
					'C8',
					'not-bought-but-bought',
					step,
					`${slot} holds ${held} after the step, ${before.get(slot) ?? 0} before, and only ${claimed.get(slot) ?? 0} of its rows were reported bought, held, not confirmed or unknown`,
				);
		}
	}

	private learn(execution: ExecutionRecord): void {
		for (const [slot, count] of demandOf(execution.base, execution.rows))
			this.limits.set(slot, Math.max(this.limits.get(slot) ?? 0, count));
		for (const row of execution.rows) {
			const value = JSON.stringify([recipientKey(row), kobo(row.amount)]);
			const key = JSON.stringify([execution.base, value]);
			this.linesOf.set(key, (this.linesOf.get(key) ?? new Set()).add(row.line));
			this.valuesOfLine.set(row.line, (this.valuesOfLine.get(row.line) ?? new Set()).add(value));
		}
	}

	private checkModes(step: string): void {
		const scopes = new Map<string, Scope>();
		for (const owner of this.owners.values()) {
			const first = scopes.get(owner.base);
			if (!first) scopes.set(owner.base, owner.scope);
			else if (!sameKind(first, owner.scope))
				this.failOnce(
					'C1',
					'both-modes',
					step,
					owner.base,
					`"${owner.base}" has whole-sheet and paged orders`,
				);
		}
	}

	/** C4's last sentence: a person at a value on one never-edited row holds one voucher at most. */
	private checkOneLine(step: string, after: Map<string, number>): void {
		const perCampaign = new Map<string, number>();
		for (const [slot, held] of after) {
			const [base, , person, value] = JSON.parse(slot) as [string, Scope, string, number];
			const key = JSON.stringify([base, JSON.stringify([person, value])]);
			perCampaign.set(key, (perCampaign.get(key) ?? 0) + held);
		}
		for (const [key, held] of perCampaign) {
			const lines = this.linesOf.get(key);
			if (held <= 1 || lines?.size !== 1) continue;
			const [line] = lines;
			if (this.valuesOfLine.get(line)?.size === 1)
				this.failOnce(
					'C4',
					'person-bought-twice',
					step,
					key,
					`${key}: one row (line ${line}), never edited, holds ${held} vouchers`,
				);
		}
	}

	/** C9: what a clean run must do with each row, from the vouchers each scope holds. */
	cleanRunDecisions(base: string, rows: ModelRow[]): Decision[] {
		const byScope = new Map<Scope, ModelVoucher[]>();
		// C1's known limit: a whole sheet `<b>-b<k>` reads 0.3.0's `<b>-b<k>-<m>` as its own.
		const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		const sheetName = new RegExp(`^${escaped}-\\d+$`);
		const oldNamesMet = [...this.owners.entries()].flatMap(([reference, owner]) => {
			const order = this.order(reference);
			const met = owner.base !== base && owner.scope !== 'sheet' && sheetName.test(reference);
			return met && order ? [{ order, scope: 'sheet' as Scope }] : [];
		});
		for (const { order, scope } of [...this.ordersOf(base), ...oldNamesMet]) {
			if (!PRODUCTS_WITH_VOUCHERS.includes(order.productCode)) continue;
			const oldBlock = scope === 'sheet' ? undefined : oldBlockOfName(order.reference);
			const held = order.recipients.map((r) => ({ ...r, value: order.amount, oldBlock }));
			byScope.set(scope, [...(byScope.get(scope) ?? []), ...held]);
		}
		const decisions = new Map<ModelRow, Decision>();
		const scopes = new Set(rows.map((row) => scopeOf(row.rowId)));
		for (const scope of scopes) {
			const inScope = rows.filter((row) => scopeOf(row.rowId) === scope);
			const made = cleanRunDecisions(inScope, byScope.get(scope) ?? []);
			inScope.forEach((row, i) => decisions.set(row, made[i]));
		}
		return rows.map((row) => decisions.get(row)!);
	}
}
