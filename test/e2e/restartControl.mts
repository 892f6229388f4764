// Test files run in worker processes, but n8n belongs to the global setup's
// process. This loopback endpoint lets a test ask the global setup to restart
// every n8n process (POST /restart), so "after a restart" is tested for real.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startRestartControl(
	restart: () => Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
	let running: Promise<void> | undefined;
	const server: Server = createServer((req, res) => {
		if (req.method !== 'POST' || req.url !== '/restart') {
			res.writeHead(404).end();
			return;
		}
		running ??= restart().finally(() => (running = undefined));
		running.then(
			() => res.writeHead(204).end(),
			(e: unknown) => res.writeHead(500).end(String(e)),
		);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/restart`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
