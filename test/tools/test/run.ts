/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * `npm test`: n8n's lint, `npm run verify` (the build and the scanner's checks), the type check,
 * then jest over every suite, stopping at the first step that fails, as `a && b && c && d` would.
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

import { eachLine, startProcess, stopProcess } from '../../support/n8n/process';
import { REPO_DIR } from '../../support/paths';
import { readTimings, recordTiming, TIMINGS_FILE, timingTable } from '../../support/timings';

const JEST_RESULTS = path.join(REPO_DIR, '.build', 'jest-results.json');

interface JestResults {
	testResults: Array<{ name: string; startTime: number; endTime: number }>;
}

/** Runs one step in the foreground, its output as it comes; resolves to its exit code. */
function step(name: string, cmd: string, args: string[]): Promise<number> {
	const started = Date.now();
	return new Promise((resolve) => {
		const child = spawn(cmd, args, { cwd: REPO_DIR, stdio: 'inherit' });
		child.on('error', (error) => {
			console.error(`npm test: ${name} could not start: ${error.message}`);
			resolve(1);
		});
		child.on('close', (code, signal) => {
			recordTiming('step', name, started);
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
		for (const [name, script] of [['n8n lint', 'lint'], ['verify (build, scanner checks)', 'verify'], ['type check', 'typecheck']]) {
			code = await step(name, 'npm', ['run', script]);
			if (code !== 0) return code;
		}
		code = await step('jest', process.execPath, [require.resolve('jest/bin/jest'), '-c', 'test/jest.config.js', '--json', `--outputFile=${JEST_RESULTS}`, ...jestArgs]);
		recordSuites();
		return code;
	} finally {
		// Whatever is still installing is not needed any more (a step failed, or the suites that need it did not run).
		if (installs) await stopProcess(installs, 5000);
		console.log(`\nWhere the time went (${path.relative(REPO_DIR, TIMINGS_FILE)}):\n\n${timingTable(readTimings())}\n`);
	}
}

void main().then((code) => process.exit(code));
