// Exactly-once under redelivery, in a real n8n: every event is delivered five
// times at once (to one process, and spread over every webhook process in
// queue mode), then again after every n8n process restarted.
//
// "One execution" here means an execution in which the node after the
// trigger ("Received") ran. In queue mode a copy that reaches a second webhook
// process can still start an execution; the trigger's check on the worker
// then ends it with no items, so "Received" does not run.
//
// The same deliveries also go to two workflows built from n8n's own nodes, to
// measure the other stores a node could use (see docs/trigger.md):
// - n8n's Webhook node → Remove Duplicates (this.helpers.checkProcessedAndRecord,
//   the processed_data table, without our verify-after-write);
// - n8n's Webhook node → Code node keeping seen keys in workflow static data.
import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { linearWorkflow, type N8nRest, type WorkflowJson } from '../../real-n8n/rest.mts';
import {
	ownerClient,
	postEvent,
	publishedTrigger,
	restartN8n,
	settledExecutions,
	until,
	webhookUrls,
} from './n8nUnderTest.mts';

const SECRET = 'whsec_e2e_redelivery';
const EVENTS = 12;
const COPIES = 5;
/** Events sent together: enough for concurrent executions, few enough for 2 shared cores. */
const WAVE = 4;
const AFTER_TRIGGER = 'Received';

interface Target {
	name: string;
	id: string;
	/** What follows `/webhook/` in its URLs. */
	path: string;
	/** Whether the request must carry our signature. */
	signed: boolean;
}

function event(serialNumber: number) {
	return JSON.stringify({ type: 'VOUCHER_UPDATED', data: { serialNumber, balance: 2500 } });
}

/** n8n's Webhook node → `middle` → Received: a store measured with n8n's own nodes. */
function storeWorkflow(name: string, middle: WorkflowJson['nodes'][number]): WorkflowJson {
	const path = `race-${randomUUID()}`;
	return linearWorkflow(name, [
		{
			id: randomUUID(),
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path, options: {} },
		},
		{ ...middle, id: randomUUID() },
		{
			id: randomUUID(),
			name: AFTER_TRIGGER,
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			parameters: {},
		},
	]);
}

const KEY_EXPRESSION =
	'={{ JSON.stringify([$json.body.type, $json.body.data.serialNumber, $json.body.data.balance]) }}';

const removeDuplicates = storeWorkflow('E2E: store processed_data (Remove Duplicates)', {
	name: 'Remove Duplicates',
	type: 'n8n-nodes-base.removeDuplicates',
	typeVersion: 2,
	parameters: {
		operation: 'removeItemsSeenInPreviousExecutions',
		dedupeValue: KEY_EXPRESSION,
		options: {},
	},
});

const staticData = storeWorkflow('E2E: store static data (Code)', {
	name: 'Static data',
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	parameters: {
		jsCode: [
			'const store = $getWorkflowStaticData("node");',
			'const { type, data } = $input.first().json.body;',
			'const key = JSON.stringify([type, data.serialNumber, data.balance]);',
			'const seen = store.seen ?? {};',
			'if (seen[key]) return [];',
			'store.seen = { ...seen, [key]: Date.now() };',
			'return $input.all();',
		].join('\n'),
	},
});

describe('redelivery: each event starts exactly one execution', () => {
	let rest: N8nRest;
	const targets: Target[] = [];
	const bases = () => webhookUrls();
	const urlOf = (t: Target, base: string) => `${base}/webhook/${t.path}`;

	/** Our trigger gets the body signed; n8n's Webhook node takes it as it is. */
	const send = (t: Target, base: string, body: string) =>
		postEvent(urlOf(t, base), body, t.signed ? SECRET : undefined);

	/**
	 * Until every workflow answers a real delivery on every process: a warm-up event
	 * outside the measured ones, so the bursts below never meet a half-registered path.
	 */
	async function waitForWebhooks(): Promise<void> {
		const body = event(1);
		for (const base of bases()) {
			for (const t of targets) {
				await rest.waitForWebhook(urlOf(t, base), 60_000);
				await until(
					`${t.name} at ${base}`,
					async () => (await send(t, base, body)) === 200 || undefined,
				);
			}
		}
	}

	/** Every event COPIES times at once, WAVE events together; copy c goes to `baseFor(c)`. */
	async function deliver(serials: number[], baseFor: (copy: number) => string): Promise<number[]> {
		const statuses: number[] = [];
		// One workflow at a time, so every store meets the same bursts.
		for (const t of targets) {
			for (let i = 0; i < serials.length; i += WAVE) {
				statuses.push(...(await burst(t, serials.slice(i, i + WAVE), baseFor)));
			}
		}
		return statuses;
	}

	async function burst(
		t: Target,
		serials: number[],
		baseFor: (copy: number) => string,
	): Promise<number[]> {
		const sends = serials.flatMap((serial) => {
			const body = event(serial);
			return Array.from({ length: COPIES }, (_, copy) => send(t, baseFor(copy), body));
		});
		return await Promise.all(sends);
	}

	/**
	 * Per workflow: how many times each event reached the node after the trigger, and how
	 * many executions failed. Ours must never fail; n8n's own nodes may, under this burst.
	 */
	async function runsPerEvent(t: Target, atLeast: number) {
		const runs = new Map<number, number>();
		let failed = 0;
		for (const summary of await settledExecutions(rest, t.id, atLeast)) {
			const ex = await rest.getExecution(summary.id);
			if (t.signed) expect(ex.status, `${t.name} execution ${ex.id}`).toBe('success');
			if (ex.status !== 'success') failed++;
			const received = ex.data.resultData.runData[AFTER_TRIGGER]?.[0]?.data?.main?.[0] ?? [];
			for (const { json } of received) {
				const data = (json.data ?? (json.body as { data: unknown }).data) as {
					serialNumber: number;
				};
				runs.set(data.serialNumber, (runs.get(data.serialNumber) ?? 0) + 1);
			}
		}
		return { runs, failed };
	}

	function summarize(
		{ runs, failed }: Awaited<ReturnType<typeof runsPerEvent>>,
		serials: number[],
	) {
		const counts = serials.map((s) => runs.get(s) ?? 0);
		return {
			missing: counts.filter((c) => c === 0).length,
			extraRuns: counts.reduce((sum, c) => sum + Math.max(0, c - 1), 0),
			failedExecutions: failed,
		};
	}

	beforeAll(async () => {
		rest = await ownerClient();
		const { id, name, path } = await publishedTrigger(rest, 'E2E: redelivery', SECRET);
		targets.push({ id, name, path, signed: true });
		for (const wf of [removeDuplicates, staticData]) {
			const { id } = await rest.createWorkflow(wf);
			await rest.activateWorkflow(id);
			const { path } = wf.nodes[0].parameters as { path: string };
			targets.push({ name: wf.name, id, path, signed: false });
		}
		await waitForWebhooks();
	});
	afterAll(async () => {
		for (const t of targets) await rest.deactivateWorkflow(t.id).catch(() => {});
	});

	it(
		'five copies at once, to one process and spread over every webhook process, and again after a restart',
		{ timeout: 900_000 },
		async () => {
			const tag = Math.floor(Date.now() / 1000) % 100_000;
			const oneProcess = Array.from({ length: EVENTS }, (_, i) => tag * 1000 + i);
			// With one process (the single-process suite) both cases are the same: run it once.
			const spread =
				bases().length > 1 ? Array.from({ length: EVENTS }, (_, i) => tag * 1000 + 500 + i) : [];
			const all = [...oneProcess, ...spread];
			const [ours, ...stores] = targets;

			const statuses = [
				...(await deliver(oneProcess, () => bases()[0])),
				...(await deliver(spread, (copy) => bases()[copy % bases().length])),
			];
			expect(statuses.filter((s) => s !== 200)).toEqual([]);
			const before = await runsPerEvent(ours, all.length);
			const figures: Record<string, unknown> = {
				processes: bases().length,
				before: Object.fromEntries(
					await Promise.all(
						stores.map(async (t) => [t.name, summarize(await runsPerEvent(t, all.length), all)]),
					),
				),
			};

			await restartN8n();
			await waitForWebhooks();
			const again = await deliver(all, (copy) => bases()[copy % bases().length]);
			expect(again.filter((s) => s !== 200)).toEqual([]);
			const after = await runsPerEvent(ours, all.length);
			figures.afterRestart = Object.fromEntries(
				await Promise.all(
					stores.map(async (t) => [t.name, summarize(await runsPerEvent(t, all.length), all)]),
				),
			);
			// The stores measured with n8n's own nodes: figures for bench/RESULTS.md, not a verdict.
			process.stderr.write(`[redelivery figures] ${JSON.stringify(figures)}\n`);

			expect(summarize(before, all)).toEqual({ missing: 0, extraRuns: 0, failedExecutions: 0 });
			expect(summarize(after, all)).toEqual({ missing: 0, extraRuns: 0, failedExecutions: 0 });
		},
	);
});
