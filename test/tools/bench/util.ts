/** Statistics, formatting and child processes shared by the benchmark's parts. */
import { type ChildProcess, spawn } from 'child_process';

export function median(values: number[]): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100): the smallest value with at least p % of the values at or below it. */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
	return sorted[Math.min(sorted.length, rank) - 1];
}

/** Milliseconds since an arbitrary origin, with sub-microsecond resolution. */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** A duration given in ms, in the unit that reads best. */
export function fmtMs(ms: number): string {
	if (!Number.isFinite(ms)) return String(ms);
	if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 1)} µs`;
	if (ms < 10) return `${ms.toFixed(2)} ms`;
	if (ms < 1000) return `${ms.toFixed(1)} ms`;
	return `${(ms / 1000).toFixed(2)} s`;
}

export function fmtBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

export function fmtRatio(ratio: number): string {
	if (!Number.isFinite(ratio)) return '–';
	return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

/* -------------------------------------------------------------------------------------------- */
/* Child processes: every one started here is killed when the benchmark ends, however it ends.   */
/* -------------------------------------------------------------------------------------------- */

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

export function killChildren(): void {
	for (const child of children) {
		if (child.exitCode === null && child.signalCode === null) {
			try {
				child.kill('SIGKILL');
			} catch {
				/* already gone */
			}
		}
	}
	children.clear();
}

function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.on('exit', killChildren);
}

/** The environment without npm's lifecycle variables (from `npm run bench`), which would steer nested npm commands. */
export function envWithoutNpm(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^npm_/i.test(key)) env[key] = value;
	}
	return env;
}

export interface ChildResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`), collecting its output. */
export function runChild(
	command: string,
	args: string[],
	options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ChildResult> {
	installExitHook();
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		children.add(child);
		let stdout = '';
		let stderr = '';
		child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 5 * 60_000);
		child.on('error', (error) => {
			clearTimeout(timer);
			children.delete(child);
			reject(error);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			children.delete(child);
			resolve({ code, stdout, stderr });
		});
	});
}

/** The last line of a child's stdout that parses as JSON (children print their result last). */
export function lastJson<T>(result: ChildResult, what: string): T {
	const lines = result.stdout.trim().split('\n').reverse();
	for (const line of lines) {
		try {
			return JSON.parse(line) as T;
		} catch {
			/* a log line */
		}
	}
	throw new Error(
		`${what} failed (exit ${result.code}).\n--- stdout ---\n${result.stdout.slice(-3000)}\n--- stderr ---\n${result.stderr.slice(-3000)}`,
	);
}

/* -------------------------------------------------------------------------------------------- */
/* The result table                                                                             */
/* -------------------------------------------------------------------------------------------- */

export type Verdict = 'PASS' | 'MISS' | 'FAIL' | 'info';

export interface Row {
	id: string;
	what: string;
	/** The figure measured, formatted. */
	figure: string;
	/** Its reference, measured in the same run, formatted. */
	reference: string;
	/** figure / reference; NaN when the row has no ratio. */
	ratio: number;
	target: string;
	verdict: Verdict;
	/** Raw numbers and how they were obtained. */
	raw: string;
}

export function verdict(pass: boolean): Verdict {
	return pass ? 'PASS' : 'MISS';
}
