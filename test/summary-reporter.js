/**
 * Keeps one plain closing line that any CI can read, "tests: N passed, N failed"
 * (", N skipped" when some were), in .build/test-summary.txt; .ci/run prints it
 * last, after jest's own summary. Above it, each failed test's name and the start
 * and end of its message: a CI that keeps only the start and the end of a long log
 * still says what failed, and why.
 */
const fs = require('fs');
const path = require('path');

/**
 * Lines of each failure message kept, stack frames left out: its first lines (the assertion and
 * its diff) and its last (where a process's output, quoted last, says why it ended).
 */
const HEAD_LINES = 8;
const TAIL_LINES = 16;
// jest colours its messages.
const ANSI = /\u001b\[[0-9;]*m/g;

class SummaryReporter {
	constructor(globalConfig) {
		this.file = path.join(globalConfig.rootDir, '.build', 'test-summary.txt');
	}

	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		const failures = [];
		for (const suite of results.testResults) {
			const file = path.relative(path.dirname(path.dirname(this.file)), suite.testFilePath);
			if (suite.testExecError) failures.push(`FAILED ${file}: ${head(suite.testExecError.message)}`);
			for (const test of suite.testResults) {
				if (test.status === 'failed') failures.push(`FAILED ${file} › ${test.fullName}\n${head(test.failureMessages.join('\n'))}`);
			}
		}
		fs.mkdirSync(path.dirname(this.file), { recursive: true });
		fs.writeFileSync(
			this.file,
			`${failures.map((failure) => `${failure}\n`).join('')}tests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
		);
	}
}

function head(message) {
	const lines = message.replace(ANSI, '').split('\n').filter((line) => !/^\s+at /.test(line));
	const kept =
		lines.length <= HEAD_LINES + TAIL_LINES
			? lines
			: [...lines.slice(0, HEAD_LINES), `[… ${lines.length - HEAD_LINES - TAIL_LINES} lines …]`, ...lines.slice(-TAIL_LINES)];
	return kept.map((line) => `    ${line}`).join('\n');
}

module.exports = SummaryReporter;
