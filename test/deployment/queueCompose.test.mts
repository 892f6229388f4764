// examples/docker-compose.queue.yml against what the queue-mode suite starts
// (real-n8n/queueCluster.mts): the same roles and numbers, the same shared settings
// in every n8n process, the main process's and workers' own settings, one
// value per deployment variable across all processes, the router's table, a
// writable nodes volume, a PostgreSQL n8n supports, and a start order that
// waits for health. Docker does not run here; this reads the file.
//
// composeProblems() lists every disagreement; the real file must have none,
// and each mutant below (one broken detail each) must have at least one, so
// the check itself cannot silently pass.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { N8N_VERSION, REPO_ROOT } from '../../real-n8n/paths.mts';
import {
	MAIN_SETTINGS,
	QUEUE_DEPLOYMENT_VARIABLES,
	QUEUE_ROLES,
	QUEUE_SETTINGS,
	WEBHOOK_PROCESS_PATHS,
	WEBHOOK_SETTINGS,
	WORKER_SETTINGS,
} from '../../real-n8n/queueCluster.mts';

const COMPOSE_FILE = join(REPO_ROOT, 'examples', 'docker-compose.queue.yml');
/** The shared volume: every n8n process mounts it as its ~/.n8n/nodes. */
const NODES_VOLUME = 'voucher-nodes';
const NODES_MOUNT = /^voucher-nodes:\/home\/node\/\.n8n\/nodes$/;
/** The image's user `node`. */
const NODE_UID = '1000:1000';
/** n8n 2.41.1 supports PostgreSQL 17 and newer (@n8n/db, postgres-version-policy.js). */
const OLDEST_SUPPORTED_POSTGRES = 17;
/** Settings only the compose file has, and why the suite does without them. */
const COMPOSE_ONLY = new Set([
	// The editor's public address; the suite's processes use their own loopback URL.
	'N8N_EDITOR_BASE_URL',
	// The suite sets UTC in n8nEnv() for every n8n it starts (real-n8n/n8n.mts).
	'GENERIC_TIMEZONE',
]);

type Env = Record<string, string>;
interface Service {
	image?: string;
	user?: string;
	command?: string[] | string;
	entrypoint?: string[] | string;
	environment?: Env;
	volumes?: string[];
	depends_on?: Record<string, { condition: string }> | string[];
	healthcheck?: { test: string[] | string };
	configs?: Array<{ source: string; target: string }>;
	ports?: string[];
}
interface Compose {
	services: Record<string, Service>;
	configs?: Record<string, { content?: string }>;
	volumes?: Record<string, unknown>;
}

function readCompose(): Compose {
	// merge: the file shares settings through YAML anchors and `<<` keys, as Compose does.
	return parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as Compose;
}

const words = (v: string[] | string | undefined): string[] =>
	v === undefined ? [] : Array.isArray(v) ? v.map(String) : String(v).split(/\s+/);

const isN8n = (s: Service) => (s.image ?? '').includes('n8nio/n8n');

function n8nRoleOf(s: Service): keyof typeof QUEUE_ROLES | undefined {
	const cmd = words(s.command)[0];
	return (Object.keys(QUEUE_ROLES) as Array<keyof typeof QUEUE_ROLES>).find(
		(role) => QUEUE_ROLES[role].command === cmd,
	);
}

function dependsOn(s: Service): Record<string, string> {
	const d = s.depends_on ?? {};
	if (Array.isArray(d)) return Object.fromEntries(d.map((name) => [name, 'service_started']));
	return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v.condition]));
}

/** `location <prefix> { ... proxy_pass http://<upstream>; }` of an nginx configuration. */
function nginxRoutes(conf: string): Map<string, string> {
	const routes = new Map<string, string>();
	const re = /location\s+(\S+)\s*\{([^}]*)\}/g;
	for (let m = re.exec(conf); m; m = re.exec(conf)) {
		const pass = /proxy_pass\s+http:\/\/([\w-]+)/.exec(m[2]);
		if (pass) routes.set(m[1], pass[1]);
	}
	return routes;
}

function nginxUpstreams(conf: string): Map<string, string[]> {
	const ups = new Map<string, string[]>();
	const re = /upstream\s+([\w-]+)\s*\{([^}]*)\}/g;
	for (let m = re.exec(conf); m; m = re.exec(conf)) {
		ups.set(
			m[1],
			[...m[2].matchAll(/server\s+([^;\s]+)/g)].map((s) => s[1]),
		);
	}
	return ups;
}

function composeProblems(doc: Compose): string[] {
	const problems: string[] = [];
	const say = (p: string) => problems.push(p);
	const services = doc.services ?? {};

	// Roles: as many n8n processes of each role as the suite starts.
	const byRole = new Map<string, string[]>();
	for (const [name, s] of Object.entries(services)) {
		if (!isN8n(s)) continue;
		const role = n8nRoleOf(s);
		if (role) byRole.set(role, [...(byRole.get(role) ?? []), name]);
	}
	for (const [role, { count }] of Object.entries(QUEUE_ROLES)) {
		const n = byRole.get(role)?.length ?? 0;
		if (n !== count) say(`${count} ${role} process(es) in the suite, ${n} in the compose file`);
	}
	const n8nServices = [...byRole.values()].flat();
	const main = byRole.get('main')?.[0];
	const workers = byRole.get('worker') ?? [];
	const webhooks = byRole.get('webhook') ?? [];

	// Environment.
	const known = new Set([
		...Object.keys(QUEUE_SETTINGS),
		...Object.keys(MAIN_SETTINGS),
		...Object.keys(WORKER_SETTINGS),
		...Object.keys(WEBHOOK_SETTINGS),
		...QUEUE_DEPLOYMENT_VARIABLES,
		...COMPOSE_ONLY,
	]);
	const deploymentValues = new Map<string, Set<string>>();
	for (const name of n8nServices) {
		const s = services[name];
		const env: Env = Object.fromEntries(
			Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v)]),
		);
		const role = n8nRoleOf(s)!;
		const expected: Env = {
			...QUEUE_SETTINGS,
			...(role === 'main' ? MAIN_SETTINGS : {}),
			...(role === 'worker' ? WORKER_SETTINGS : {}),
			...(role === 'webhook' ? WEBHOOK_SETTINGS : {}),
		};
		for (const [k, v] of Object.entries(expected)) {
			if (env[k] !== v) say(`${name}: ${k} is ${env[k] ?? 'missing'}, the suite sets ${v}`);
		}
		for (const k of Object.keys(MAIN_SETTINGS)) {
			if (role !== 'main' && k in env) say(`${name}: ${k} belongs to the main process only`);
		}
		for (const k of Object.keys(env)) {
			if (!known.has(k)) say(`${name}: ${k} is set here but not by the suite (real-n8n/queueCluster.mts)`);
		}
		for (const k of QUEUE_DEPLOYMENT_VARIABLES) {
			if (!(k in env)) say(`${name}: ${k} missing`);
			else deploymentValues.set(k, (deploymentValues.get(k) ?? new Set()).add(env[k]));
		}
		if (!(s.image ?? '').endsWith(`:${N8N_VERSION}`)) {
			say(`${name}: image ${s.image}, the suite runs n8n ${N8N_VERSION}`);
		}
		if (!(s.volumes ?? []).some((v) => NODES_MOUNT.test(v))) {
			say(`${name}: the volume ${NODES_VOLUME} is not its ~/.n8n/nodes`);
		}
	}
	for (const [k, values] of deploymentValues) {
		if (values.size > 1) say(`${k} differs between n8n processes: ${[...values].join(', ')}`);
	}

	// The nodes volume: handed to `node` by a root one-shot before anyone writes to it.
	const mountOf = (s: Service) =>
		(s.volumes ?? []).find((v) => v.startsWith(`${NODES_VOLUME}:`))?.slice(NODES_VOLUME.length + 1);
	const nodesVolume = Object.entries(services).find(
		([, s]) =>
			String(s.user ?? '').startsWith('0') &&
			mountOf(s) !== undefined &&
			words(s.entrypoint).join(' ') === `chown -R ${NODE_UID} ${mountOf(s)}`,
	)?.[0];
	if (!nodesVolume) say(`no root service that chowns the volume ${NODES_VOLUME} to ${NODE_UID}`);
	const installer = services['install-nodes'];
	if (!installer) say('no install-nodes service');
	else if (nodesVolume && dependsOn(installer)[nodesVolume] !== 'service_completed_successfully') {
		say(`install-nodes does not wait for ${nodesVolume} to complete`);
	}

	// PostgreSQL and Redis: supported versions, health checks, waited for.
	const pgImage = services.postgres?.image ?? '';
	const pgMajor = Number(/postgres:(\d+)/.exec(pgImage)?.[1]);
	if (!(pgMajor >= OLDEST_SUPPORTED_POSTGRES)) {
		say(
			`postgres image ${pgImage || 'missing'}: n8n supports ${OLDEST_SUPPORTED_POSTGRES} and newer`,
		);
	}
	if (!words(services.postgres?.healthcheck?.test).includes('pg_isready')) {
		say('postgres has no pg_isready health check');
	}
	if (!words(services.redis?.healthcheck?.test).join(' ').includes('redis-cli ping')) {
		say('redis has no redis-cli ping health check');
	}
	for (const name of n8nServices) {
		const d = dependsOn(services[name]);
		for (const dep of ['postgres', 'redis']) {
			if (d[dep] !== 'service_healthy') say(`${name} does not wait for ${dep} to be healthy`);
		}
		if (d['install-nodes'] !== 'service_completed_successfully') {
			say(`${name} does not wait for install-nodes`);
		}
		if (!services[name].healthcheck) say(`${name} has no health check`);
		if (name !== main && main && d[main] !== 'service_healthy') {
			say(`${name} does not wait for ${main} (which migrates the database) to be healthy`);
		}
	}

	// The router.
	const proxyName = Object.keys(services).find((n) =>
		(services[n].image ?? '').match(/^(nginx|caddy)/),
	);
	const proxy = proxyName ? services[proxyName] : undefined;
	if (!proxy) {
		say('no proxy service');
		return problems;
	}
	const source = proxy.configs?.[0]?.source;
	const conf = (source && doc.configs?.[source]?.content)?.replaceAll('$$', '$');
	if (!conf) {
		say('the proxy has no inline nginx configuration');
		return problems;
	}
	const routes = nginxRoutes(conf);
	const upstreams = nginxUpstreams(conf);
	const upstreamOf = (path: string) => upstreams.get(routes.get(path) ?? '') ?? [];
	const webhookServers = webhooks.map((w) => `${w}:5678`).sort();
	for (const path of WEBHOOK_PROCESS_PATHS) {
		const servers = [...upstreamOf(path)].sort();
		if (servers.join() !== webhookServers.join()) {
			say(`proxy: ${path} goes to [${servers.join(', ')}], not to [${webhookServers.join(', ')}]`);
		}
	}
	for (const path of routes.keys()) {
		if (path !== '/' && !(WEBHOOK_PROCESS_PATHS as readonly string[]).includes(path)) {
			say(`proxy: ${path} is routed here but not by the suite's router`);
		}
	}
	if (upstreamOf('/').join() !== `${main}:5678`) say(`proxy: / does not go to ${main}:5678`);
	const proxyDeps = dependsOn(proxy);
	for (const name of [main, ...webhooks]) {
		if (name && proxyDeps[name] !== 'service_healthy') say(`proxy does not wait for ${name}`);
	}
	if (!proxy.ports?.length) say('the proxy publishes no port');
	for (const name of [...workers, ...webhooks, main]) {
		if (name && services[name].ports?.length)
			say(`${name} publishes a port: only the proxy should`);
	}
	return problems;
}

describe('examples/docker-compose.queue.yml agrees with the queue-mode suite', () => {
	it('has no disagreement with real-n8n/queueCluster.mts', () => {
		expect(composeProblems(readCompose())).toEqual([]);
	});

	// Each mutant breaks one thing the check must notice.
	const mutants: Array<[string, (doc: Compose) => void]> = [
		[
			'a shared setting missing on one webhook process',
			(d) => {
				delete d.services['webhook-2'].environment!.N8N_UNVERIFIED_PACKAGES_ENABLED;
			},
		],
		[
			'the lazy isolate setting missing on one webhook process',
			(d) => {
				delete d.services['webhook-1'].environment!.N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE;
			},
		],
		[
			'a shared setting with another value',
			(d) => {
				d.services['worker-1'].environment!.EXECUTIONS_MODE = 'regular';
			},
		],
		[
			'production webhooks left on the main process',
			(d) => {
				delete d.services.main.environment!.N8N_DISABLE_PRODUCTION_MAIN_PROCESS;
			},
		],
		[
			'another encryption key on one worker',
			(d) => {
				d.services['worker-2'].environment!.N8N_ENCRYPTION_KEY = 'other';
			},
		],
		[
			'a setting the suite does not make',
			(d) => {
				d.services.main.environment!.N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV = 'true';
			},
		],
		[
			'one webhook process fewer',
			(d) => {
				delete d.services['webhook-2'];
			},
		],
		[
			'PostgreSQL 16',
			(d) => {
				d.services.postgres.image = 'postgres:16';
			},
		],
		[
			'no health check on redis',
			(d) => {
				delete d.services.redis.healthcheck;
			},
		],
		[
			'a worker that starts before main is healthy',
			(d) => {
				const deps = d.services['worker-1'].depends_on as Record<string, { condition: string }>;
				deps.main = { condition: 'service_started' };
			},
		],
		[
			'no chown of the nodes volume',
			(d) => {
				delete d.services['nodes-volume'];
			},
		],
		[
			'/form-waiting/ sent to main',
			(d) => {
				const c = d.configs!['nginx-n8n'];
				c.content = c.content!.replace(/location \/form-waiting\/[^}]*\}\n/, '');
			},
		],
		[
			'/webhook-test/ sent to the webhook processes',
			(d) => {
				const c = d.configs!['nginx-n8n'];
				c.content = c.content!.replace(
					'location / {',
					'location /webhook-test/ { proxy_pass http://n8n_webhooks; }\n  location / {',
				);
			},
		],
	];
	it.each(mutants)('notices %s', (_what, mutate) => {
		const doc = readCompose();
		mutate(doc);
		expect(composeProblems(doc)).not.toEqual([]);
	});
});
