/**
 * A stand-in for OpenAI's Chat Completions API, for n8n's OpenAI Chat Model with the
 * Responses API off: `GET /v1/models` and `POST /v1/chat/completions`, streamed (server-sent
 * events, as n8n 1.85's Tools Agent asks) or not (n8n 2.41). It
 * answers with scripted replies (a tool call, or the final text) and keeps every request,
 * so a test can read exactly what n8n sent the model.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_MODEL_ID = 'fake-model';

type ScriptedReply = { callTool: Record<string, unknown> } | { answer: string };

interface ChatMessage {
	role: string;
	content: unknown;
	tool_call_id?: string;
}

export interface ChatRequest {
	model: string;
	stream?: boolean;
	stream_options?: { include_usage?: boolean };
	messages: ChatMessage[];
	tools?: Array<{ type: string; function: { name: string; parameters: unknown } }>;
}

export interface FakeOpenAi {
	/** The base URL for the openAiApi credential's `url`. */
	url: string;
	/** Every chat request received, in order. */
	requests: ChatRequest[];
	/** Replies for the next requests, in order; past their end the model answers "Done.". */
	script(replies: ScriptedReply[]): void;
	close(): Promise<void>;
}

function completion(request: ChatRequest, reply: ScriptedReply, index: number) {
	const message =
		'answer' in reply
			? { role: 'assistant', content: reply.answer }
			: {
					role: 'assistant',
					content: null,
					tool_calls: [
						{
							id: `call_${index}`,
							type: 'function',
							// The agent offers one tool: the node under test.
							function: {
								name: request.tools?.[0]?.function.name ?? 'no_tool_offered',
								arguments: JSON.stringify(reply.callTool),
							},
						},
					],
				};
	return {
		id: `chatcmpl-${index}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model,
		choices: [
			{
				index: 0,
				message,
				finish_reason: 'answer' in reply ? 'stop' : 'tool_calls',
				logprobs: null,
			},
		],
		usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
	};
}

/** The same completion as `chat.completion.chunk` events: the whole message in one delta. */
function streamed(request: ChatRequest, body: ReturnType<typeof completion>): string {
	const [{ message, finish_reason }] = body.choices;
	const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
		`data: ${JSON.stringify({ id: body.id, object: 'chat.completion.chunk', created: body.created, model: body.model, choices, ...extra })}\n\n`;
	const delta =
		'tool_calls' in message
			? {
					role: 'assistant',
					content: null,
					tool_calls: (message.tool_calls ?? []).map((call, index) => ({ index, ...call })),
				}
			: { role: 'assistant', content: message.content };
	return (
		chunk([{ index: 0, delta, finish_reason: null, logprobs: null }]) +
		chunk([{ index: 0, delta: {}, finish_reason, logprobs: null }]) +
		(request.stream_options?.include_usage ? chunk([], { usage: body.usage }) : '') +
		'data: [DONE]\n\n'
	);
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
	const requests: ChatRequest[] = [];
	let replies: ScriptedReply[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const send = (status: number, body: unknown) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(body));
			};
			if (req.method === 'GET' && req.url === '/v1/models') {
				send(200, {
					object: 'list',
					data: [{ id: FAKE_MODEL_ID, object: 'model', created: 0, owned_by: 'test' }],
				});
				return;
			}
			if (req.method === 'POST' && req.url === '/v1/chat/completions') {
				const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
				requests.push(request);
				const reply = replies.shift() ?? { answer: 'Done.' };
				const body = completion(request, reply, requests.length);
				if (request.stream) {
					res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
					res.end(streamed(request, body));
					return;
				}
				send(200, body);
				return;
			}
			send(404, { error: { message: `no route ${req.method} ${req.url}` } });
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		script(next) {
			replies = [...next];
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

/** The content of the tool messages of a request: what the node's runs told the model. */
export function toolResults(request: ChatRequest): string[] {
	return request.messages
		.filter((message) => message.role === 'tool')
		.map((message) =>
			typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
		);
}
