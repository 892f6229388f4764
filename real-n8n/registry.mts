// A stand-in for the npm registry, on loopback, for n8n's editor installer (Settings →
// Community Nodes) to install our package from, offline:
//
//   const registry = await startRegistry();
//   await publish(registry.url, tarball);                          // the real `npm publish`
//   await publish(registry.url, await withVersion(tarball, '0.2.1'));
//   ...
//   await registry.close();
//
// It serves what npm's `view`, `pack`, `install`, `outdated` and `publish` ask for, and
// nothing else: a package document (GET /<name>), one version's manifest (GET
// /<name>/<version>), a tarball (GET /<name>/-/<file>.tgz) and a publish (PUT /<name>). Any
// token is accepted. Everything else answers 404, which npm takes as "no such thing" (its
// audit, for one, then just warns).
//
// Why not verdaccio: it installs here only with an override of a dist-tag the registry
// lacks, brings a dependency tree that every fresh CI machine would install again, and
// the registry below is all npm needs for one package.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Manifest {
	name: string;
	version: string;
	dist: { tarball: string; [k: string]: unknown };
	[k: string]: unknown;
}

interface PackageDocument {
	name: string;
	'dist-tags': Record<string, string>;
	versions: Record<string, Manifest>;
	time: Record<string, string>;
}

/** What npm sends on `npm publish`. */
interface PublishBody {
	name: string;
	'dist-tags': Record<string, string>;
	versions: Record<string, Manifest>;
	_attachments: Record<string, { data: string }>;
}

interface RegistryRequest {
	method: string;
	path: string;
	status: number;
}

export interface Registry {
	url: string;
	/** Every request answered, in order. */
	readonly requests: RegistryRequest[];
	close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

export async function startRegistry(): Promise<Registry> {
	const packages = new Map<string, PackageDocument>();
	const tarballs = new Map<string, Buffer>();
	const requests: RegistryRequest[] = [];
	let url = '';

	const server = createServer(async (req, res) => {
		const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
		const answer = (status: number, body: unknown, type = 'application/json') => {
			requests.push({ method: req.method ?? '', path, status });
			// no-store: a package document names this run's port; a later run must not reuse it.
			res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
			res.end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
		};
		const tarball = /^\/(.+)\/-\/([^/]+\.tgz)$/.exec(path);
		if (req.method === 'GET' && tarball) {
			const bytes = tarballs.get(`${tarball[1]}/${tarball[2]}`);
			return bytes
				? answer(200, bytes, 'application/octet-stream')
				: answer(404, { error: 'not found' });
		}
		if (req.method === 'PUT') {
			let body: PublishBody;
			try {
				body = JSON.parse((await readBody(req)).toString('utf8')) as PublishBody;
			} catch {
				return answer(400, { error: 'not a JSON publish' });
			}
			if (!body?.name || !body.versions || !body._attachments)
				return answer(400, { error: 'a publish names the package, its versions and tarballs' });
			const doc = packages.get(body.name) ?? {
				name: body.name,
				'dist-tags': {},
				versions: {},
				time: { created: new Date().toISOString() },
			};
			for (const [version, manifest] of Object.entries(body.versions)) {
				if (doc.versions[version])
					return answer(403, { error: `${body.name}@${version} is already published` });
				const file = manifest.dist.tarball.split('/').pop()!;
				const attachment = body._attachments[file];
				if (!attachment) return answer(400, { error: `no attachment ${file}` });
				tarballs.set(`${body.name}/${file}`, Buffer.from(attachment.data, 'base64'));
				doc.versions[version] = {
					...manifest,
					dist: { ...manifest.dist, tarball: `${url}/${body.name}/-/${file}` },
				};
				doc.time[version] = doc.time.modified = new Date().toISOString();
			}
			Object.assign(doc['dist-tags'], body['dist-tags']);
			packages.set(body.name, doc);
			return answer(201, { ok: true });
		}
		if (req.method === 'GET') {
			// A scoped name has a slash of its own: try the whole path first.
			const name = path.slice(1);
			if (packages.has(name)) return answer(200, packages.get(name));
			const slash = name.lastIndexOf('/');
			const version = packages.get(name.slice(0, slash))?.versions[name.slice(slash + 1)];
			if (version) return answer(200, version);
		}
		return answer(404, { error: 'not found' });
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		requests,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/**
 * Runs npm without blocking this process's event loop, which may be serving the registry
 * npm talks to.
 */
function npm(args: string[], cwd: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (out += d));
		child.on('error', reject);
		child.on('exit', (code) =>
			code === 0 ? resolve(out) : reject(new Error(`npm ${args.join(' ')} exited ${code}\n${out}`)),
		);
	});
}

/** Publishes a tarball or a package folder with the real `npm publish`. */
export async function publish(registryUrl: string, tarballOrFolder: string): Promise<void> {
	const host = registryUrl.replace(/^https?:/, '');
	await npm(
		[
			'publish',
			tarballOrFolder,
			`--registry=${registryUrl}`,
			`--${host}/:_authToken=stand-in`,
			'--ignore-scripts',
			'--loglevel=warn',
		],
		tmpdir(),
	);
}

/**
 * The tarball's package under another version, unpacked into a new temporary folder (for
 * `publish`, then `rmSync(dirname(folder))`): a release that differs only in its number.
 */
export async function withVersion(tarball: string, version: string): Promise<string> {
	const dir = mkdtempSync(join(tmpdir(), 'voucher-release-'));
	await new Promise<void>((resolve, reject) => {
		const tar = spawn('tar', ['-xzf', tarball, '-C', dir], { stdio: 'ignore' });
		tar.on('error', reject);
		tar.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited ${code}`))));
	});
	const folder = join(dir, 'package');
	const manifestPath = join(folder, 'package.json');
	const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string };
	writeFileSync(manifestPath, JSON.stringify({ ...manifest, version }, null, 2));
	return folder;
}

/** Removes a folder made by withVersion. */
export function removeRelease(folder: string): void {
	rmSync(join(folder, '..'), { recursive: true, force: true });
}
