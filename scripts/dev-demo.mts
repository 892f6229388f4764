// The one-command demo (`npm run dev`): builds and packs this package, starts
// the sandbox service, starts a real n8n with the package installed like a
// community package and its owner account (real-n8n/instance.mts), creates
// credentials for the sandbox and the example workflows, then runs until Ctrl-C
// and stops all it started.
//
//   npm run dev [-- --port 5678] [-- --sandbox-port 4010] [-- --keep]
import { parseArgs } from 'node:util';

import { RecipientTable } from '../real-n8n/campaignFromDataTable.mts';
import { importExamples, productionWebhookUrl, readExample } from '../real-n8n/examples.mts';
import { sandboxApiCredential, webhookCredential } from '../real-n8n/fixtures.mts';
import { ensureN8nInstalled } from '../real-n8n/install.mts';
import { startInstance, type Instance, type InstanceStep } from '../real-n8n/instance.mts';
import { freePortAvoidingDefaults, portIsFree } from '../real-n8n/n8n.mts';
import { buildAndPack, removePackedTarball } from '../real-n8n/package-under-test.mts';
import { OWNER } from '../real-n8n/rest.mts';
import { startSandbox, type Sandbox } from '../sandbox/server.mts';

const WEBHOOK_SECRET = 'whsec_demo_sandbox';
const TRIGGER_EXAMPLE = 'order-events-automation.json';
const WEBHOOK_NODE_EXAMPLE = 'operations/webhook-verify-signature.json';
/** Rows of the Data Table example's table: three pages, a few seconds a run. */
const DEMO_ROWS = 2500;

const { values: args } = parseArgs({
	options: {
		port: { type: 'string' },
		'sandbox-port': { type: 'string' },
		keep: { type: 'boolean', default: false },
		verbose: { type: 'boolean', default: false },
	},
});

const say = (msg: string) => process.stdout.write(`${msg}\n`);
const step = async <T,>(label: string, fn: () => Promise<T> | T): Promise<T> => {
	const t0 = Date.now();
	process.stdout.write(`• ${label} … `);
	const result = await fn();
	process.stdout.write(`${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
	return result;
};

async function pickPort(wanted: number | undefined, preferred: number): Promise<number> {
	if (wanted) return wanted;
	return (await portIsFree(preferred)) ? preferred : await freePortAvoidingDefaults();
}

let instance: Instance | undefined;
let sandbox: Sandbox | undefined;
let stopping = false;

async function shutdown(code: number): Promise<never> {
	if (stopping) process.exit(code);
	stopping = true;
	say('\nStopping …');
	await instance?.stop();
	await sandbox?.close();
	if (instance && args.keep) say(`Kept the n8n user folder ${instance.userFolder}`);
	say('Stopped n8n and the sandbox.');
	process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

try {
	const n8nPort = await pickPort(args.port ? Number(args.port) : undefined, 5678);
	const sandboxPort = await pickPort(
		args['sandbox-port'] ? Number(args['sandbox-port']) : undefined,
		4010,
	);
	const n8nUrl = `http://127.0.0.1:${n8nPort}`;

	const tarball = await step('Building and packing n8n-nodes-voucher-service', () =>
		buildAndPack({ forceBuild: true }),
	);
	await step(
		'n8n 2.41.1 (installed once into ~/.cache; ~5-8 min the first time)',
		ensureN8nInstalled,
	);

	// The sandbox sends its signed events to the two example workflows that listen for them.
	const webhookTargets = [TRIGGER_EXAMPLE, WEBHOOK_NODE_EXAMPLE].map((file) => ({
		url: productionWebhookUrl(n8nUrl, readExample(file))!,
		secret: WEBHOOK_SECRET,
	}));
	sandbox = await step(`Starting the sandbox service on port ${sandboxPort}`, () =>
		startSandbox({
			port: sandboxPort,
			webhooks: webhookTargets,
			log: (line) => say(`  [sandbox] ${line}`),
		}),
	);

	const steps: Record<InstanceStep, string> = {
		'install package': 'Installing the package into n8n (.n8n/nodes, like a community package)',
		start: `Starting n8n on port ${n8nPort}`,
		owner: 'Creating the owner account',
	};
	try {
		instance = await startInstance({
			tarballs: [tarball],
			folderPrefix: 'voucher-demo-n8n-',
			port: n8nPort,
			echo: args.verbose,
			// The campaign example reads its CSV from <userFolder>/files.
			restrictFileAccess: true,
			keepUserFolder: args.keep,
			step: (s, run) => step(steps[s], run),
		});
	} finally {
		removePackedTarball(tarball);
	}
	const { n8n, rest, filesDir } = instance;
	const credentials = await step('Creating credentials for the sandbox', async () => ({
		voucherServiceApi: await sandboxApiCredential(rest, sandbox!, 'Voucher Service account'),
		voucherServiceWebhookApi: await webhookCredential(
			rest,
			'Voucher Service webhook secret',
			WEBHOOK_SECRET,
		),
	}));
	const imported = await step('Importing the example workflows', () =>
		// A new n8n: the examples keep their ids, so a campaign finds its page sub-workflow.
		importExamples(rest, { credentials, filesDir, keepIds: true }),
	);
	await step(
		`Creating the Data Table of "Campaign from a Data Table" (${DEMO_ROWS} rows)`,
		async () => (await RecipientTable.create(rest)).add(DEMO_ROWS, 1, 1),
	);

	say(`
Voucher Service demo is running.

  n8n editor   ${n8n.url}
  login        ${OWNER.email}  /  ${OWNER.password}

  sandbox      ${sandbox.url}  (keys ${sandbox.keys.publicKey} / ${sandbox.keys.secretKey})
  webhooks     the sandbox signs its events with "${WEBHOOK_SECRET}" and sends them to
${webhookTargets.map((t) => `                 ${t.url}`).join('\n')}

  workflows
${imported.map((w) => `    ${w.active ? '●' : ' '} ${w.name.padEnd(62)} ${n8n.url}/workflow/${w.id}`).join('\n')}
    (● active: started by webhooks, or a sub-workflow, which runs only published)

Try "Voucher campaign from a CSV file", then "Place an order that completes later"
and watch the executions of "React to finished voucher orders". Run "Campaign from a
Data Table", then read each row's result in Overview → Data tables → Campaign recipients.
Press Ctrl-C to stop n8n and the sandbox.`);
} catch (error) {
	process.stderr.write(`\n${(error as Error).stack ?? String(error)}\n`);
	if (instance) process.stderr.write(`\nLast lines of n8n's log:\n${instance.n8n.logTail(30)}\n`);
	await shutdown(1);
}
