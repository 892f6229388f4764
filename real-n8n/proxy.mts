// The router in front of a queue-mode cluster, as the compose file's nginx
// service does it: requests whose path starts with one of WEBHOOK_PROCESS_PATHS
// (real-n8n/queueCluster.mts) go to the webhook processes in turn, everything else to
// the main process. A plain HTTP reverse proxy on a free loopback port.
import { createServer, request, type IncomingMessage } from 'node:http';
import { freePortAvoidingDefaults } from './n8n.mts';

export interface Router {
	url: string;
	/** Where the last requests went, newest last: 'main' or 'webhook-<n>'. */
	log: string[];
	close(): Promise<void>;
}

export async function startRouter(opts: {
	main: () => string;
	webhooks: () => string[];
	webhookPaths: readonly string[];
}): Promise<Router> {
	let turn = 0;
	const log: string[] = [];
	const pick = (req: IncomingMessage): [string, string] => {
		const path = req.url ?? '/';
		if (opts.webhookPaths.some((p) => path.startsWith(p))) {
			const all = opts.webhooks();
			const i = turn++ % all.length;
			return [`webhook-${i + 1}`, all[i]];
		}
		return ['main', opts.main()];
	};
	const server = createServer((req, res) => {
		const [name, base] = pick(req);
		log.push(name);
		if (log.length > 200) log.shift();
		const upstream = new URL(req.url ?? '/', base);
		const out = request(
			upstream,
			{
				method: req.method,
				headers: {
					...req.headers,
					host: upstream.host,
					'x-forwarded-for': req.socket.remoteAddress ?? '',
					'x-forwarded-proto': 'http',
				},
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		out.on('error', (e) => {
			if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`router: ${name} unreachable: ${e.message}`);
		});
		req.pipe(out);
	});
	const port = await freePortAvoidingDefaults();
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${port}`,
		log,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
