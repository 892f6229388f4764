/**
 * Boots the parts of n8n-core that a workflow execution reaches for, the way
 * n8n's own `start` command does, but in-process and with throwaway state.
 *
 * Why this file exists instead of `import { Container } from '@n8n/di'`:
 * n8n-core 2.41.1 ships its own nested copies of `@n8n/di`, `@n8n/config` and
 * `@n8n/backend-network` (newer than the hoisted ones in our node_modules).
 * The DI container is a module-level singleton keyed by class identity, so we
 * must talk to *n8n-core's* copies, resolved from n8n-core's own folder.
 */
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as n8nWorkflow from 'n8n-workflow';

// InstanceSettings (read lazily through DI) writes `<folder>/.n8n/config` with a
// generated encryption key. Never let a test touch the developer's ~/.n8n.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-test-user-'));
// n8n logs node errors at `error` level; in tests the assertions say enough.
process.env.N8N_LOG_LEVEL ??= 'silent';

const localRequire = createRequire(import.meta.url);
const coreRequire = createRequire(localRequire.resolve('n8n-core'));

/** This package's name; n8n registers our nodes as '<package>.<node name>'. */
export const PACKAGE_NAME = (localRequire('../package.json') as { name: string }).name;

/** What n8n-core itself gets from `require('n8n-workflow')` (the CJS build). */
const cjsWorkflow = coreRequire('n8n-workflow') as typeof n8nWorkflow;

/**
 * n8n-workflow is a dual package (dist/esm + dist/cjs). In n8n, a community
 * node's `require('n8n-workflow')` gets the CJS build, the same copy n8n-core
 * uses. Under vitest, `import 'n8n-workflow'` resolves to the ESM build unless
 * aliased, giving two copies of every class: `error instanceof NodeApiError`
 * in our node code would be false for errors n8n-core throws. Tests would then
 * exercise a code path that never runs in n8n, so refuse to run at all.
 */
function assertSingleN8nWorkflowCopy(): void {
	if (n8nWorkflow.Workflow !== cjsWorkflow.Workflow) {
		throw new Error(
			'Two copies of n8n-workflow are loaded (ESM for test/node code, CJS for n8n-core), ' +
				'so instanceof checks on n8n errors differ from n8n. Use a vitest config that ' +
				'aliases n8n-workflow to its CJS build: see n8n-core-runner/singleN8nWorkflow.mts.',
		);
	}
}

// Typed loosely on purpose: these are n8n-core's private dependency versions.
const { Container } = coreRequire('@n8n/di') as {
	Container: { get<T>(type: new (...args: any[]) => T): T };
};
const { GlobalConfig } = coreRequire('@n8n/config') as {
	GlobalConfig: new () => {
		expressionEngine: {
			engine: 'legacy' | 'vm' | 'quickjs';
			poolSize: number;
			maxCodeCacheSize: number;
			bridgeTimeout: number;
			bridgeMemoryLimit: number;
		};
	};
};
/* eslint-enable @typescript-eslint/no-explicit-any */

let engineReady: Promise<void> | undefined;

/**
 * n8n 2.x evaluates `={{ }}` expressions in an isolated-vm sandbox by default
 * (`N8N_EXPRESSION_ENGINE=vm`), started once by the CLI at boot. Start it the
 * same way, from the same config, so expressions behave as they do in n8n.
 */
export async function ensureN8nRuntime(): Promise<void> {
	assertSingleN8nWorkflowCopy();
	engineReady ??= (async () => {
		const { engine, poolSize, maxCodeCacheSize, bridgeTimeout, bridgeMemoryLimit } =
			Container.get(GlobalConfig).expressionEngine;
		await cjsWorkflow.Expression.initExpressionEngine({
			engine,
			poolSize,
			maxCodeCacheSize,
			bridgeTimeout,
			bridgeMemoryLimit,
		});
	})();
	await engineReady;
}

/** Stops the expression isolate pool; call from `afterAll` so workers exit promptly. */
export async function disposeN8nRuntime(): Promise<void> {
	if (!engineReady) return;
	await engineReady.catch(() => undefined);
	engineReady = undefined;
	await cjsWorkflow.Expression.disposeExpressionEngine();
}

/** Which expression engine actually ran ('vm' in n8n 2.41 unless configured otherwise). */
export function activeExpressionEngine(): string {
	return cjsWorkflow.Expression.getActiveImplementation();
}
