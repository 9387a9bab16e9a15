/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Child processes that never outlive this one. Each runs in a process group of its own
 * (`detached`), so one `kill(-pid)` reaches it and all it spawned (n8n's task runners, which
 * n8n spawns as plain children; npm's scripts). A process 'exit' handler, and SIGINT/SIGTERM/
 * SIGHUP handlers when nobody else handles those, kill every group still there.
 */
import { type ChildProcess, spawn, type SpawnOptions } from 'child_process';
import * as fs from 'fs';
import * as readline from 'readline';
import { setTimeout as sleep } from 'timers/promises';
import * as vm from 'vm';

const groups = new Set<number>();

/**
 * The CPU priority (nice) of what a run does beside the n8n host's install, which the real-n8n suites wait for and which
 * runs at the default: jest (whose fast suites run beside it) below it, the gates below jest, and the hosts no suite waits
 * for yet below everything (test/sequencer.js, CONTRIBUTING.md "Where CI's time goes").
 */
export const NICE = { jest: 5, gates: 10, laterHosts: 19 } as const;

/** `cmd args` run at the lower priority `nice`, as a command and its arguments. */
export function niced(nice: number, cmd: string, args: string[]): [string, string[]] {
	return ['nice', ['-n', String(nice), cmd, ...args]];
}

/** The real `process`: inside jest, `process` is a per-file copy whose 'exit' and signal listeners never fire. */
export function realProcess(): NodeJS.Process {
	const main = vm.runInThisContext('typeof process === "object" ? process : undefined') as NodeJS.Process | undefined;
	return main && typeof main.on === 'function' && main.pid === process.pid ? main : process;
}

/** SIGKILL to every group started here that may still have a process (synchronous: safe in an 'exit' handler). */
export function killAll(): void {
	for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
	groups.clear();
}

const EXIT_WORK = Symbol.for('n8n-nodes-stacks-hooks.exitWork');

/**
 * What runs when the real process exits or is stopped by a signal. Kept on the process itself, with
 * one listener per event: jest gives every suite its own copy of this module but the same process,
 * and listeners added per suite would pass Node's limit of 10.
 */
function exitWork(): Set<() => void> {
	const proc = realProcess() as NodeJS.Process & { [EXIT_WORK]?: Set<() => void> };
	const existing = proc[EXIT_WORK];
	if (existing) return existing;
	const work = new Set<() => void>();
	proc[EXIT_WORK] = work;
	const runAll = () => work.forEach((run) => run());
	proc.once('exit', runAll);
	for (const [signal, number] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]] as const) {
		proc.on(signal, () => {
			// Someone else handles it (npm start stops n8n gracefully): leave it to them; 'exit' still kills leftovers.
			if (proc.listenerCount(signal) > 1) return;
			runAll();
			proc.exit(128 + number);
		});
	}
	return work;
}

/** Runs `cleanup` when this process exits (the real process, also under jest). */
export function atExit(cleanup: () => void): void {
	const work = exitWork();
	work.add(killAll);
	work.add(cleanup);
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch {
		/* no process left in it */
	}
}

/** The fields of `/proc/<pid>/stat` from the third (state) on, as Linux writes them; undefined once it has exited. */
function procStat(pid: number | string): string[] | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	} catch {
		return undefined; // it just exited
	}
}

/**
 * The group's processes that still run. Read from Linux /proc because `kill(-pgid, 0)` also
 * counts zombies, and in a container whose init reaps no orphans those never go away.
 */
export function groupMembers(pgid: number): number[] {
	return fs
		.readdirSync('/proc')
		.filter((entry) => /^\d+$/.test(entry))
		.filter((pid) => {
			const [state, , group] = procStat(pid) ?? [];
			return Number(group) === pgid && state !== 'Z' && state !== 'X';
		})
		.map(Number);
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** CPU time (ms) a process group has used so far: the leader with its reaped children, and every member still running. */
export function groupCpuMs(pgid: number | undefined): number {
	if (!pgid) return 0;
	let ticks = 0;
	for (const pid of new Set([pgid, ...groupMembers(pgid)])) {
		const f = procStat(pid)?.map(Number);
		// From the state (field 3) on: utime is field 14, stime 15, cutime 16, cstime 17.
		if (f) ticks += f[11] + f[12] + (pid === pgid ? f[13] + f[14] : 0);
	}
	return (ticks * 1000) / TICKS_PER_SECOND;
}

export const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** spawn() in a new, tracked process group; stdout and stderr are piped. What the child leaves behind goes 2 s after it exits. */
export function startProcess(cmd: string, args: string[], options: SpawnOptions): ChildProcess {
	exitWork().add(killAll);
	const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options, detached: true });
	const pgid = child.pid;
	if (pgid) {
		groups.add(pgid);
		child.once('exit', () =>
			setTimeout(() => {
				signalGroup(pgid, 'SIGKILL');
				groups.delete(pgid);
			}, 2000).unref(),
		);
	}
	return child;
}

/** Calls `log` with each line the child prints (stdout and stderr). */
export function eachLine(child: ChildProcess, log: (line: string) => void): void {
	for (const stream of [child.stdout, child.stderr]) if (stream) readline.createInterface({ input: stream }).on('line', log);
}

/**
 * Resolves once the child's stdout and stderr have ended (every line it wrote was read), or after
 * `timeoutMs`: 'exit' can come before the last lines, and a loaded machine reads them late.
 */
export async function outputEnded(child: ChildProcess, timeoutMs: number): Promise<void> {
	const ended = [child.stdout, child.stderr].map((stream) =>
		!stream || stream.readableEnded || stream.destroyed ? Promise.resolve() : new Promise<void>((resolve) => stream.once('close', () => resolve())),
	);
	await Promise.race([Promise.all(ended), sleep(timeoutMs, undefined, { ref: false })]);
}

/** SIGTERM, SIGKILL of the whole group after `graceMs`; then up to 3 s for what it spawned to end, and SIGKILL. */
export async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
	const pgid = child.pid;
	if (!pgid) return;
	const exited = hasExited(child) ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
	if (!hasExited(child)) {
		child.kill('SIGTERM');
		const inTime = await Promise.race([exited.then(() => true), sleep(graceMs, false, { ref: false })]);
		if (!inTime) signalGroup(pgid, 'SIGKILL');
		await exited;
	}
	for (let i = 0; i < 30 && groupMembers(pgid).length > 0; i++) await sleep(100);
	signalGroup(pgid, 'SIGKILL');
	groups.delete(pgid);
}

/**
 * stopProcess for a group this process did not start, known only by its number: SIGTERM, then SIGKILL once no member
 * is left or `graceMs` has passed.
 */
export async function stopGroup(pgid: number, graceMs: number): Promise<void> {
	signalGroup(pgid, 'SIGTERM');
	for (const deadline = Date.now() + graceMs; groupMembers(pgid).length > 0 && Date.now() < deadline; ) await sleep(200);
	signalGroup(pgid, 'SIGKILL');
}

export interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** Runs a command to its end in a tracked group (killed, with its children, after `timeoutMs`). */
export function run(
	cmd: string,
	args: string[],
	options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; log?: (line: string) => void; uid?: number; gid?: number },
): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		const child = startProcess(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, uid: options.uid, gid: options.gid });
		const result: RunResult = { code: null, signal: null, stdout: '', stderr: '' };
		child.stdout!.on('data', (chunk: Buffer) => (result.stdout += chunk.toString()));
		child.stderr!.on('data', (chunk: Buffer) => (result.stderr += chunk.toString()));
		if (options.log) eachLine(child, options.log);
		const timer = setTimeout(() => child.pid && signalGroup(child.pid, 'SIGKILL'), options.timeoutMs ?? 30 * 60_000);
		child.on('error', (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			resolve({ ...result, code, signal });
		});
	});
}

/** An error that says which command failed, how, its last 40 lines of output, and what to do. */
export function runError(what: string, result: RunResult, whatToDo: string): Error {
	const tail = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-40).join('\n');
	const how = result.signal ? `signal ${result.signal}` : `exit code ${result.code}`;
	return new Error(`${what} failed with ${how}.\n--- last lines ---\n${tail}\n--- end ---\n${whatToDo}`);
}
