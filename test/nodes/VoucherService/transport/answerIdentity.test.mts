/**
 * Which 404s are the same answer (answerIdentity.ts), tried through Order → Get against a
 * stand-in service over loopback: for each way a service may say "no such order" with a 404
 * of its own, an unknown Reference reads as not found, and every gateway's 404 in front of it
 * (each a real product's) is still refused. The sandbox plays the two commonest readings in the
 * dialect suites; this file tries the rest.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, describe, expect, it } from 'vitest';

import { runVoucher, sandboxForThisFile, uniqueReference } from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

interface Answer {
	type?: string;
	body: string | object;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const letters = (count: number) =>
	Array.from(randomBytes(count), (byte) => String.fromCharCode(97 + (byte % 26))).join('');

/** A service's own 404 for an unknown Reference, given the Reference and the path as sent. */
const READINGS: Record<string, (reference: string, path: string) => Answer> = {
	'ASP.NET Core problem+json': () => ({
		type: 'application/problem+json; charset=utf-8',
		body: {
			type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
			title: 'Not Found',
			status: 404,
			traceId: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`,
		},
	}),
	'Spring Boot': (reference, path) => ({
		body: {
			timestamp: new Date().toISOString(),
			status: 404,
			error: 'Not Found',
			message: `Order ${reference} not found`,
			path,
		},
	}),
	'Express, a message only': (reference) => ({ body: { message: `Order ${reference} not found` } }),
	NestJS: (reference) => ({
		body: { statusCode: 404, message: `Order "${reference}" not found`, error: 'Not Found' },
	}),
	'nested, with a date and request ids (Microsoft Graph)': (reference) => ({
		body: {
			error: {
				code: 'OrderNotFound',
				message: `Order '${reference.toUpperCase()}' was not found.`,
				innerError: {
					date: new Date().toISOString().slice(0, 19),
					'request-id': randomUUID(),
					'client-request-id': randomUUID(),
				},
			},
		},
	}),
	'a request id without digits': () => ({
		body: { error: 'not_found', requestId: letters(12), at: Math.floor(Date.now() / 1000) },
	}),
	'text with a request number': (reference) => ({
		type: 'text/plain',
		body: `Order ${reference} not found (request ${randomUUID()})`,
	}),
};

/** Gateways' own 404s, answered for a Reference holding `gw-<name>-`. */
const GATEWAYS: Record<string, (path: string) => Answer> = {
	nginx: () => ({
		type: 'text/html',
		body: '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
	}),
	kong: () => ({ body: { message: 'no Route matched with those values' } }),
	aws: () => ({ body: { message: 'Not Found' } }),
	envoy: () => ({ type: '', body: '' }),
	traefik: () => ({ type: 'text/plain; charset=utf-8', body: '404 page not found' }),
	'spring-cloud-gateway': (path) => ({
		body: {
			timestamp: new Date().toISOString(),
			path,
			status: 404,
			error: 'Not Found',
			requestId: `${letters(8)}-${Math.floor(Math.random() * 1000)}`,
		},
	}),
};

let reading = READINGS['ASP.NET Core problem+json'];
const paths: string[] = [];

const server = createServer((request, response) => {
	request.resume();
	const path = request.url ?? '';
	paths.push(path);
	const send = ({ type = JSON_TYPE, body }: Answer, status = 404) => {
		response.writeHead(status, type ? { 'content-type': type } : {});
		response.end(typeof body === 'string' ? body : JSON.stringify(body));
	};
	if (path === '/v2/transactions/wallets')
		return send(
			{
				body: { statusCode: '00', message: 'Successful', data: [{ balance: 1, currency: 'NGN' }] },
			},
			200,
		);
	const segment = path.slice('/v2/orders/'.length);
	const gateway = Object.keys(GATEWAYS).find((name) => segment.startsWith(`gw-${name}-`));
	send(gateway ? GATEWAYS[gateway](path) : reading(decodeURIComponent(segment), path));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
afterAll(() => server.close());
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const lookUp = async (references: string[]) => {
	paths.length = 0;
	const run = await runVoucher(
		sandbox,
		{ resource: 'order', operation: 'get', reference: '={{ $json.reference }}' },
		{
			items: references.map((reference) => ({ reference })),
			continueOnFail: true,
			credential: { baseUrl },
		},
	);
	return run.main.map((item) => ({
		error: item.json.error,
		description: String(item.error?.description ?? ''),
	}));
};

const notLookedUp = (reference: string, index: number) =>
	`Item ${index}: order "${reference}" could not be looked up: HTTP 404 without the service's answer for an unknown order`;

describe.each(Object.entries(READINGS))('a service answering an unknown order: %s', (_, read) => {
	it('an unknown Reference is not found; every gateway 404 is refused', async () => {
		reading = read;
		const unknown = ['Promo 50% off', 'camp-12'].map((prefix) => uniqueReference(prefix));
		const gateways = Object.keys(GATEWAYS).map((gateway) => uniqueReference(`gw-${gateway}`));
		const results = await lookUp([...unknown, ...gateways]);
		expect(results.map((result) => result.error)).toEqual([
			...unknown.map((reference) => `Order ${reference} not found`),
			...gateways.map((reference, index) => notLookedUp(reference, unknown.length + index)),
		]);
		for (const result of results.slice(unknown.length))
			expect(result.description).toMatch(
				/^The service answers a Reference it does not know with another 404, so this 404 came from something in front of it/,
			);
		// The wallets and two made-up References, once for the run.
		expect(paths.filter((path) => path.endsWith('/wallets'))).toHaveLength(1);
		expect(paths.filter((path) => path.includes('/n8n-probe-'))).toHaveLength(2);
	});
});

describe('a service whose 404 changes in more than ids, times and the Reference', () => {
	it('has no 404 read as not found, saying why', async () => {
		reading = () => ({ type: 'text/plain', body: `Order not found. Ticket ${letters(10)}` });
		const reference = uniqueReference('changing');
		const [result] = await lookUp([reference]);
		expect(result.error).toBe(notLookedUp(reference, 0));
		expect(result.description).toBe(
			'The service answers a Reference it does not know with a 404 that changes from answer to answer in more than ids, times and the Reference, so this 404 does not say the order is missing. Nothing was bought on the strength of this answer.',
		);
	});
});
