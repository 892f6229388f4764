import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a handler decided to answer; the server decides whether it is really sent. */
export interface Reply {
	status: number;
	json?: unknown;
	text?: string;
	headers?: Record<string, string>;
}

export const text = (status: number, body: string, headers?: Record<string, string>): Reply => ({
	status,
	text: body,
	headers,
});
export const json = (status: number, body: unknown): Reply => ({ status, json: body });

export async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

/** undefined for an empty body, a string for text that is not JSON (kept so the request log shows it). */
export function parseBody(raw: string): { value: unknown; isJson: boolean } {
	if (raw.trim() === '') return { value: undefined, isJson: false };
	try {
		return { value: JSON.parse(raw), isJson: true };
	} catch {
		return { value: raw, isJson: false };
	}
}

/** Node 24's JSON.rawJSON, which TypeScript's lib does not declare yet. */
const { rawJSON } = JSON as unknown as { rawJSON(text: string): unknown };

/**
 * JSON text with every bigint (a long serial) written as a bare number, digit for digit. The
 * bigint is read from the holder: n8n-workflow, loaded beside the sandbox in tests, gives
 * BigInt a toJSON that would hand the replacer its digits as a string.
 */
export const writeJson = (value: unknown): string =>
	JSON.stringify(value, function (this: Record<string, unknown>, key: string, shown: unknown) {
		const held = this[key];
		return typeof held === 'bigint' ? rawJSON(String(held)) : shown;
	});

export function send(res: ServerResponse, reply: Reply): void {
	const isJson = reply.json !== undefined;
	const body = isJson ? writeJson(reply.json) : (reply.text ?? '');
	res.writeHead(reply.status, {
		'content-type': isJson ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
		'content-length': Buffer.byteLength(body),
		...reply.headers,
	});
	res.end(body);
}
