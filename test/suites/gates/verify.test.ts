/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * `npm run verify` (test/tools/verify/verify.mjs) runs n8n's community-package scanner on what
 * would be published. `npm test` runs it on the package itself; this suite shows it is a real
 * gate: on a copy of the package it passes, and the same copy with one runtime dependency fails
 * on the scanner's own rule, in both the source and the tarball leg.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { REPO_DIR } from '../../support/paths';

const VERIFY = path.join(REPO_DIR, 'test', 'tools', 'verify', 'verify.mjs');

/** A copy of what the scanner looks at: the manifest, the sources and the built dist/ (`npm test` builds first). */
function copyPackage(edit?: (manifest: Record<string, unknown>) => void): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-verify-copy-'));
	for (const entry of ['package.json', 'index.js', 'README.md', 'LICENSE.md', 'nodes', 'credentials', 'dist']) {
		fs.cpSync(path.join(REPO_DIR, entry), path.join(dir, entry), { recursive: true });
	}
	if (edit) {
		const file = path.join(dir, 'package.json');
		const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
		edit(manifest);
		fs.writeFileSync(file, JSON.stringify(manifest, null, 2) + '\n');
	}
	return dir;
}

function verify(dir: string): { code: number | null; output: string } {
	const result = spawnSync(process.execPath, [VERIFY, dir], { encoding: 'utf8', timeout: 120_000 });
	return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('npm run verify: the scanner gate', () => {
	const dirs: string[] = [];
	afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

	it('passes an unchanged copy of the package with 0 errors and 0 warnings in both legs', () => {
		const dir = copyPackage();
		dirs.push(dir);
		const { code, output } = verify(dir);
		expect(output).toMatch(/PASS {2}source leg .*: [1-9]\d* files, 0 errors, 0 warnings/);
		expect(output).toMatch(/PASS {2}tarball leg .*: [1-9]\d* files, 0 errors, 0 warnings/);
		expect(code).toBe(0);
	}, 120_000);

	it('fails the same copy with one runtime dependency, naming the scanner rule in both legs', () => {
		const dir = copyPackage((manifest) => {
			manifest.dependencies = { axios: '1.7.9' };
		});
		dirs.push(dir);
		const { code, output } = verify(dir);
		expect(code).toBe(1);
		expect(output).toMatch(/FAIL {2}source leg .*: \d+ files, 1 errors/);
		expect(output).toMatch(/FAIL {2}tarball leg .*: \d+ files, 1 errors/);
		expect(output.match(/@n8n\/community-nodes\/no-runtime-dependencies/g)).toHaveLength(2);
		expect(output).toContain('the scanner would refuse this package');
	}, 120_000);
});
