// Runs once before the installer suite: installs the two n8n versions it tests (the
// oldest and the newest of real-n8n/versions.mts) where the per-user cache lacks them,
// while our package is built and packed, the tarball the suite publishes.
import type { TestProject } from 'vitest/node';

import { ensureInstalledConcurrently } from '../../real-n8n/install.mts';
import { buildAndPack, removePackedTarball } from '../../real-n8n/package-under-test.mts';
import { DEFAULT_N8N_VERSION, N8N_VERSIONS } from '../../real-n8n/versions.mts';

declare module 'vitest' {
	export interface ProvidedContext {
		/** Ids of real-n8n/versions.mts's rows, oldest first. */
		installerVersions: string[];
		/** Our package as `npm pack` made it. */
		packedTarball: string;
	}
}

export default async function setup(project: TestProject) {
	const versions = [N8N_VERSIONS[0].id, DEFAULT_N8N_VERSION];
	const installs = ensureInstalledConcurrently(versions);
	const tarball = buildAndPack();
	try {
		await installs;
	} catch (e) {
		removePackedTarball(tarball);
		throw e;
	}
	project.provide('installerVersions', versions);
	project.provide('packedTarball', tarball);
	return () => removePackedTarball(tarball);
}
