/**
 * The service's contract has one home: every path and envelope code the nodes use comes from
 * nodes/serviceProtocol/api.ts, and those paths are the ones the sandbox serves as the spec
 * gives them. A second copy elsewhere would drift when the service changes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
	asEnvelope,
	COUNTRIES_PATH,
	CREATE_ORDER_PATHS,
	orderPath,
	TEMPLATES_PATH,
	voucherStatusPath,
	WALLETS_PATH,
} from '../../../nodes/serviceProtocol/api';
import { startSandbox, type Sandbox } from '../../../sandbox/server.mts';
import { call, download, recipients } from '../../sandbox/sandboxClient.mts';

const NODES = join(import.meta.dirname, '../../../nodes');
const HOME = join(NODES, 'serviceProtocol/api.ts');

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? sourceFiles(join(dir, entry.name))
			: entry.name.endsWith('.ts')
				? [join(dir, entry.name)]
				: [],
	);
}

describe('the service contract', () => {
	it('names every endpoint and envelope code in one file', () => {
		const elsewhere = sourceFiles(NODES)
			.filter((file) => file !== HOME)
			.flatMap((file) =>
				readFileSync(file, 'utf8')
					.split('\n')
					.map((line, index) => ({ line, at: `${relative(NODES, file)}:${index + 1}` }))
					// Comments may show an example path; code may not hold one.
					.filter(({ line }) => !/^\s*(\*|\/\/|\/\*)/.test(line))
					.filter(({ line }) => /['"`]\/v2\/|['"]0[04]['"]/.test(line))
					.map(({ at, line }) => `${at}: ${line.trim()}`),
			);
		expect(elsewhere).toEqual([]);
	});

	describe('against the sandbox, which serves the spec', () => {
		let sbx: Sandbox;
		beforeAll(async () => {
			sbx = await startSandbox({ port: 0 });
		});
		afterAll(async () => {
			await sbx.close();
		});

		it.each([
			['the wallets', WALLETS_PATH],
			['the countries', COUNTRIES_PATH],
			['the templates', TEMPLATES_PATH],
			['a voucher status', voucherStatusPath('SBX-ACTIVE-0001')],
		])('reads %s as a `00` envelope', async (_, path) => {
			const answer = await call(sbx, 'GET', path);
			expect(asEnvelope(answer.body)?.statusCode).toBe('00');
		});

		it('creates each kind of order at its path, and reads it back by its Reference', async () => {
			const bodies = { download: download(), recipients: recipients() };
			for (const kind of ['download', 'recipients'] as const) {
				const created = await call(sbx, 'POST', CREATE_ORDER_PATHS[kind], bodies[kind]);
				expect(asEnvelope(created.body)?.statusCode).toBe('00');
				const read = await call(sbx, 'GET', orderPath(String(bodies[kind].reference)));
				expect(asEnvelope(read.body)?.data).toMatchObject({ reference: bodies[kind].reference });
			}
		});
	});

	it('reads the envelope from JSON text or a parsed body, and nothing else as one', () => {
		expect(asEnvelope('{"statusCode":"04","message":"Order not found"}')).toEqual({
			statusCode: '04',
			message: 'Order not found',
			data: undefined,
		});
		expect(asEnvelope({ statusCode: '00', message: null, data: [1] })?.data).toEqual([1]);
		for (const body of ['<html>503</html>', [], null, { statusCode: 0 }, 'null'])
			expect(asEnvelope(body)).toBeUndefined();
	});
});
