// What the tests, the benchmarks and the demo share about our package and the sandbox, in
// one place: the names n8n gives our node and credential types, the credentials they create
// in a real n8n (ours, and n8n's Postgres one), the sandbox's Basic auth header, and a wait for a condition.
import type { N8nRest } from './rest.mts';
import type { Postgres } from './services.mts';

/** The credential types' names (as nodes/serviceProtocol/credentials.ts declares them). */
export const API_CREDENTIAL = 'voucherServiceApi';
export const WEBHOOK_CREDENTIAL = 'voucherServiceWebhookApi';

/** Our node types as n8n registers them: '<package name>.<node name>'. */
export const ACTION_NODE = 'n8n-nodes-voucher-service.voucherService';
/** The action node as n8n names it when it is added to an AI Agent as a tool. */
export const ACTION_TOOL_NODE = `${ACTION_NODE}Tool`;
export const TRIGGER_NODE = 'n8n-nodes-voucher-service.voucherServiceTrigger';

/** A sandbox's address and full-access keys (sandbox/server.mts's Sandbox has both). */
export interface SandboxAccess {
	url: string;
	keys: ApiKeys;
}

export interface ApiKeys {
	publicKey: string;
	secretKey: string;
}

/** The Authorization header the service (and the sandbox) accepts for these keys. */
export function basicAuth(keys: ApiKeys): string {
	return `Basic ${Buffer.from(`${keys.publicKey}:${keys.secretKey}`).toString('base64')}`;
}

/** Our API credential in n8n, pointed at `sandbox` with its keys, plus any other fields (e.g. maxOrderTotal). */
export async function sandboxApiCredential(
	rest: N8nRest,
	sandbox: SandboxAccess,
	name: string,
	fields: Record<string, unknown> = {},
): Promise<{ id: string; name: string }> {
	return await rest.createCredential(name, API_CREDENTIAL, {
		baseUrl: sandbox.url,
		publicKey: sandbox.keys.publicKey,
		secretKey: sandbox.keys.secretKey,
		...fields,
	});
}

/** Our webhook-secret credential in n8n, for the trigger and Verify Signature. */
export async function webhookCredential(
	rest: N8nRest,
	name: string,
	secret: string,
): Promise<{ id: string; name: string }> {
	return await rest.createCredential(name, WEBHOOK_CREDENTIAL, { secret });
}

/** n8n's own Postgres credential, pointed at a PostgreSQL of services.mts (trust: no password). */
export async function postgresCredential(
	rest: N8nRest,
	pg: Pick<Postgres, 'host' | 'port' | 'database' | 'user'>,
	name: string,
): Promise<{ id: string; name: string }> {
	const { host, port, database, user } = pg;
	return await rest.createCredential(name, 'postgres', {
		host,
		port,
		database,
		user,
		password: '',
		ssl: 'disable',
	});
}

/**
 * Calls `probe` until it returns something other than undefined, null or false, and resolves
 * to that. It asks again after 10 ms, then ever less often, at most every 200 ms (a REST
 * call to n8n is not free). Rejects with "timed out waiting for <what>" after `timeoutMs`.
 */
export async function until<T>(
	what: string,
	probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
	timeoutMs = 30_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (let intervalMs = 10; ; intervalMs = Math.min(intervalMs * 2, 200)) {
		const value = await probe();
		if (value !== undefined && value !== null && value !== false) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, intervalMs));
	}
}
