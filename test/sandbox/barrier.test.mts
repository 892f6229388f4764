import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { until } from '../../real-n8n/fixtures.mts';
import { startSandbox } from '../../sandbox/server.mts';
import type { Sandbox } from '../../sandbox/server.mts';
import { call, postDownload, postRecipients } from './sandboxClient.mts';

let sbx: Sandbox;
beforeAll(async () => {
	sbx = await startSandbox();
});
afterAll(() => sbx.close());
beforeEach(() => sbx.reset());

/** Creates the sandbox has received and not answered: held by the barrier. */
const held = () => sbx.state.requests.filter((r) => r.method === 'POST' && r.status === null);

/**
 * Sends a request and returns (its answer still to come) once the sandbox holds `count`
 * creates, so arrival order is known.
 */
async function sendAndHold<T>(
	send: () => Promise<T>,
	count: number,
): Promise<{ answer: Promise<T> }> {
	const answer = send();
	await until(`${count} creates held`, () => held().length === count);
	return { answer };
}

const order = async (reference: string) =>
	(await call(sbx, 'GET', `/v2/orders/${reference}`)).body.statusCode;

async function admin(body: unknown) {
	const res = await request(`${sbx.url}/__sandbox/config`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return { status: res.statusCode, body: (await res.body.json()) as { error?: string } };
}

describe('createBarrier', () => {
	it('holds creates until enough wait, reads going by, then lets them go in arrival order', async () => {
		sbx.configure({ createBarrier: { creates: 2 } });
		const { answer: first } = await sendAndHold(
			() => postDownload(sbx, { reference: 'race-1' }),
			1,
		);
		// The second run reads while the first run's create is held: the number is still free.
		expect(await order('race-1')).toBe('04');
		expect(sbx.state.orders.size).toBe(0);
		const second = postRecipients(sbx, { reference: 'race-1' });
		expect((await first).body.statusCode).toBe('00');
		expect((await second).body.statusCode).toBe('09');
		expect(sbx.state.orders.get('race-1')?.type).toBe('download');
	});

	it('keeps arrival order for many, whichever endpoint, and fires once', async () => {
		sbx.configure({ createBarrier: { creates: 3 } });
		const { answer: a } = await sendAndHold(() => postRecipients(sbx, { reference: 'many-a' }), 1);
		const { answer: b } = await sendAndHold(() => postDownload(sbx, { reference: 'many-b' }), 2);
		const c = postRecipients(sbx, { reference: 'many-c' });
		const numbers = (await Promise.all([a, b, c])).map((res) => res.body.data.orderNumber);
		expect(numbers).toEqual([...numbers].sort());
		// Fired: the next create goes at once.
		expect((await postDownload(sbx, { reference: 'many-d' })).status).toBe(200);
	});

	it('with a reference, holds only the creates of that reference', async () => {
		sbx.configure({ createBarrier: { creates: 2, reference: 'blk-1' } });
		const { answer: first } = await sendAndHold(() => postDownload(sbx, { reference: 'blk-1' }), 1);
		expect((await postDownload(sbx, { reference: 'blk-2' })).status).toBe(200);
		expect(await order('blk-1')).toBe('04');
		const second = postDownload(sbx, { reference: 'blk-1' });
		expect([(await first).status, (await second).status]).toEqual([200, 400]);
	});

	it('refuses what it holds past its deadline, commits nothing, says why and disarms', async () => {
		sbx.configure({ createBarrier: { creates: 2, reference: 'late-1', timeoutMs: 50 } });
		const alone = await postDownload(sbx, { reference: 'late-1' });
		expect(alone.status).toBe(400);
		expect(alone.body).toEqual({
			statusCode: '05',
			message:
				'Sandbox createBarrier: 1 of 2 creates of late-1 came within 50 ms; nothing was committed',
		});
		expect(sbx.state.requests.at(-1)).toMatchObject({ fault: 'barrier', status: 400 });
		expect(sbx.state.orders.size).toBe(0);
		expect(sbx.state.ledger.filter((e) => e.kind === 'debit')).toEqual([]);
		expect((await postDownload(sbx, { reference: 'late-1' })).status).toBe(200);
	});

	it('is armed and released through POST /__sandbox/config, released ones in arrival order', async () => {
		expect(await admin({ createBarrier: { creates: 5 } })).toEqual({
			status: 200,
			body: { ok: true },
		});
		const { answer: a } = await sendAndHold(() => postDownload(sbx, { reference: 'adm-a' }), 1);
		const { answer: b } = await sendAndHold(() => postDownload(sbx, { reference: 'adm-b' }), 2);
		expect(await admin({ createBarrier: null })).toEqual({ status: 200, body: { ok: true } });
		const [first, second] = await Promise.all([a, b]);
		expect(first.body.data.orderNumber < second.body.data.orderNumber).toBe(true);
	});

	it('reset refuses what it holds and disarms', async () => {
		sbx.configure({ createBarrier: { creates: 2 } });
		const { answer: stranded } = await sendAndHold(
			() => postDownload(sbx, { reference: 'gone' }),
			1,
		);
		sbx.reset();
		expect((await stranded).body.message).toMatch(/^Sandbox createBarrier: the sandbox was reset/);
		expect(sbx.state.orders.size).toBe(0);
		expect((await postDownload(sbx, { reference: 'gone' })).status).toBe(200);
	});

	it.each([
		[{ creates: 0 }],
		[{ creates: 1.5 }],
		[{ creates: 2, reference: '' }],
		[{ creates: 2, timeoutMs: 0 }],
		[{ creates: 2, after: 1 }],
		['2'],
	])('refuses the setting %j', async (createBarrier) => {
		const res = await admin({ createBarrier });
		expect(res.status).toBe(400);
		expect(res.body.error).toMatch(/^createBarrier must be null or/);
	});
});
