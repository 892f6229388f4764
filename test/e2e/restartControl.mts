// Test files run in worker processes, but n8n belongs to the global setup's
// process. This loopback endpoint lets a test ask the global setup to restart
// every n8n process (POST /restart), so "after a restart" is tested for real;
// POST /restart?kill kills them first (SIGKILL), as a crash would.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { StopSignal } from '../../real-n8n/n8n.mts';

export async function startRestartControl(
	restart: (signal?: StopSignal) => Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
	let running: Promise<void> | undefined;
	const server: Server = createServer((req, res) => {
		if (req.method !== 'POST' || !['/restart', '/restart?kill'].includes(req.url ?? '')) {
			res.writeHead(404).end();
			return;
		}
		const signal = req.url === '/restart?kill' ? 'SIGKILL' : undefined;
		running ??= restart(signal).finally(() => (running = undefined));
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
