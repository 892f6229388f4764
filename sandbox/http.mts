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

export function send(res: ServerResponse, reply: Reply): void {
	const isJson = reply.json !== undefined;
	const body = isJson ? JSON.stringify(reply.json) : (reply.text ?? '');
	res.writeHead(reply.status, {
		'content-type': isJson ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
		'content-length': Buffer.byteLength(body),
		...reply.headers,
	});
	res.end(body);
}
