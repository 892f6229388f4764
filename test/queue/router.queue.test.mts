// The router in front of the cluster (real-n8n/proxy.mts, the compose file's
// proxy service): production webhooks through it reach the webhook processes,
// the editor's REST API reaches the main process. Also: no process warns
// about the PostgreSQL version (n8n 2.41.1 supports 17 and newer).
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { type N8nRest } from '../../real-n8n/rest.mts';
import {
	ownerClient,
	postEvent,
	publishedTrigger,
	webhookUrls,
	type PublishedTrigger,
} from '../e2e/n8nUnderTest.mts';

const SECRET = 'whsec_queue_router';

describe('queue mode: the router in front', () => {
	let rest: N8nRest;
	let trigger: PublishedTrigger;
	const router = () => inject('routerUrl');

	beforeAll(async () => {
		rest = await ownerClient();
		trigger = await publishedTrigger(rest, 'Queue: router', SECRET);
	});
	afterAll(async () => {
		if (trigger) await rest.deactivateWorkflow(trigger.id).catch(() => {});
	});

	it('sends /webhook/ to the webhook processes: the main process would answer 404', async () => {
		const { path } = trigger;
		const body = JSON.stringify({ event: 'ORDER_UPDATED', data: {} });
		// The main process serves no production webhooks (N8N_DISABLE_PRODUCTION_MAIN_PROCESS).
		expect(await postEvent(`${inject('n8nUrl')}/webhook/${path}`, body, 'wrong')).toBe(404);
		// Through the router, in turn to both webhook processes: the trigger refuses the signature.
		for (let i = 0; i < 4; i++) {
			expect(await postEvent(`${router()}/webhook/${path}`, body, 'wrong')).toBe(401);
		}
	});

	it('sends everything else to the main process', async () => {
		// The front end's settings, served to anyone by the main process only.
		const res = await fetch(`${router()}/rest/settings`);
		await res.arrayBuffer();
		expect(res.status).toBe(200);
		// A webhook process has no REST API.
		const direct = await fetch(`${webhookUrls()[0]}/rest/settings`);
		await direct.arrayBuffer();
		expect(direct.status).toBe(404);
	});

	it('no process warns about the PostgreSQL version', () => {
		const { main, webhooks } = inject('queueLogs');
		for (const file of [main, ...webhooks, ...inject('executorLogs')]) {
			const log = readFileSync(file, 'utf8');
			expect(log, file).toMatch(/n8n|Editor|Webhook|worker/i);
			expect(log, file).not.toMatch(
				/Postgres \d+ (is not supported|is outside the supported range)/,
			);
		}
	});
});
