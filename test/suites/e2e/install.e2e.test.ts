/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The README's npm install steps, run as written (only the package name is
 * swapped for the packed tarball, as the package is not fetched from the
 * registry here) in a clean home folder, then a real n8n started on it: both
 * nodes and the credential must be loaded.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { type N8nInstance, startN8n } from '../../support/n8n/instance';
import { packPackage } from '../../support/n8n/package';
import { REPO_DIR } from '../../support/paths';

jest.setTimeout(180_000);

/** The shell block under "### With npm (self-hosted)" in README.md. */
function readmeInstallSteps(): string {
	const readme = fs.readFileSync(path.join(REPO_DIR, 'README.md'), 'utf8');
	const section = readme.slice(readme.indexOf('### With npm (self-hosted)'));
	const match = /```sh\n([\s\S]*?)```/.exec(section);
	if (!match) throw new Error('README.md has no sh block under "### With npm (self-hosted)"');
	return match[1];
}

describe("the README's npm install steps", () => {
	const home = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-readme-install-'));
	let n8n: N8nInstance | undefined;

	afterAll(async () => {
		await n8n?.stop();
		fs.rmSync(home, { recursive: true, force: true });
	}, 60_000);

	it('load both nodes and the credential into a clean n8n', async () => {
		const steps = readmeInstallSteps();
		expect(steps).toContain('npm install --omit=peer n8n-nodes-stacks-hooks');
		const tarball = await packPackage();
		execFileSync('bash', ['-euo', 'pipefail', '-c', steps.replace(/ n8n-nodes-stacks-hooks$/m, ` ${tarball}`)], {
			env: { ...process.env, HOME: home },
			stdio: 'pipe',
		});
		const installed = path.join(home, '.n8n', 'nodes', 'node_modules');
		expect(fs.existsSync(path.join(installed, 'n8n-nodes-stacks-hooks', 'package.json'))).toBe(true);
		expect(fs.existsSync(path.join(installed, 'n8n-workflow'))).toBe(false);

		n8n = await startN8n({ userFolder: home, https: true });
		const { data } = (await n8n.api.rest('POST', '/node-types', {
			nodeInfos: [
				{ name: 'n8n-nodes-stacks-hooks.stacksHooks', version: 1 },
				{ name: 'n8n-nodes-stacks-hooks.stacksHooksTrigger', version: 1.1 },
			],
		})) as { data: Array<{ displayName: string; credentials?: Array<{ name: string }> }> };
		expect(data.map((node) => node.displayName)).toEqual(['Stacks Hooks', 'Stacks Hooks Trigger']);
		expect(data.every((node) => node.credentials?.[0]?.name === 'stacksHooksApi')).toBe(true);

		const credential = await n8n.api.createCredential({
			name: 'Stacks Hooks API',
			type: 'stacksHooksApi',
			data: { apiKey: 'k', network: 'mainnet', baseUrl: '', consumerSecret: '' },
		});
		expect(credential).toMatchObject({ type: 'stacksHooksApi' });
	});
});
