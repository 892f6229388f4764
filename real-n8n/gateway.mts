// A real gateway in front of a sandbox: nginx with limit_req, the leaky bucket with a burst
// that many APIs sit behind. One nginx per caller, on a free loopback port, with its own
// configuration, pid, logs and temporary folders in a throwaway folder (never root's
// configuration, never the distribution's service). Debian's nginx-light, installed by
// scripts/ensure-nginx.sh when missing.
//
//   const gateway = await startGateway({ upstream: sandbox.url, rate: 5, burst: 5 });
//   gateway.url;          // point the credential's base URL here
//   gateway.requests();   // what nginx answered, from its access log
//   await gateway.stop(); // SIGQUIT to its own master process
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortAvoidingDefaults } from './n8n.mts';
import { REPO_ROOT } from './paths.mts';
import { stopPid, waitForPort } from './services.mts';

export interface GatewayOptions {
	/** The service behind it, e.g. a sandbox's URL: http://127.0.0.1:<port>. */
	upstream: string;
	/** limit_req_zone's rate, in requests a second. */
	rate: number;
	/** limit_req's burst, with nodelay: a burst is passed at once, then one request every 1/rate s. */
	burst: number;
	/** limit_req_status: nginx refuses with 503 (and its HTML page, no Retry-After) unless told. */
	refusalStatus?: 429 | 503;
}

export interface GatewayRequest {
	method: string;
	path: string;
	status: number;
	/** Refused by limit_req itself: nginx's refusal status, and nothing passed upstream. */
	refused: boolean;
}

export interface Gateway {
	url: string;
	/** Every request nginx has answered so far, oldest first. */
	requests(): GatewayRequest[];
	stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const NGINX_DEFAULT_REFUSAL = 503;

let nginxPath: string | undefined;

/** nginx's path, once Debian's nginx-light is installed (scripts/ensure-nginx.sh). */
function ensureNginx(): string {
	if (nginxPath) return nginxPath;
	const r = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'ensure-nginx.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	if (r.status !== 0) throw new Error(`ensure-nginx.sh exited ${r.status}`);
	nginxPath = r.stdout.trim();
	return nginxPath;
}

function configuration(dir: string, port: number, opts: GatewayOptions): string {
	const upstream = new URL(opts.upstream);
	// Every path nginx would otherwise take from its build (/var/lib/nginx, /var/log/nginx)
	// is under dir, so it runs without root and beside any other nginx.
	return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
	log_format gateway '$status $upstream_status $request_method $request_uri';
	access_log ${dir}/access.log gateway;
	client_body_temp_path ${dir}/client_body;
	proxy_temp_path ${dir}/proxy;
	fastcgi_temp_path ${dir}/fastcgi;
	uwsgi_temp_path ${dir}/uwsgi;
	scgi_temp_path ${dir}/scgi;
	limit_req_zone $binary_remote_addr zone=api:1m rate=${opts.rate}r/s;
	server {
		listen ${HOST}:${port};
		location / {
			limit_req zone=api burst=${opts.burst} nodelay;
			${opts.refusalStatus ? `limit_req_status ${opts.refusalStatus};` : ''}
			proxy_pass http://${upstream.host};
		}
	}
}
`;
}

/** One access-log line: "<status> <upstream status or -> <method> <uri>". */
function parseLine(line: string, refusalStatus: number): GatewayRequest {
	const [status, upstreamStatus, method, path] = line.split(' ');
	return {
		method,
		path,
		status: Number(status),
		refused: Number(status) === refusalStatus && upstreamStatus === '-',
	};
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
	const nginx = ensureNginx();
	const dir = mkdtempSync(join(tmpdir(), 'voucher-nginx-'));
	const port = await freePortAvoidingDefaults();
	const conf = join(dir, 'nginx.conf');
	writeFileSync(conf, configuration(dir, port, opts));
	// -e: the error log from the start, before the configuration names it.
	const child = spawn(nginx, ['-p', `${dir}/`, '-c', conf, '-e', join(dir, 'error.log')], {
		stdio: 'ignore',
	});
	const pid = child.pid!;
	const quitOnExit = () => child.kill('SIGQUIT');
	process.once('exit', quitOnExit);
	const stop = async () => {
		process.removeListener('exit', quitOnExit);
		// SIGQUIT is nginx's graceful shutdown; only this master, which ends its own worker.
		if (child.exitCode === null && child.signalCode === null) await stopPid(pid, 'SIGQUIT');
		rmSync(dir, { recursive: true, force: true });
	};
	let listening = false;
	const errorLog = () => {
		try {
			return readFileSync(join(dir, 'error.log'), 'utf8');
		} catch {
			return '';
		}
	};
	const exited = new Promise<never>((_, reject) =>
		child.once('exit', (code) => {
			if (!listening) reject(new Error(`nginx exited ${code} before it listened:\n${errorLog()}`));
		}),
	);
	try {
		await Promise.race([waitForPort(port, 'nginx'), exited]);
		listening = true;
	} catch (e) {
		await stop();
		throw e;
	}
	const refusalStatus = opts.refusalStatus ?? NGINX_DEFAULT_REFUSAL;
	return {
		url: `http://${HOST}:${port}`,
		requests: () =>
			readFileSync(join(dir, 'access.log'), 'utf8')
				.split('\n')
				.filter(Boolean)
				.map((line) => parseLine(line, refusalStatus)),
		stop,
	};
}
