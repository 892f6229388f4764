/**
 * Post-build checks of what `npm pack` will publish. `n8n-node build` compiles and copies
 * icons; this makes sure the result is what n8n will look for, so a broken package fails
 * here instead of in a user's n8n. The tasks are plain async functions, so gulp can run
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

module.exports = { verifyDist, default: verifyDist };

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
