/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** Running a workflow once with n8n's CLI, beside a running instance. */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import type { WorkflowJson } from './api';
import { inheritedEnv, type N8nInstance } from './instance';
import { freePort } from '../ports';
import { run, runError } from './process';

export interface RunOnceResult {
	/** null when it was ended by a signal (see `signal`). */
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	/** The `execute` command's stdout (log lines, then the JSON). */
	stdout: string;
	stderr: string;
	/** The JSON `n8n execute --rawOutput` printed after its log lines, when there was one. */
	json?: unknown;
	/** The id under which the workflow was imported. */
	workflowId: string;
}

/** The JSON document among the log lines of `n8n execute --rawOutput`: the longest span of whole lines that parses. */
export function parseTrailingJson(stdout: string): unknown {
	const lines = stdout.split(/\r?\n/);
	for (let start = 0; start < lines.length; start++) {
		if (!/^\s*[[{]/.test(lines[start])) continue;
		for (let end = lines.length; end > start; end--) {
			try {
				return JSON.parse(lines.slice(start, end).join('\n'));
			} catch {
				/* a shorter span */
			}
		}
	}
	return undefined;
}

/**
 * Runs a workflow once as a second n8n process on the instance's user folder and environment
 * (with its own broker port): `n8n import:workflow --input=<file>`, then `n8n execute --id=<id>
 * --rawOutput`. The workflow keeps its `id` (one is made when missing). Exit code 1 when a node
 * threw; the JSON then holds the error.
 */
export async function runWorkflowOnce(
	instance: N8nInstance,
	workflowJson: WorkflowJson,
	options: { timeoutMs?: number; log?: (line: string) => void; env?: Record<string, string> } = {},
): Promise<RunOnceResult> {
	const { host } = instance;
	const workflowId = workflowJson.id || randomBytes(8).toString('hex');
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-run-once-'));
	const file = path.join(dir, 'workflow.json');
	fs.writeFileSync(file, JSON.stringify({ settings: { executionOrder: 'v1' }, ...workflowJson, id: workflowId, active: false }));
	const env = {
		...inheritedEnv(host),
		...instance.env,
		// With the default 'vm' engine (isolated-vm), `n8n execute` 2.41 on Node 24 dies of SIGSEGV at
		// exit in about one run of four, after printing its result; 'legacy' exits cleanly.
		N8N_EXPRESSION_ENGINE: instance.env.N8N_EXPRESSION_ENGINE ?? 'legacy',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		...options.env,
	};
	const runOptions = { cwd: instance.userFolder, env, timeoutMs: options.timeoutMs ?? 120_000, log: options.log };
	try {
		const imported = await run(host.node, [host.n8nBin, 'import:workflow', `--input=${file}`], runOptions);
		if (imported.code !== 0) throw runError('`n8n import:workflow`', imported, 'See its output above.');
		const executed = await run(host.node, [host.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'], runOptions);
		const { code: exitCode, signal, stdout, stderr } = executed;
		return { exitCode, signal, stdout, stderr, json: parseTrailingJson(stdout), workflowId };
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}
