import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';
import { afterEach, describe, expect, it } from 'vitest';

import {
	answerTimesCheck,
	describeBody,
	rateLimitCheck,
} from '../../../../nodes/VoucherService/serviceCheck/answers';
import { keysCheck, walletCheck } from '../../../../nodes/VoucherService/serviceCheck/reads';
import type { CheckItem } from '../../../../nodes/VoucherService/serviceCheck/types';
import { createNodeAsTool } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';

import {
	packageNodeTypeName,
	runLoadOptions,
	runNode,
	workflowNode,
} from '../../../../n8n-core-runner/runWorkflow.mts';
import { VoucherServiceApi } from '../../../../credentials/VoucherServiceApi.credentials';
import { DEFAULT_OPTIONS } from '../../../../sandbox/options.mts';
import { DIALECTS, type SandboxOptions } from '../../../../sandbox/server.mts';
import { hints } from '../campaignRuns.mts';
import {
	apiRequests,
	credentialFor,
	runVoucher,
	uniqueReference,
	voucherNode,
	sandboxForThisFile,
	SECRET_KEY_MARKER,
	type RunVoucherOptions,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();

const CHECK = { resource: 'service', operation: 'check' };
const NAMES = [
	'Keys and base URL',
	'NGN wallet',
	'Unknown order',
	'Templates',
	'Countries',
	'Error bodies',
	'Rate limits',
	'Answer times',
];

/** The sandbox as a test needs it; the next test gets the defaults back. */
function configure(patch: Partial<SandboxOptions>) {
	sandbox.configure(patch);
	sandbox.reset();
}
afterEach(() => {
	sandbox.configure({
		faults: {},
		templates: DEFAULT_OPTIONS.templates,
		walletCurrencies: DEFAULT_OPTIONS.walletCurrencies,
		dialect: {},
		initialBalanceNgn: DEFAULT_OPTIONS.initialBalanceNgn,
	});
});

/** Runs the check; every item by its check's name, and the whole output for leak checks. */
async function runCheck(options: RunVoucherOptions = {}) {
	const run = await runVoucher(sandbox, CHECK, options);
	expect(run.error).toBeUndefined();
	const byName = Object.fromEntries(run.json.map((item) => [item.check, item])) as Record<
		string,
		CheckItem
	>;
	return { ...run, byName };
}

/** Nothing of the credential or the request in any output. */
function expectNoSecrets(json: IDataObject[], keys = sandbox.keys) {
	const text = JSON.stringify(json);
	for (const secret of [keys.secretKey, keys.publicKey, SECRET_KEY_MARKER, 'Basic ', sandbox.url])
		expect(text).not.toContain(secret);
	expect(text.toLowerCase()).not.toContain('authorization');
}

describe('Service → Check against a service that answers as the spec says', () => {
	it('outputs one ok item per check, paired, and sends no create', async () => {
		const { json, main, byName } = await runCheck();
		expect(json.map((item) => item.check)).toEqual(NAMES);
		for (const item of json) {
			expect(Object.keys(item).sort()).toEqual(['check', 'result', 'seen', 'whatThePackageDoes']);
			expect(item.result, `${item.check}: ${item.seen}`).toBe('ok');
		}
		for (const item of main) expect(item.pairedItem).toEqual({ item: 0 });
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
		expect(byName['NGN wallet'].seen).toContain(
			'Wallets: NGN, USD. The NGN wallet holds NGN 50,000,000.00.',
		);
		expect(byName['Templates'].seen).toMatch(/^3 templates, ids "1", "2", "7": all whole numbers/);
		expect(byName['Unknown order'].seen).toMatch(
			/GET \/v2\/orders\/n8n-check-[0-9a-f-]{36}, .*got HTTP 200 with a JSON envelope, code "04", message "Order not found"/,
		);
		expect(byName['Unknown order'].whatThePackageDoes).toContain('Reads it as not found');
		expect(byName['Error bodies'].seen).toContain('Not seen: HTTP 401, 403, 500');
		expect(byName['Rate limits'].seen).toBe(
			'No refusal (HTTP 429, 502, 503 or 504). No rate-limit header (Retry-After, X-RateLimit-*, RateLimit-*).',
		);
		expect(byName['Answer times'].seen).toMatch(
			/^4 answers: median \d+ ms, slowest \d+ ms \(GET \/v2\//,
		);
		expectNoSecrets(json);
	});

	it('reads each reference once: four GETs, the unknown order under a new Reference each run', async () => {
		await runCheck();
		await runCheck();
		const gets = apiRequests(sandbox, 'GET').map((entry) => entry.path);
		expect(gets).toHaveLength(8);
		const lookups = gets.filter((path) => /^\/v2\/orders\/n8n-check-/.test(path));
		expect(new Set(lookups).size).toBe(2);
	});

	it('reads an unknown order answered with HTTP 404 and the 04 envelope as not found', async () => {
		configure({ dialect: DIALECTS.unknownOrder404Envelope });
		const { byName } = await runCheck();
		expect(byName['Unknown order']).toMatchObject({ result: 'ok' });
		expect(byName['Unknown order'].seen).toContain('got HTTP 404 with a JSON envelope, code "04"');
		expect(byName['Error bodies'].seen).toMatch(
			/^HTTP 404, a JSON envelope, code "04", message "Order not found" \(GET \/v2\/orders\/n8n-check-/,
		);
	});

	it('runs once per input item, each item paired to its own checks', async () => {
		const { main } = await runCheck({ items: [{ a: 1 }, { a: 2 }] });
		expect(main).toHaveLength(2 * NAMES.length);
		expect(main.map((item) => (item.pairedItem as { item: number }).item)).toEqual([
			...NAMES.map(() => 0),
			...NAMES.map(() => 1),
		]);
		expect(apiRequests(sandbox, 'GET')).toHaveLength(8);
	});

	it('is an AI agent tool that needs no arguments, says what it does, and answers with the checks', async () => {
		const parameters = { ...CHECK };
		const node = workflowNode('Check the service', packageNodeTypeName(voucherNode), parameters);
		const tool = createNodeAsTool({
			node,
			nodeType: voucherNode,
			handleToolInvocation: async (toolArgs) =>
				(await runCheck({ items: [toolArgs], asTool: true })).json,
		}).response;
		expect(tool.description).toMatch(/^Check the connection and test how the service answers/);
		expect(Object.keys(tool.schema.shape)).toEqual([]);
		const json = (await tool.invoke({})) as IDataObject[];
		expect(json.map((item) => item.check)).toEqual(NAMES);
		expectNoSecrets(json);
		expect(apiRequests(sandbox, 'POST')).toHaveLength(0);
	});
});

describe('Service → Check: keys and base URL', () => {
	it('bad keys: a failed item per read (HTTP 401), not an error, and the 401 body among the error bodies', async () => {
		const keys = { publicKey: 'pk_wrong_1234', secretKey: 'sk_wrong_5678' };
		for (const continueOnFail of [false, true]) {
			const { json, byName } = await runCheck({ credential: keys, continueOnFail });
			expect(json.map((item) => item.check)).toEqual(NAMES);
			expect(byName['Keys and base URL']).toMatchObject({ result: 'failed' });
			expect(byName['Keys and base URL'].seen).toContain('HTTP 401 with the text "Unauthorized"');
			expect(byName['Keys and base URL'].seen).toContain('does not accept the keys');
			for (const name of ['NGN wallet', 'Unknown order', 'Templates', 'Countries']) {
				expect(byName[name].result).toBe('failed');
				expect(byName[name].seen).toContain('(HTTP 401)');
			}
			expect(byName['Error bodies'].seen).toContain(
				'HTTP 401, the text "Unauthorized" (4 answers)',
			);
			expect(byName['Error bodies'].seen).toContain('Not seen: HTTP 403, 500');
			expectNoSecrets(json, keys);
		}
	});

	it('keys without the permission: HTTP 403 told apart from 401', async () => {
		const { byName, json } = await runCheck({ credential: sandbox.forbiddenKeys });
		expect(byName['Keys and base URL']).toMatchObject({ result: 'failed' });
		expect(byName['Keys and base URL'].seen).toContain('HTTP 403 with the text "Forbidden"');
		expect(byName['Keys and base URL'].seen).toContain('not allowed to read the wallets');
		expect(byName['Keys and base URL'].whatThePackageDoes).toContain('grant the permission');
		expectNoSecrets(json, sandbox.forbiddenKeys);
	});

	it('a base URL that answers, but not as the service: a failed item that says so', async () => {
		const { byName } = await runCheck({ credential: { baseUrl: `${sandbox.url}/api` } });
		expect(byName['Keys and base URL']).toMatchObject({ result: 'failed' });
		expect(byName['Keys and base URL'].seen).toContain('HTTP 404 with the text "Not Found"');
		expect(byName['Keys and base URL'].whatThePackageDoes).toContain('the address before /v2');
	});

	it('a base URL where nothing answers: every check still has its item, the rest not tried', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise((resolve) => closed.close(resolve));
		const { json, byName } = await runCheck({
			credential: { baseUrl: `http://127.0.0.1:${port}` },
		});
		expect(json.map((item) => item.check)).toEqual(NAMES);
		expect(byName['Keys and base URL']).toMatchObject({ result: 'failed' });
		expect(byName['Keys and base URL'].seen).toContain('connection refused');
		for (const name of ['NGN wallet', 'Unknown order', 'Templates', 'Countries'])
			expect(byName[name]).toMatchObject({
				result: 'failed',
				seen: 'Not tried: reading the wallets failed after every retry.',
			});
		expect(byName['Answer times']).toMatchObject({ result: 'failed', seen: 'No answer came.' });
		expect(json.map((item) => item.seen).join(' ')).not.toContain(String(port));
	}, 60_000);
});

describe('Service → Check without a credential', () => {
	it('fails like any operation, and with Continue On Fail gives a paired error item', async () => {
		for (const continueOnFail of [false, true]) {
			const run = await runNode({
				nodeType: voucherNode,
				credentialTypes: [new VoucherServiceApi()],
				parameters: CHECK,
				continueOnFail,
			});
			if (continueOnFail) {
				expect(run.error).toBeUndefined();
				expect(run.items[0]).toEqual([
					expect.objectContaining({
						json: { error: expect.stringMatching(/credentials/i) },
						pairedItem: { item: 0 },
					}),
				]);
			} else {
				expect(run.error?.message).toMatch(/credentials/i);
			}
		}
		expect(apiRequests(sandbox)).toHaveLength(0);
	});
});

describe('Service → Check: a service that only fails', () => {
	it('HTTP 500 on every attempt: failed after the last retry, and the other reads spared', async () => {
		configure({ faults: { errorRate: 1 } });
		const { json, byName } = await runCheck();
		expect(json.map((item) => item.check)).toEqual(NAMES);
		expect(byName['Keys and base URL']).toMatchObject({ result: 'failed' });
		expect(byName['Keys and base URL'].seen).toContain(
			'got HTTP 500 with the text "Internal Server Error"',
		);
		expect(byName['Keys and base URL'].whatThePackageDoes).toContain(
			'The other reads were not tried.',
		);
		expect(new Set(apiRequests(sandbox).map((entry) => entry.path))).toEqual(
			new Set(['/v2/transactions/wallets']),
		);
		expect(byName['Error bodies'].seen).toContain(
			`HTTP 500, the text "Internal Server Error" (${apiRequests(sandbox).length} answers)`,
		);
		expect(byName['Answer times'].seen).toMatch(
			new RegExp(`^${apiRequests(sandbox).length} answers`),
		);
	}, 60_000);
});

describe('Service → Check: templates, wallets and countries', () => {
	it('an empty template list is a warning that names Create for Recipients', async () => {
		configure({ templates: [] });
		const { byName } = await runCheck();
		expect(byName['Templates']).toMatchObject({ result: 'warning', seen: 'The list is empty.' });
		expect(byName['Templates'].whatThePackageDoes).toContain(
			'Create for Recipients needs a template',
		);
	});

	it('template ids that are not whole numbers: a warning when some are, failed when all are', async () => {
		const template = (id: string) => ({
			id,
			name: `T ${id}`,
			screenshotUrl: 'https://example.com/t.png',
		});
		configure({ templates: [template('7'), template('tpl-a'), template('2147483648')] });
		let { byName } = await runCheck();
		expect(byName['Templates']).toMatchObject({ result: 'warning' });
		expect(byName['Templates'].seen).toBe(
			'3 templates; 2 with ids that are not whole numbers: "tpl-a", "2147483648".',
		);
		configure({ templates: [template('tpl-a')] });
		({ byName } = await runCheck());
		expect(byName['Templates']).toMatchObject({ result: 'failed' });
		expect(byName['Templates'].whatThePackageDoes).toContain('(int32)');
	});

	it('no NGN wallet fails the wallet check and names the wallets there are', async () => {
		configure({ walletCurrencies: ['USD', 'EUR'] });
		const { byName } = await runCheck();
		expect(byName['NGN wallet']).toMatchObject({ result: 'failed' });
		expect(byName['NGN wallet'].seen).toBe('Wallets: USD, EUR. The service lists no NGN wallet.');
		expect(byName['Keys and base URL'].result).toBe('ok');
	});

	it('two NGN wallets: a warning, as the wallet check cannot tell which one pays', async () => {
		configure({ walletCurrencies: ['NGN', 'NGN'] });
		const { byName } = await runCheck();
		expect(byName['NGN wallet']).toMatchObject({ result: 'warning' });
		expect(byName['NGN wallet'].seen).toContain('2 NGN wallets');
	});

	it('an empty NGN wallet is a warning: every run with the wallet check would be refused', async () => {
		configure({ initialBalanceNgn: 0 });
		const { byName } = await runCheck();
		expect(byName['NGN wallet']).toMatchObject({ result: 'warning' });
		expect(byName['NGN wallet'].seen).toContain('holds NGN 0.00');
		expect(byName['NGN wallet'].whatThePackageDoes).toContain(
			'refuses every run until the wallet is topped up',
		);
	});
});

describe('Service → Check: rate limits', () => {
	it('reports the 429s and the Retry-After it was sent, and still reads everything', async () => {
		configure({ faults: { rateLimitRate: 0.5, retryAfterSeconds: 0, seed: 3 } });
		const { byName } = await runCheck();
		const refused = apiRequests(sandbox).filter((entry) => entry.status === 429).length;
		expect(refused).toBeGreaterThan(0);
		expect(byName['Rate limits']).toMatchObject({ result: 'warning' });
		expect(byName['Rate limits'].seen).toContain(
			`${refused} of ${apiRequests(sandbox).length} answers were refusals: ${refused} HTTP 429.`,
		);
		expect(byName['Rate limits'].seen).toContain('retry-after: 0');
		for (const name of [
			'Keys and base URL',
			'NGN wallet',
			'Unknown order',
			'Templates',
			'Countries',
		])
			expect(byName[name].result, name).toBe('ok');
	});
});

/*
 * Under every dialect the check must say what the package does, so each verdict is held
 * against the package's own behaviour on the same sandbox: Order → Get on another unknown
 * Reference, a Dry Run with Check Wallet Balance First, and the Template dropdown.
 */
describe.each(Object.entries(DIALECTS))('Service → Check under the %s dialect', (_, dialect) => {
	it('reports what the package does with the unknown order, the wallet and the templates', async () => {
		configure({ dialect });
		const { json, byName } = await runCheck();
		const refused = sandbox.state.requests.filter((r) => r.status === 429).length;
		expect(json.map((item) => item.check)).toEqual(NAMES);
		expectNoSecrets(json);

		const get = await runVoucher(
			sandbox,
			{ resource: 'order', operation: 'get', reference: uniqueReference('none') },
			{ continueOnFail: true },
		);
		const readAsNotFound = /^Order \S+ not found$/.test(String(get.json[0].error));
		expect(byName['Unknown order'].result, String(get.json[0].error)).toBe(
			readAsNotFound ? 'ok' : 'failed',
		);
		expect(byName['Unknown order'].seen).toContain(
			{
				envelope200: 'got HTTP 200 with a JSON envelope, code "04"',
				envelope404: 'got HTTP 404 with a JSON envelope, code "04"',
				text404: 'got HTTP 404 with the text',
				problem404: 'got HTTP 404 with JSON without the envelope',
				spring404: 'got HTTP 404 with JSON without the envelope',
			}[dialect.unknownOrder ?? 'envelope200'],
		);

		const dryRun = await runVoucher(sandbox, {
			resource: 'order',
			operation: 'create',
			reference: uniqueReference('dry'),
			productCode: 'VCH-INSTANT',
			amount: 100,
			quantity: 1,
			options: { dryRun: true, checkWallet: true },
		});
		// A dry run looks its Reference up first: it gets as far as the wallet only where an
		// unknown order reads as not found.
		expect(dryRun.error === undefined, String(dryRun.error)).toBe(readAsNotFound);
		const walletRead = hints(dryRun).some((h) =>
			h.message.includes('The NGN wallet holds NGN 50,000,000.00'),
		);
		if (readAsNotFound)
			expect(
				byName['NGN wallet'].seen.includes('holds NGN 50,000,000.00'),
				byName['NGN wallet'].seen,
			).toBe(walletRead);
		const asText = dialect.numbers === 'string';
		expect(byName['NGN wallet'].result).toBe(asText ? 'warning' : 'ok');
		expect(byName['NGN wallet'].seen.includes('balances come as text, e.g. "50000000')).toBe(
			asText,
		);

		const dropdown = await runLoadOptions({
			nodeType: voucherNode,
			methodName: 'getTemplates',
			credentialTypes: [new VoucherServiceApi()],
			credentials: { voucherServiceApi: credentialFor(sandbox) },
		});
		const choosable = dropdown.filter((option) => !option.disabled).length;
		expect(byName['Templates'].result).toBe(
			choosable === dropdown.length ? 'ok' : choosable === 0 ? 'failed' : 'warning',
		);

		for (const name of ['Keys and base URL', 'Countries', 'Error bodies', 'Answer times'])
			expect(byName[name].result, `${name}: ${byName[name].seen}`).toBe('ok');
		if (dialect.rateLimit === undefined) expect(refused).toBe(0);
		expect(byName['Rate limits'].result).toBe(refused > 0 ? 'warning' : 'ok');
		expect(byName['Rate limits'].seen).toMatch(
			refused > 0
				? new RegExp(`^${refused} of \\d+ answers were refusals: ${refused} HTTP 429\\.`)
				: /^No refusal/,
		);
	});
});

describe('Service → Check: error bodies as JSON envelopes', () => {
	it('describes a 401 envelope, and its message only as words', async () => {
		configure({ dialect: DIALECTS.errorEnvelopes });
		const { byName } = await runCheck({ credential: { secretKey: 'sk_wrong_1' } });
		expect(byName['Keys and base URL']).toMatchObject({ result: 'failed' });
		expect(byName['Error bodies'].seen).toMatch(
			/^HTTP 401, a JSON envelope, code "[^"]+", message /,
		);
		expect(byName['Error bodies'].result).toBe('ok');
	});
});

describe('Service → Check: what it shows of an answer', () => {
	const answer = (headers: Record<string, unknown>, httpStatus = 200) => ({
		path: '/v2/countries',
		httpStatus,
		headers,
		body: { statusCode: '00', message: 'Successful', data: [] },
		ms: 5,
	});

	it('lists X-RateLimit-* and RateLimit-* headers with their last values, and no other header', () => {
		const item = rateLimitCheck([
			answer({
				'x-ratelimit-limit': '900',
				'x-ratelimit-remaining': '899',
				'set-cookie': 'sid=s3cr3t',
			}),
			answer({ 'x-ratelimit-remaining': '898', ratelimit: 'limit=900, remaining=898, reset=42' }),
		]);
		expect(item).toMatchObject({ check: 'Rate limits', result: 'ok' });
		expect(item.seen).toBe(
			'No refusal (HTTP 429, 502, 503 or 504). Rate-limit headers (last values): x-ratelimit-limit: 900; x-ratelimit-remaining: 898; ratelimit: limit=900, remaining=898, reset=42.',
		);
	});

	it('shows a body as plain words only: text that could hold a key is given by its length', () => {
		expect(describeBody('Unauthorized')).toBe('the text "Unauthorized"');
		expect(describeBody('Invalid key sk_live_4f9a2b')).toBe('the text (26 characters, not shown)');
		expect(describeBody({ statusCode: '41', message: 'Bad key pk_live_77' })).toBe(
			'a JSON envelope, code "41", message (18 characters, not shown)',
		);
		expect(describeBody('{"error":"nope","token":"abc"}')).toBe(
			'JSON without the envelope (fields: error, token)',
		);
		expect(describeBody('')).toBe('an empty body');
	});

	it('answer times: the median and the slowest, and a warning from half the request timeout', () => {
		const timed = (ms: number) => ({ ...answer({}), ms });
		expect(answerTimesCheck([timed(30), timed(10), timed(20), timed(400)]).seen).toBe(
			'4 answers: median 25 ms, slowest 400 ms (GET /v2/countries).',
		);
		expect(answerTimesCheck([timed(10), timed(30_000)]).result).toBe('warning');
	});
});

describe('Service → Check: a wallet check that refuses what it read', () => {
	it('keys ok (the wallets answered), the wallet failed with the refusal and what the package does', () => {
		const refusal = Object.assign(new Error('The NGN wallet\'s balance "abc" is not a number'), {
			description: 'Check Wallet Balance First bought nothing.',
		});
		const read = {
			error: refusal,
			answers: [
				{
					path: '/v2/transactions/wallets',
					httpStatus: 200,
					headers: {},
					body: { statusCode: '00', message: null, data: [{ balance: 'abc', currency: 'NGN' }] },
					ms: 3,
				},
			],
		};
		expect(keysCheck(read).result).toBe('ok');
		expect(walletCheck(read)).toEqual({
			check: 'NGN wallet',
			result: 'failed',
			seen: 'Wallets: NGN. The package refused the answer: (46 characters, not shown). Differs from the spec: balances come as text, e.g. "abc", not numbers.',
			whatThePackageDoes: 'Check Wallet Balance First bought nothing.',
		});
	});
});

describe('Service → Check: what the service says is masked as describeBody masks it', () => {
	const KEY = 'sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

	/** Every /v2 path answers the same: what a service echoing the key in its errors sends. */
	async function echoingService(httpStatus: number, body: string) {
		const server = createServer((_req, res) => res.writeHead(httpStatus).end(body));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		try {
			return await runCheck({ credential: { baseUrl: `http://127.0.0.1:${port}` } });
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	}

	for (const [httpStatus, body, said] of [
		[400, { statusCode: '99', message: `Invalid secret key ${KEY}` }, 'code "99", message (59'],
		[200, { statusCode: '99', message: `Invalid secret key ${KEY}` }, 'code "99", message (59'],
		[409, `Invalid secret key ${KEY}`, 'HTTP 409, text (59'],
	] as const) {
		it(`a refusal answered HTTP ${httpStatus} with ${typeof body === 'string' ? 'text' : 'an envelope'} never shows its message`, async () => {
			const { json, byName } = await echoingService(
				httpStatus,
				typeof body === 'string' ? body : JSON.stringify(body),
			);
			expect(JSON.stringify(json)).not.toContain('sk_live');
			const read = httpStatus === 200 ? 'NGN wallet' : 'Keys and base URL';
			expect(byName[read].seen).toContain(`refused the request (${said} characters, not shown))`);
			expect(byName['Templates'].seen).toContain(said);
		});
	}

	it('shows currencies and balances only where they cannot be a key', () => {
		const item = walletCheck({
			value: { kind: 'unchecked', why: `the service lists no NGN wallet (only ${KEY})` },
			answers: [
				{
					path: '/v2/transactions/wallets',
					httpStatus: 200,
					headers: {},
					body: {
						statusCode: '00',
						data: [
							{ balance: KEY, currency: KEY },
							{ balance: '7', currency: 'USD' },
						],
					},
					ms: 3,
				},
			],
		});
		expect(item.seen).toBe(
			'Wallets: (40 characters, not shown), USD. The service lists no NGN wallet. Differs from the spec: balances come as text, e.g. (40 characters, not shown), not numbers; a currency is not three capital letters.',
		);
	});
});
