/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * `npm test`'s background installs (started by run.ts, in a process of its own, from the run's first
 * seconds): what every real-n8n suite needs (test/support/installs.ts), while lint, the build and the
 * fast suites run. It prints its progress and exits 0 either way: a suite that still lacks something
 * installs it itself and reports the error.
 */
import * as fs from 'fs';
import * as path from 'path';

import { installForSuites } from '../../support/installs';
import { REPO_DIR } from '../../support/paths';

const E2E_DIR = path.join(REPO_DIR, 'test', 'suites', 'e2e');

async function main(): Promise<void> {
	const suites = fs
		.readdirSync(E2E_DIR)
		.filter((file) => file.endsWith('.e2e.test.ts'))
		.map((file) => path.join(E2E_DIR, file));
	const failures = await installForSuites(suites, (what, msg) => console.log(`[installs: ${what}] ${msg}`));
	console.log(`[installs] ${failures.length ? `done, ${failures.length} failed (the suites will try again)` : 'done'}`);
}

void main().finally(() => process.exit(0));
