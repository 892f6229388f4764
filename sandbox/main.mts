import { parseArgs } from 'node:util';

import { DIALECTS, PRODUCT_CODES, startSandbox } from './server.mts';
import type { FaultOptions, SandboxOptions, WebhookTarget } from './server.mts';

const USAGE = `Usage: npm run sandbox -- [options]
  --port N                 (SANDBOX_PORT, default 4010; 0 picks a free port)
  --latency-ms N           (SANDBOX_LATENCY_MS) added to every /v2 request
  --rate-limit N           (SANDBOX_RATE_LIMIT) requests per second over which /v2 answers 429
  --processing-delay-ms N  (SANDBOX_PROCESSING_DELAY_MS, default 1500)
  --time-factor F          (SANDBOX_TIME_FACTOR, default 1) scales the webhook retry schedule
  --error-rate R  --reset-rate R  --commit-then-drop-rate R  --commit-then-500-rate R  --rate-limit-rate R
                           (SANDBOX_ERROR_RATE, ...) fault probabilities in [0, 1]
  --retry-after S          (SANDBOX_RETRY_AFTER) Retry-After seconds on 429
  --seed N                 (SANDBOX_SEED) fault PRNG seed
  --fault-paths P,P        (SANDBOX_FAULT_PATHS) path prefixes the faults apply to
  --webhook URL --webhook-secret S   repeatable, paired in order
                           (SANDBOX_WEBHOOK_URLS and SANDBOX_WEBHOOK_SECRETS, comma-separated)
  --dialect NAME           (SANDBOX_DIALECT) how the spec's open points are answered, one of
                           ${Object.keys(DIALECTS).join(', ')}
  --quiet                  no request log lines`;

const NUMERIC = {
	port: 'SANDBOX_PORT',
	'latency-ms': 'SANDBOX_LATENCY_MS',
	'rate-limit': 'SANDBOX_RATE_LIMIT',
	'processing-delay-ms': 'SANDBOX_PROCESSING_DELAY_MS',
	'time-factor': 'SANDBOX_TIME_FACTOR',
	'error-rate': 'SANDBOX_ERROR_RATE',
	'reset-rate': 'SANDBOX_RESET_RATE',
	'commit-then-drop-rate': 'SANDBOX_COMMIT_THEN_DROP_RATE',
	'commit-then-500-rate': 'SANDBOX_COMMIT_THEN_500_RATE',
	'rate-limit-rate': 'SANDBOX_RATE_LIMIT_RATE',
	'retry-after': 'SANDBOX_RETRY_AFTER',
	seed: 'SANDBOX_SEED',
} as const;
type NumericFlag = keyof typeof NUMERIC;

function parseCli(argv: string[], env: NodeJS.ProcessEnv): SandboxOptions {
	const { values } = parseArgs({
		args: argv,
		options: {
			...Object.fromEntries(Object.keys(NUMERIC).map((k) => [k, { type: 'string' as const }])),
			'fault-paths': { type: 'string' },
			dialect: { type: 'string' },
			webhook: { type: 'string', multiple: true },
			'webhook-secret': { type: 'string', multiple: true },
			quiet: { type: 'boolean' },
			help: { type: 'boolean' },
		},
	});
	if (values.help) {
		console.log(USAGE);
		process.exit(0);
	}
	const num = (flag: NumericFlag): number | undefined => {
		const raw =
			((values as Record<string, unknown>)[flag] as string | undefined) ?? env[NUMERIC[flag]];
		if (raw === undefined || raw === '') return undefined;
		const n = Number(raw);
		if (!Number.isFinite(n)) throw new Error(`--${flag} must be a number, got ${raw}`);
		return n;
	};
	const list = (raw: string | undefined) =>
		raw
			? raw
					.split(',')
					.map((s) => s.trim())
					.filter(Boolean)
			: [];

	const urls = (values.webhook as string[] | undefined) ?? list(env.SANDBOX_WEBHOOK_URLS);
	const secrets =
		(values['webhook-secret'] as string[] | undefined) ?? list(env.SANDBOX_WEBHOOK_SECRETS);
	if (urls.length !== secrets.length)
		throw new Error('every --webhook needs its own --webhook-secret');
	const webhooks: WebhookTarget[] = urls.map((url, i) => ({ url, secret: secrets[i] }));

	const faults: FaultOptions = {
		errorRate: num('error-rate'),
		resetRate: num('reset-rate'),
		commitThenDropRate: num('commit-then-drop-rate'),
		commitThen500Rate: num('commit-then-500-rate'),
		rateLimitRate: num('rate-limit-rate'),
		retryAfterSeconds: num('retry-after'),
		seed: num('seed'),
		paths: list((values['fault-paths'] as string | undefined) ?? env.SANDBOX_FAULT_PATHS),
	};
	if (faults.paths?.length === 0) delete faults.paths;

	const dialectName = (values.dialect as string | undefined) ?? env.SANDBOX_DIALECT ?? 'spec';
	if (!Object.hasOwn(DIALECTS, dialectName))
		throw new Error(`--dialect must be one of ${Object.keys(DIALECTS).join(', ')}`);

	return {
		host: '127.0.0.1',
		port: num('port') ?? 4010,
		latencyMs: num('latency-ms'),
		rateLimitPerSecond: num('rate-limit'),
		processingDelayMs: num('processing-delay-ms'),
		timeFactor: num('time-factor'),
		faults,
		webhooks,
		dialect: DIALECTS[dialectName],
		log: values.quiet ? undefined : (line) => console.log(`[sandbox] ${line}`),
	};
}

async function main(): Promise<void> {
	let options: SandboxOptions;
	try {
		options = parseCli(process.argv.slice(2), process.env);
	} catch (err) {
		console.error(`${(err as Error).message}\n\n${USAGE}`);
		process.exit(2);
	}
	const sandbox = await startSandbox(options);
	const products = Object.entries(PRODUCT_CODES).map(
		([code, p]) =>
			`  ${code.padEnd(20)} ${p.name.padEnd(24)} ${p.settles === 'instant' ? 'COMPLETED at once' : `PROCESSING, then ${p.outcome}`}`,
	);
	// One write, so a parent process reading stdout sees the whole banner at once.
	console.log(`Voucher service sandbox: ${sandbox.url}
  base URL    ${sandbox.url}
  public key  ${sandbox.keys.publicKey}
  secret key  ${sandbox.keys.secretKey}
  403 pair    ${sandbox.forbiddenKeys.publicKey} / ${sandbox.forbiddenKeys.secretKey}
  webhooks    ${options.webhooks?.length ? options.webhooks.map((w) => w.url).join(', ') : '(none)'}
  admin       ${sandbox.url}/__sandbox/health
Product codes:
${products.join('\n')}`);
	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.log(`[sandbox] ${signal}: shutting down`);
		sandbox.close().then(
			() => process.exit(0),
			(err: unknown) => {
				console.error(err);
				process.exit(1);
			},
		);
	};
	process.once('SIGINT', () => stop('SIGINT'));
	process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
	console.error(err);
	process.exit(1);
});
