/**
 * Post-build steps for what `npm pack` will publish. `n8n-node build` compiles and copies
 * every .png/.svg of the repository into dist (docs screenshots included); pruneDist keeps
 * only the package's own folders, and verifyDist makes sure the result is what n8n will
 * look for, so a broken package fails here instead of in a user's n8n. The tasks are plain async functions, so gulp can run
 * them (`gulp verifyDist`) and so can Node alone (`node gulpfile.js verifyDist`).
 */
const fs = require('node:fs');
const path = require('node:path');

const root = __dirname;
const pkg = require('./package.json');

function iconFilesOf(compiledFile) {
	const source = fs.readFileSync(compiledFile, 'utf8');
	return [...source.matchAll(/['"]file:([^'"]+)['"]/g)].map((match) =>
		path.join(path.dirname(compiledFile), match[1]),
	);
}

const PACKAGE_ENTRIES = ['nodes', 'credentials', 'package.json'];

async function pruneDist() {
	const dist = path.join(root, 'dist');
	for (const name of fs.readdirSync(dist)) {
		if (PACKAGE_ENTRIES.includes(name) || name.endsWith('.tsbuildinfo')) continue;
		fs.rmSync(path.join(dist, name), { recursive: true, force: true });
	}
}

async function verifyDist() {
	const problems = [];
	const entries = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
	for (const entry of entries) {
		const file = path.join(root, entry);
		if (!fs.existsSync(file)) {
			problems.push(`${entry} is listed in package.json but was not built`);
			continue;
		}
		for (const icon of iconFilesOf(file)) {
			if (!fs.existsSync(icon))
				problems.push(`${path.relative(root, icon)} (icon of ${entry}) is missing`);
		}
	}
	for (const node of pkg.n8n.nodes) {
		const codex = path.join(root, node.replace(/\.js$/, '.json'));
		if (!fs.existsSync(codex)) problems.push(`${path.relative(root, codex)} (codex) is missing`);
	}
	const topLevel = fs.readdirSync(path.join(root, 'dist'));
	const unexpected = topLevel.filter(
		(name) => !['nodes', 'credentials', 'package.json', 'tsconfig.tsbuildinfo'].includes(name),
	);
	if (unexpected.length)
		problems.push(`dist holds files that are not part of the package: ${unexpected.join(', ')}`);
	if (problems.length) throw new Error(`dist is not ready to publish:\n- ${problems.join('\n- ')}`);
	console.log(`dist verified: ${entries.length} entries, icons and codex files present`);
}

async function afterBuild() {
	await pruneDist();
	await verifyDist();
}

module.exports = { pruneDist, verifyDist, default: afterBuild };

if (require.main === module) {
	const task = module.exports[process.argv[2] ?? 'default'];
	if (!task) {
		console.error(
			`Unknown task ${process.argv[2]}. Tasks: ${Object.keys(module.exports).join(', ')}`,
		);
		process.exit(2);
	}
	task().catch((error) => {
		console.error(error.message);
		process.exit(1);
	});
}
