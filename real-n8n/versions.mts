// Every n8n version the harness can install and start, and what differs between them, in
// one table. install.mts, n8n.mts, rest.mts and the compatibility suite (test/compat/) read
// their per-version facts here and nowhere else. A row is one n8n version on one Node; its
// id is the version, or `<version>-node<major>` for the same version on a second Node (its
// own install, as native modules are built for one Node). Every `version` parameter of
// paths.mts, install.mts, n8n.mts and rest.mts is such an id.
//
// Each version has its own install manifest: real-n8n/package.json (+ lock) for the
// version every full suite uses, real-n8n/versions/<version>/package.json (+ lock) for
// the others. Its lock is written by the first install (install.mts) and committed.
//
// Why these values (checked here, see the project's toolchain notes):
// - Node: 2.x needs Node >= 24. 1.123.81 accepts 20.19 to 24, but its default expression
//   engine (isolated-vm 6.2) needs Node >= 22: on Node 20 every command fails at start with
//   "IsolatePool failed to create any bridges" unless N8N_EXPRESSION_ENGINE=legacy. 1.85.3
//   accepts 18.17 to 22 (`engines`) and is run on 20, the oldest Node that 1.123 accepts too.
// - Public webhook URL: 2.x reads N8N_WEBHOOK_URL and falls back to WEBHOOK_URL; 1.x reads
//   only WEBHOOK_URL.
// - Activation: 2.x publishes a workflow (`n8n publish:workflow`, REST .../activate); 1.x
//   sets it active (`n8n update:workflow --active=true`, REST PATCH with `active: true`).
// - `xlsx`: n8n-nodes-base 1.x pins it to a tarball outside the npm registry; the 1.x
//   manifests override it with the registry's @e965/xlsx of the same version.
// - The editor's installer (test/install/), run in 1.85.3 and 2.41.1 (1.123.81: read in its
//   code, the same as 2.x):
//   - REST: see communityPackageVersion. Both answer an install or update with the package
//     (`packageName`, `installedVersion`, `installedNodes`), list `updateAvailable` from
//     `npm outdated` (2.x also `failedLoading` on every package, 1.85.3 only on one that
//     failed to load), and refuse a run of a workflow with an uninstalled node before it
//     starts: "Unrecognized node type", 400 in 2.41.1, 500 in 1.85.3.
//   - Registry: N8N_COMMUNITY_PACKAGES_REGISTRY other than npm's is refused without a
//     licence in both ("Your license does not allow for feat:communityNodes:customRegistry").
//   - npm: 1.85.3 runs `npm install <pkg>@latest|<version>` in .n8n/nodes (a shell command,
//     environment only PATH and NODE_PATH) and `npm remove`; it installs non-optional peer
//     dependencies. 2.x runs `npm view`, `npm pack`, then `npm install --ignore-scripts`
//     in the package's folder with its peer and dev dependencies stripped.
//   - N8N_UNVERIFIED_PACKAGES_ENABLED=false refuses every unverified package in 1.123 and
//     2.x ("Installation of unverified community packages is forbidden!"); 1.85.3 has no
//     such setting.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// paths.mts reads this table, so the folder is found here, not imported from there.
const REAL_N8N_DIR = dirname(fileURLToPath(import.meta.url));

interface AgentNodes {
	/** @n8n/n8n-nodes-langchain.agent typeVersion. */
	agent: number;
	/** @n8n/n8n-nodes-langchain.lmChatOpenAi typeVersion. */
	model: number;
	/** Parameters the agent node needs beyond the prompt (1.x: which kind of agent). */
	agentParameters: Record<string, unknown>;
	/** Parameters the model node needs to talk Chat Completions to the fake model. */
	modelParameters: Record<string, unknown>;
	/** Whether the tool's run in the agent carries the node's execution hints (addExecutionHints). */
	toolHints: boolean;
}

export interface N8nVersionFacts {
	/** The row's id: the n8n version, or `<version>-node<major>`. */
	id: string;
	/** The n8n version. */
	version: string;
	/** Folder with this version's install manifest (package.json, package-lock.json). */
	manifestDir: string;
	/** The Node major that installs (native modules) and runs it. */
	nodeMajor: number;
	/** Native modules rebuilt after the script-less install. */
	nativeModules: readonly string[];
	/** n8n settings this version needs on that Node, here (beyond the harness's defaults). */
	env: Record<string, string>;
	/** The variable n8n reads its public webhook base URL from. */
	webhookUrlVariable: 'N8N_WEBHOOK_URL' | 'WEBHOOK_URL';
	/** CLI arguments that make a saved workflow active (production webhooks registered). */
	activateCommand(workflowId: string): string[];
	/** How the internal REST API activates a workflow. */
	restActivation: 'activate-endpoint' | 'patch-active';
	/**
	 * Whether a sub-workflow (Execute Workflow Trigger) is published: 2.x runs one only once
	 * published; 1.x runs it as saved, and refuses to activate a workflow without a trigger.
	 */
	publishSubWorkflows: boolean;
	/** How `POST /rest/workflows/:id/run` wants its body: 2.x only names the trigger; 1.x also the workflow. */
	restRunBody: 'trigger-only' | 'with-workflow-data';
	/**
	 * How the editor's installer (Settings → Community Nodes) takes a version over REST:
	 * `body`: `{name, version}` to install and to update; `in-name`: `{name: 'pkg@1.2.3'}` to
	 * install, and an update (`{name}`) always takes the latest.
	 */
	communityPackageVersion: 'body' | 'in-name';
	/** The AI Agent and OpenAI model node versions to test the node as a tool with; none: not tested. */
	agentNodes?: AgentNodes;
	/**
	 * What examples/campaign-from-data-table needs of n8n's Data Table node (Data Tables since
	 * 1.113.1; none here: this n8n has none). `byName`: the node finds a table By Name (not in
	 * 1.123.81: From List or By ID). `orderBy`: Get orders rows by a column (n8n 2.5.0, never in
	 * 1.x); without it, rows come in the database's order, by `id` on SQLite for the example's read.
	 */
	dataTables?: { byName: boolean; orderBy: boolean };
}

/** The version every full suite (e2e, queue, bench, demo) uses: real-n8n/package.json. */
export const DEFAULT_N8N_VERSION = (
	JSON.parse(readFileSync(join(REAL_N8N_DIR, 'package.json'), 'utf8')) as {
		dependencies: { n8n: string };
	}
).dependencies.n8n;

const v2 = {
	nodeMajor: 24,
	dataTables: { byName: true, orderBy: true },
	nativeModules: ['sqlite3', 'isolated-vm'],
	// Its refresh task calls api.n8n.io, unreachable offline; nothing here uses it. n8n 1.x
	// has no such module and refuses to start when asked to disable it: Unknown module "mcp-registry".
	env: { N8N_DISABLED_MODULES: 'mcp-registry' },
	webhookUrlVariable: 'N8N_WEBHOOK_URL',
	activateCommand: (id: string) => ['publish:workflow', `--id=${id}`],
	restActivation: 'activate-endpoint',
	publishSubWorkflows: true,
	restRunBody: 'trigger-only',
	communityPackageVersion: 'body',
} as const;

const v1 = {
	webhookUrlVariable: 'WEBHOOK_URL',
	activateCommand: (id: string) => ['update:workflow', `--id=${id}`, '--active=true'],
	restActivation: 'patch-active',
	publishSubWorkflows: false,
	restRunBody: 'with-workflow-data',
	communityPackageVersion: 'body',
} as const;

/** Read in 1.123.81's node: Get reads no Order By, the table is picked From List or By ID. */
const dataTables1123 = { byName: false, orderBy: false };

const agentNodes1123: AgentNodes = {
	agent: 3,
	agentParameters: {},
	model: 1.3,
	modelParameters: { responsesApiEnabled: false },
	toolHints: true,
};

const versioned = (version: string) => join(REAL_N8N_DIR, 'versions', version);

/** The compatibility matrix, oldest first. The last entry is the default version. */
export const N8N_VERSIONS: readonly N8nVersionFacts[] = [
	{
		...v1,
		id: '1.85.3',
		version: '1.85.3',
		manifestDir: versioned('1.85.3'),
		nodeMajor: 20,
		nativeModules: ['sqlite3'],
		env: {},
		communityPackageVersion: 'in-name',
		agentNodes: {
			agent: 1.8,
			agentParameters: { agent: 'toolsAgent' },
			model: 1.2,
			modelParameters: {},
			toolHints: false,
		},
	},
	{
		...v1,
		id: '1.123.81',
		version: '1.123.81',
		manifestDir: versioned('1.123.81'),
		nodeMajor: 22,
		nativeModules: ['sqlite3', 'isolated-vm'],
		env: {},
		agentNodes: agentNodes1123,
		dataTables: dataTables1123,
	},
	{
		...v1,
		id: '1.123.81-node20',
		version: '1.123.81',
		manifestDir: versioned('1.123.81'),
		nodeMajor: 20,
		// isolated-vm 6.2 builds for Node >= 22 only; left as shipped, it is never loaded with
		// the legacy engine.
		nativeModules: ['sqlite3'],
		// Without it every command fails at start: "IsolatePool failed to create any bridges".
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
		agentNodes: agentNodes1123,
		dataTables: dataTables1123,
	},
	{
		...v2,
		id: DEFAULT_N8N_VERSION,
		version: DEFAULT_N8N_VERSION,
		manifestDir: REAL_N8N_DIR,
		agentNodes: {
			agent: 3.1,
			agentParameters: {},
			model: 1.3,
			modelParameters: { responsesApiEnabled: false },
			toolHints: true,
		},
	},
];

/** The row of `id` (an n8n version, or `<version>-node<major>`). */
export function versionFacts(id = DEFAULT_N8N_VERSION): N8nVersionFacts {
	const facts = N8N_VERSIONS.find((v) => v.id === id);
	if (!facts)
		throw new Error(
			`n8n ${id} is not in real-n8n/versions.mts (known: ${N8N_VERSIONS.map((v) => v.id).join(', ')})`,
		);
	return facts;
}
