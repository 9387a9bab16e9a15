/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Process-level set-up n8n-core needs before its first node context is built.
 *
 * Every node context does `Container.get(InstanceSettings)`, whose constructor reads (and, the
 * first time, writes) `<N8N_USER_FOLDER or $HOME>/.n8n/config`. So that tests never touch the
 * user's real ~/.n8n, point N8N_USER_FOLDER at a temporary folder unless the caller chose one.
 * n8n's logger (and the error reporter, which logs through it) would print every node error
 * with its stack: N8N_LOG_LEVEL defaults to 'silent' here (set it, e.g. to 'debug', to see them).
 * (In jest, process.env is a per-test-file copy, so this does not leak into other files.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

let prepared = false;

export function prepareEngineEnvironment(): void {
	if (prepared) return;
	prepared = true;
	process.env.N8N_LOG_LEVEL ??= 'silent';
	if (process.env.N8N_USER_FOLDER === undefined) {
		const folder = mkdtempSync(path.join(tmpdir(), 'n8n-engine-harness-'));
		process.env.N8N_USER_FOLDER = folder;
		const cleanup = () => rmSync(folder, { recursive: true, force: true });
		if (typeof afterAll === 'function') afterAll(cleanup);
		else process.once('exit', cleanup);
	}
}
