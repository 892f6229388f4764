import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

import { basicAuth } from '../../real-n8n/fixtures.mts';
import type { Sandbox } from '../../sandbox/server.mts';

export interface ApiResponse {
	status: number;
	headers: IncomingHttpHeaders;
	text: string;
	/** Parsed body when it is JSON, else undefined; loosely typed so assertions can walk it. */
	body: any;
}

/** One HTTP call to the sandbox over loopback, with the full-access keys unless told otherwise. */
export async function call(
	sbx: Sandbox,
	method: 'GET' | 'POST',
	path: string,
	body?: unknown,
	auth: string | null = basicAuth(sbx.keys),
): Promise<ApiResponse> {
	const res = await request(sbx.url + path, {
		method,
		headers: {
			...(auth === null ? {} : { authorization: auth }),
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
	});
	const text = await res.body.text();
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		parsed = undefined;
	}
	return {
		status: res.statusCode,
		headers: res.headers as IncomingHttpHeaders,
		text,
		body: parsed,
	};
}

export const download = (over: Record<string, unknown> = {}) => ({
	reference: `dl-${Math.random().toString(36).slice(2)}`,
	productCode: 'VCH-INSTANT',
	amount: 1000,
	quantity: 2,
	...over,
});

export const recipients = (over: Record<string, unknown> = {}) => ({
	reference: `rc-${Math.random().toString(36).slice(2)}`,
	productCode: 'VCH-INSTANT',
	amount: 500,
	templateId: 1,
	recipients: [
		{ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com' },
		{ firstName: 'Femi', lastName: 'Bello', email: 'femi@example.com' },
	],
	...over,
});

export interface Hit {
	raw: Buffer;
	headers: IncomingHttpHeaders;
	at: number;
}

/** A webhook receiver that keeps the raw bytes; `answer` picks the status per hit, or 'hang' to never answer. */
export async function startReceiver(answer: (hitIndex: number) => number | 'hang' = () => 200) {
	const hits: Hit[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			hits.push({ raw: Buffer.concat(chunks), headers: req.headers, at: performance.now() });
			const status = answer(hits.length - 1);
			if (status !== 'hang') res.writeHead(status).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		hits,
		async close() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

export const postDownload = (sbx: Sandbox, over: Record<string, unknown> = {}) =>
	call(sbx, 'POST', '/v2/orders', download(over));

export const postRecipients = (sbx: Sandbox, over: Record<string, unknown> = {}) =>
	call(sbx, 'POST', '/v2/orders/recipients', recipients(over));
