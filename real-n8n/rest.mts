// A small client for n8n's internal REST API (the one the editor uses),
// checked against n8n 2.41.1's controllers (where 1.x differs, versions.mts says how
// and the methods below follow it: activation, and the body of a manual run):
//   POST /rest/owner/setup          {email, firstName, lastName, password}
//   POST /rest/login                {emailOrLdapLoginId, password}
//   POST /rest/credentials          {name, type, data}
//   POST /rest/credentials/test     {credentials: {name, type, data}}  (the editor's "Test" button)
//   POST /rest/workflows            workflow JSON
//   POST /rest/workflows/:id/run    {triggerToStartFrom: {name}}       (the editor's "Execute workflow")
//                                   1.x: {workflowData, triggerToStartFrom}
//   POST /rest/workflows/:id/activate {versionId}                      (publish)
//   PATCH /rest/workflows/:id       {active: true, versionId}          (1.x: activate)
//   GET  /rest/executions/:id       execution with flatted `data`
//   POST /rest/community-packages   {name, version?}                   (Settings → Community Nodes → Install)
//                                   1.85: {name: 'pkg@version'}
//   GET  /rest/community-packages   installed packages, `updateAvailable` from `npm outdated`
//   PATCH /rest/community-packages  {name, version?}                   (Update; 1.85: {name}, to the latest)
//   DELETE /rest/community-packages?name=                              (Uninstall)
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { N8N_VERSION, installDir } from './paths.mts';
import { versionFacts } from './versions.mts';

export const OWNER = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'Voucher-Demo-1',
};

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: Array<{
		id?: string;
		name: string;
		type: string;
		typeVersion: number;
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		[k: string]: unknown;
	}>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[k: string]: unknown;
}

type WorkflowNode = WorkflowJson['nodes'][number];

/** A package installed from the editor, as GET /rest/community-packages lists it. */
export interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	installedNodes: Array<{ name: string; type: string; latestVersion: number }>;
	/** The newest version in the registry, when newer than the installed one. */
	updateAvailable?: string;
	/** True when n8n has the package in its database but could not load its nodes. */
	failedLoading?: boolean;
}

/** n8n's manual trigger, named as the REST client's runWorkflow expects to start from. */
export const MANUAL_START: WorkflowNode = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	parameters: {},
};

/**
 * A sheet as users feed one to the node: the rows in an Edit Fields node, split into one
 * item per row. The two nodes go right after the start of a linear workflow.
 */
export function sheetRows(rows: object[]): WorkflowNode[] {
	return [
		{
			name: 'Sheet',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ rows }), options: {} },
		},
		{
			name: 'One item per row',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'rows', options: {} },
		},
	];
}

/** A workflow whose nodes run one after another, laid out left to right as the editor would. */
export function linearWorkflow(name: string, nodes: WorkflowNode[]): WorkflowJson {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < nodes.length; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return {
		name,
		nodes: nodes.map((node, i) => ({ ...node, position: [220 * i, 0] })),
		connections,
		settings: { executionOrder: 'v1' },
	};
}

export interface NodeRun {
	startTime: number;
	executionStatus?: string;
	error?: { message: string; description?: string; [k: string]: unknown };
	data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> };
}

export interface Execution {
	id: string;
	finished: boolean;
	status: string;
	mode: string;
	workflowId: string;
	data: {
		resultData: {
			runData: Record<string, NodeRun[]>;
			error?: { message: string; [k: string]: unknown };
			lastNodeExecuted?: string;
		};
	};
}

let flatted: { parse(s: string): unknown } | undefined;
/** An execution's data as n8n stores it (the `flatted` format), parsed; also for rows read from its database. */
export function parseFlatted(s: string, version = N8N_VERSION): unknown {
	// n8n stores execution data in the `flatted` format; use n8n's own copy.
	flatted ??= createRequire(
		join(installDir(undefined, version), 'node_modules', 'n8n', 'package.json'),
	)('flatted');
	return flatted!.parse(s);
}

export class N8nRest {
	cookie = '';
	readonly url: string;
	/** The n8n version behind `url` (versions.mts), for the calls that differ. */
	readonly version: string;
	constructor(url: string, version = N8N_VERSION) {
		this.url = url;
		this.version = version;
	}

	async request<T = any>(
		method: string,
		path: string,
		body?: unknown,
		okStatuses = [200],
	): Promise<T> {
		const res = await fetch(this.url + path, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': 'voucher-e2e',
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = res.headers.getSetCookie?.() ?? [];
		const auth = setCookie.find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		const text = await res.text();
		if (!okStatuses.includes(res.status)) {
			throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 2000)}`);
		}
		const json = text ? JSON.parse(text) : undefined;
		return (json && typeof json === 'object' && 'data' in json ? json.data : json) as T;
	}

	/** Creates the owner account on a fresh n8n, or logs in when it exists. */
	async ensureOwner(owner = OWNER): Promise<void> {
		const settings = await this.request('GET', '/rest/settings');
		if (settings?.userManagement?.showSetupOnFirstLoad) {
			// The setup answer carries the login cookie already. Logins are scarce:
			// n8n allows 5 a minute per e-mail address.
			await this.request('POST', '/rest/owner/setup', owner);
			if (this.cookie) return;
		}
		await this.login(owner);
	}

	async login(owner = OWNER): Promise<void> {
		await this.request('POST', '/rest/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
	}

	async createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<{ id: string; name: string }> {
		return await this.request('POST', '/rest/credentials', { name, type, data });
	}

	async listCredentials(): Promise<Array<{ id: string; name: string; type: string }>> {
		return await this.request('GET', '/rest/credentials');
	}

	/**
	 * What the editor sends to test a credential: its data, plus the id of the
	 * saved credential ('' for one not saved yet, which only an owner/admin may
	 * test). Answers { status: 'OK' | 'Error', message }.
	 */
	async testCredential(
		type: string,
		data: Record<string, unknown>,
		id = '',
		name = 'test',
	): Promise<{ status: string; message: string }> {
		return await this.request('POST', '/rest/credentials/test', {
			credentials: { id, name, type, data },
		});
	}

	async createWorkflow(wf: WorkflowJson): Promise<{ id: string; versionId: string; name: string }> {
		const { id: _id, active: _a, ...rest } = wf as WorkflowJson & { active?: boolean };
		return await this.request('POST', '/rest/workflows', { ...rest, active: false });
	}

	async getWorkflow(id: string): Promise<any> {
		return await this.request('GET', `/rest/workflows/${id}`);
	}

	async activateWorkflow(id: string): Promise<any> {
		const wf = await this.getWorkflow(id);
		if (versionFacts(this.version).restActivation === 'patch-active')
			return await this.request('PATCH', `/rest/workflows/${id}`, {
				active: true,
				versionId: wf.versionId,
			});
		return await this.request('POST', `/rest/workflows/${id}/activate`, {
			versionId: wf.versionId,
		});
	}

	/**
	 * Activation answers before the production webhooks are routable; a request
	 * in between gets 404. An OPTIONS (CORS preflight) request runs nothing and
	 * answers 204 once the path is registered (n8n 2.41.1: 500 before).
	 */
	async waitForWebhook(url: string, timeoutMs = 15_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const res = await fetch(url, {
				method: 'OPTIONS',
				headers: { origin: this.url, 'access-control-request-method': 'POST' },
			});
			await res.arrayBuffer();
			if (res.ok) return;
			if (Date.now() > deadline)
				throw new Error(`webhook ${url} was not registered within ${timeoutMs} ms`);
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	async deactivateWorkflow(id: string): Promise<any> {
		if (versionFacts(this.version).restActivation === 'patch-active') {
			const wf = await this.getWorkflow(id);
			return await this.request('PATCH', `/rest/workflows/${id}`, {
				active: false,
				versionId: wf.versionId,
			});
		}
		return await this.request('POST', `/rest/workflows/${id}/deactivate`, {});
	}

	/** Starts a saved workflow like the editor's "Execute workflow" button; its execution's id. */
	async startWorkflow(id: string, triggerName: string): Promise<string> {
		const body: Record<string, unknown> = { triggerToStartFrom: { name: triggerName } };
		if (versionFacts(this.version).restRunBody === 'with-workflow-data')
			body.workflowData = await this.getWorkflow(id);
		const started = await this.request('POST', `/rest/workflows/${id}/run`, body);
		if (!started?.executionId)
			throw new Error(`workflow ${id} did not start: ${JSON.stringify(started)}`);
		return String(started.executionId);
	}

	/** Runs a saved workflow like the editor's "Execute workflow" button and waits for it to finish. */
	async runWorkflow(id: string, triggerName: string, timeoutMs = 60_000): Promise<Execution> {
		return await this.waitForExecution(await this.startWorkflow(id, triggerName), timeoutMs);
	}

	async getExecution(id: string): Promise<Execution> {
		const ex = await this.request('GET', `/rest/executions/${id}`);
		if (ex && typeof ex.data === 'string') ex.data = parseFlatted(ex.data, this.version);
		return ex as Execution;
	}

	async waitForExecution(id: string, timeoutMs = 60_000): Promise<Execution> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const ex = await this.getExecution(id).catch(() => undefined);
			if (ex && !['new', 'running', 'waiting'].includes(ex.status)) return ex;
			if (Date.now() > deadline)
				throw new Error(`execution ${id} did not finish in ${timeoutMs} ms (status ${ex?.status})`);
			await new Promise((r) => setTimeout(r, 250));
		}
	}

	/** Installs a community package the way the editor's Install button does. */
	async installPackage(name: string, version?: string): Promise<InstalledPackage> {
		const body =
			versionFacts(this.version).communityPackageVersion === 'in-name'
				? { name: version ? `${name}@${version}` : name }
				: { name, version };
		return await this.request('POST', '/rest/community-packages', body);
	}

	/** The editor's Update button: to `version`, or to the latest where n8n takes no version. */
	async updatePackage(name: string, version?: string): Promise<InstalledPackage> {
		const body =
			versionFacts(this.version).communityPackageVersion === 'in-name'
				? { name }
				: { name, version };
		return await this.request('PATCH', '/rest/community-packages', body);
	}

	async uninstallPackage(name: string): Promise<void> {
		await this.request('DELETE', `/rest/community-packages?name=${encodeURIComponent(name)}`);
	}

	async listPackages(): Promise<InstalledPackage[]> {
		return await this.request('GET', '/rest/community-packages');
	}

	/** Executions of a workflow, newest first (summaries, no data). */
	async listExecutions(
		workflowId: string,
	): Promise<Array<{ id: string; status: string; mode: string }>> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const res = await this.request('GET', `/rest/executions?filter=${filter}&limit=100`);
		return res.results ?? res;
	}
}

/** The items a node output on its main output `index` in the first run. */
export function nodeOutput(
	ex: Execution,
	nodeName: string,
	index = 0,
): Array<Record<string, unknown>> {
	const runs = ex.data.resultData.runData[nodeName];
	if (!runs?.length)
		throw new Error(
			`node "${nodeName}" did not run; ran: ${Object.keys(ex.data.resultData.runData).join(', ')}`,
		);
	return (runs[0].data?.main?.[index] ?? []).map((i) => i.json);
}

export function nodeError(ex: Execution, nodeName: string): NodeRun['error'] {
	return ex.data.resultData.runData[nodeName]?.[0]?.error;
}
