/**
 * Keeps one plain closing line that any CI can read, "tests: N passed, N failed"
 * (", N skipped" when some were), in .build/test-summary.txt; .ci/run prints it
 * last, after jest's own summary.
 */
const fs = require('fs');
const path = require('path');

class SummaryReporter {
	constructor(globalConfig) {
		this.file = path.join(globalConfig.rootDir, '.build', 'test-summary.txt');
	}

	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		fs.mkdirSync(path.dirname(this.file), { recursive: true });
		fs.writeFileSync(
			this.file,
			`tests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
		);
	}
}

module.exports = SummaryReporter;
