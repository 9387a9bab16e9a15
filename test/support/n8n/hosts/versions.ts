/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The n8n versions the package is tested on (README "Compatibility"), one place for them. Each
 * has its own host folder `hosts/n8n-<version>/`: a package.json pinning n8n and the Node that
 * runs it, with the registry overrides that version needs (explained in the folder's README.md),
 * and a lock file.
 *
 * `npm test` runs every end-to-end suite on the default version and the compatibility smoke
 * suite (test/suites/e2e/compat.e2e.test.ts) on the newest of the other line (smokeVersions());
 * `npm run test:matrix` runs every end-to-end suite on each. STACKS_HOOKS_N8N=<version> picks the
 * version for any run.
 */

export interface N8nVersion {
	/** n8n's version, exactly as the host folder pins it. */
	version: string;
	/** Why it is in the matrix. */
	role: string;
	/** Only `npm run test:matrix` runs it, not `npm test`'s smoke test (the reason beside it). */
	matrixOnly?: boolean;
}

export const N8N_VERSIONS: readonly N8nVersion[] = [
	{ version: '2.41.3', role: 'newest 2.x' },
	{ version: '1.123.81', role: 'newest 1.x' },
	// Matrix only: its install (2.6 GB and another Node, 3 to 5 minutes) ran beside every real-n8n suite of `npm test`
	// for a smoke test of 25 s. Every `npm test` loads the built nodes against its n8n-workflow (the oldest-n8n gate,
	// test/suites/gates/oldestN8n.test.ts), and the matrix runs every end-to-end suite on it.
	{ version: '1.85.4', role: 'oldest supported', matrixOnly: true },
];

/** n8n's release line of a version: 1 or 2 (the harness speaks to each in its own way). */
export function n8nMajor(version: string): number {
	return Number(version.split('.')[0]);
}

/** The versions `npm test`'s compatibility smoke test runs on: the others but the selected one and those only the matrix runs. */
export function smokeVersions(): N8nVersion[] {
	return N8N_VERSIONS.filter((entry) => entry.version !== selectedN8n() && !entry.matrixOnly);
}

/** The version every suite runs on unless told otherwise. */
export const DEFAULT_N8N = N8N_VERSIONS[0].version;

/** The version this run uses: STACKS_HOOKS_N8N when set (one of N8N_VERSIONS), else DEFAULT_N8N. */
export function selectedN8n(): string {
	const wanted = process.env.STACKS_HOOKS_N8N?.trim();
	if (!wanted) return DEFAULT_N8N;
	if (!N8N_VERSIONS.some((entry) => entry.version === wanted)) {
		throw new Error(`STACKS_HOOKS_N8N=${wanted} is not a tested n8n version; use one of ${N8N_VERSIONS.map((entry) => entry.version).join(', ')}.`);
	}
	return wanted;
}
