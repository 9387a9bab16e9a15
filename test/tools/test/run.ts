/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * `npm test`: n8n's lint, `npm run verify` (the build and the scanner's checks) and the type check,
 * side by side, then jest over every suite unless one of them failed. The three are independent and
 * each mostly one core's work: one after the other they took two minutes before jest could start,
 * side by side about one. Each one's output is printed whole when it ends, not interleaved.
 * Two things besides:
 *
 * - From its first seconds it installs, in a process of its own (installs.ts), what the real-n8n
 *   suites need: an n8n host takes minutes on a fresh machine, and started this early it is ready
 *   when the first real-n8n suite starts rather than minutes after. Not when jest is given
 *   arguments (`npm test -- test/suites/engine`): jest's head start installs what those suites need.
 * - It ends with the table of where the time went (test/support/timings.ts): each step, each
 *   install step, each jest suite.
 *
 * Arguments are passed to jest.
 */
import { type ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { eachLine, NICE, niced, startProcess, stopProcess } from '../../support/n8n/process';
import { REPO_DIR } from '../../support/paths';
import { readTimings, recordTiming, TIMINGS_FILE, timingTable } from '../../support/timings';

const JEST_RESULTS = path.join(REPO_DIR, '.build', 'jest-results.json');

interface JestResults {
	testResults: Array<{ name: string; startTime: number; endTime: number }>;
}

/**
 * Runs one step; resolves to its exit code. Its output comes as it is written, or with `buffered`, whole once it
 * ends (steps that run side by side).
 */
function step(name: string, cmd: string, args: string[], buffered = false): Promise<number> {
	const started = Date.now();
	return new Promise((resolve) => {
		const child = spawn(cmd, args, { cwd: REPO_DIR, stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
		const output: Buffer[] = [];
		child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
		child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
		child.on('error', (error) => {
			console.error(`npm test: ${name} could not start: ${error.message}`);
			resolve(1);
		});
		child.on('close', (code, signal) => {
			recordTiming('step', name, started);
			if (buffered) process.stdout.write(`\n--- ${name} ---\n${Buffer.concat(output).toString()}`);
			resolve(code ?? (signal ? 1 : 0));
		});
	});
}

function startInstalls(): ChildProcess {
	const child = startProcess(process.execPath, [path.join(__dirname, 'installs.js')], { cwd: REPO_DIR, env: process.env });
	eachLine(child, (line) => console.log(line));
	return child;
}

function recordSuites(): void {
	let results: JestResults;
	try {
		results = JSON.parse(fs.readFileSync(JEST_RESULTS, 'utf8')) as JestResults;
	} catch {
		return; // jest did not get as far as writing them
	}
	for (const suite of results.testResults) recordTiming('suite', path.relative(REPO_DIR, suite.name), suite.startTime, suite.endTime);
}

async function main(): Promise<number> {
	const jestArgs = process.argv.slice(2);
	// .ci/run keeps what it recorded before (its own npm ci); a run by hand starts afresh.
	if (process.env.STACKS_HOOKS_KEEP_TIMINGS !== '1') fs.rmSync(TIMINGS_FILE, { force: true });
	fs.rmSync(JEST_RESULTS, { force: true });
	const installs = jestArgs.length === 0 ? startInstalls() : undefined;
	let code = 0;
	try {
		const gates = [['n8n lint', 'lint'], ['verify (build, scanner checks)', 'verify'], ['type check', 'typecheck']];
		// At a lower CPU priority than the installs: the n8n host's is what the real-n8n suites wait for, and these finish long before it.
		const codes = await Promise.all(gates.map(([name, script]) => step(name, ...niced(NICE.gates, 'npm', ['run', script]), true)));
		code = codes.find((gate) => gate !== 0) ?? 0;
		if (code !== 0) return code;
		// Below the install: the fast suites run beside the n8n host's install (test/sequencer.js), which the real-n8n suites wait for.
		const jest = [require.resolve('jest/bin/jest'), '-c', 'test/jest.config.js', '--json', `--outputFile=${JEST_RESULTS}`, ...jestArgs];
		code = await step('jest', ...niced(NICE.jest, process.execPath, jest));
		recordSuites();
		return code;
	} finally {
		// Whatever is still installing is not needed any more (a step failed, or the suites that need it did not run).
		if (installs) await stopProcess(installs, 5000);
		console.log(`\nWhere the time went (${path.relative(REPO_DIR, TIMINGS_FILE)}):\n\n${timingTable(readTimings())}\n`);
	}
}

void main().then((code) => process.exit(code));
