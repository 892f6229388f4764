/**
 * Post-build tasks for what `npm pack` will publish, run by `npm run build` after
 * `n8n-node build`. That step compiles the package and copies every .png/.svg of the
 * repository into dist (docs screenshots included): pruneDist keeps only the package's
 * own folders; verifyDist makes sure each node and credential listed in package.json was
 * built with its icons and codex file, so a broken package fails here, not in a user's n8n.
 */
const fs = require('node:fs');
const path = require('node:path');
const { series } = require('gulp');

const pkg = require('./package.json');

const dist = path.join(__dirname, 'dist');
const PACKAGE_ENTRIES = ['nodes', 'credentials', 'package.json'];

function iconFilesOf(compiledFile) {
	const source = fs.readFileSync(compiledFile, 'utf8');
	return [...source.matchAll(/['"]file:([^'"]+)['"]/g)].map((match) =>
		path.join(path.dirname(compiledFile), match[1]),
	);
}

async function pruneDist() {
	for (const name of fs.readdirSync(dist)) {
		if (PACKAGE_ENTRIES.includes(name) || name.endsWith('.tsbuildinfo')) continue;
		fs.rmSync(path.join(dist, name), { recursive: true, force: true });
	}
}

async function verifyDist() {
	const problems = [];
	for (const entry of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
		const file = path.join(__dirname, entry);
		if (!fs.existsSync(file)) {
			problems.push(`${entry} is listed in package.json but was not built`);
			continue;
		}
		for (const icon of iconFilesOf(file)) {
			if (!fs.existsSync(icon))
				problems.push(`${path.relative(__dirname, icon)} (icon of ${entry}) is missing`);
		}
	}
	for (const node of pkg.n8n.nodes) {
		const codex = node.replace(/\.js$/, '.json');
		if (!fs.existsSync(path.join(__dirname, codex))) problems.push(`${codex} (codex) is missing`);
	}
	if (problems.length) throw new Error(`dist is not ready to publish:\n- ${problems.join('\n- ')}`);
}

exports.pruneDist = pruneDist;
exports.verifyDist = verifyDist;
exports.default = series(pruneDist, verifyDist);
