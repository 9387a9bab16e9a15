/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The oldest n8n the package claims (nodes/shared/n8nVersion.ts): the built nodes, loaded
 * against the real n8n-workflow of the n8n just before it (1.82.0, from the npm registry), stop
 * with a message naming the n8n they need; against the first n8n-workflow that has what they use
 * (1.83.0, n8n 1.85's) they load. The compatibility smoke test runs them in a real n8n 1.85.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { withoutNpmConfig } from '../../support/n8n/hosts/provision';
import { REPO_DIR } from '../../support/paths';

const manifest = JSON.parse(fs.readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };

/** A folder holding the built package's dist/ and, as n8n would provide them, n8n-workflow@`version` and zod. */
function packageWith(workflowVersion: string): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `stacks-hooks-n8n-workflow-${workflowVersion}-`));
	fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
	const args = ['i', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', `n8n-workflow@${workflowVersion}`, 'zod@3.25.76'];
	const installed = spawnSync('npm', args, { cwd: dir, encoding: 'utf8', env: withoutNpmConfig(process.env), timeout: 180_000 });
	if (installed.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${installed.status}:\n${installed.stdout}${installed.stderr}`);
	fs.cpSync(path.join(REPO_DIR, 'dist'), path.join(dir, 'dist'), { recursive: true });
	return dir;
}

/** Loads one built file in a fresh Node and instantiates its class, as n8n's loader does. */
function load(dir: string, file: string): { code: number | null; output: string } {
	const script = `const m=require(${JSON.stringify(path.join(dir, file))});const T=Object.values(m)[0];const t=new T();console.log(JSON.stringify(t.description?.inputs ?? t.name))`;
	const result = spawnSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
	return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the oldest n8n the package claims', () => {
	const dirs: string[] = [];
	afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

	it('refuses to load both nodes on n8n-workflow 1.82.0 (n8n before 1.85), saying which n8n it needs', () => {
		const dir = packageWith('1.82.0');
		dirs.push(dir);
		for (const file of manifest.n8n.nodes) {
			const { code, output } = load(dir, file);
			expect(code).not.toBe(0);
			expect(output).toContain('n8n-nodes-stacks-hooks needs n8n 1.85.0 or newer');
			expect(output).toContain('Update n8n to 1.85.0 or newer');
		}
	}, 240_000);

	it('loads both nodes and the credential on n8n-workflow 1.83.0 (n8n 1.85)', () => {
		const dir = packageWith('1.83.0');
		dirs.push(dir);
		for (const file of manifest.n8n.nodes) {
			const { code, output } = load(dir, file);
			expect({ file, code }).toEqual({ file, code: 0 });
			expect(output.trim().split('\n').pop()).toMatch(/^(\["main"\]|\[\])$/);
		}
		for (const file of manifest.n8n.credentials) expect(load(dir, file)).toEqual({ code: 0, output: '"stacksHooksApi"\n' });
	}, 240_000);
});
