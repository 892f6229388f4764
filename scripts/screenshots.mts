// Screenshots of the editor for the docs, taken from a running demo
// (`npm run dev` in another terminal):
//
//   npm run screenshots [-- --url http://127.0.0.1:5678]
//
// Writes docs/editor-campaign-workflow.png, docs/editor-node-panel.png, docs/editor-actions.png and
// docs/editor-trigger-webhook-urls.png. Uses Debian's chromium (installed by
// scripts/ensure-chromium.sh when missing); never downloads a browser.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { tourEditor } from '../real-n8n/editor.mts';
import { REPO_ROOT } from '../real-n8n/paths.mts';
import { N8nRest, OWNER } from '../real-n8n/rest.mts';

const { values: args } = parseArgs({
	options: { url: { type: 'string', default: 'http://127.0.0.1:5678' } },
});

execFileSync('bash', [join(REPO_ROOT, 'scripts', 'ensure-chromium.sh')], { stdio: 'inherit' });
const rest = new N8nRest(args.url!);
await rest.login(OWNER);
const workflows: Array<{ id: string; name: string }> = await rest.request('GET', '/rest/workflows');
const find = (name: string) => {
	const wf = workflows.find((w) => w.name === name);
	if (!wf) throw new Error(`no workflow "${name}" in ${args.url}: is \`npm run dev\` running?`);
	return wf.id;
};
const findings = await tourEditor({
	url: args.url!,
	workflowId: find('Voucher campaign from a CSV file'),
	triggerWorkflowId: find('React to finished voucher orders'),
	outDir: join(REPO_ROOT, 'docs'),
	shots: {
		workflow: 'editor-campaign-workflow.png',
		nodePanel: 'editor-node-panel.png',
		actions: 'editor-actions.png',
		webhookUrls: 'editor-trigger-webhook-urls.png',
	},
});
process.stdout.write(
	`${JSON.stringify({ actions: findings.actions, productionUrl: findings.productionUrl, files: findings.files }, null, 2)}\n`,
);
