/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The README's npm install steps, run as written (only the package name is
 * swapped for the packed tarball, as the package is not fetched from the
 * registry here) in a clean home folder, then a real n8n started on it: both
 * nodes and the credential must be loaded.
 *
 * The same n8n also checks the end-to-end harness, on what no other suite checks (this was
 * harness.e2e.test.ts, 46 s and three starts of n8n of its own; here it shares this suite's n8n and
 * adds one start): HTTPS with the generated certificate, the owner and the API key kept in the user
 * folder, stop() leaving no process behind; and a package packed and installed as n8n installs
 * community packages, its peer dependency left out. Cut, as other suites prove them on every run: the
 * kept owner and key reused by another start of the harness (every suite on the run's shared n8n attaches
 * to it with them: shared.ts, attachN8n; it took 14 s here), a Webhook workflow
 * activated, run and deactivated through the public API (trigger.e2e, examples.e2e, compat.e2e do
 * so with the package's trigger), a restart (trigger.e2e, lifecycle.random.e2e; restart() is the
 * stop() checked here and a start) and a workflow run once through `n8n execute` (trigger.e2e,
 * examples.e2e, compat.e2e).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { hostPaths } from '../../support/n8n/hosts/provision';
import { type N8nInstance, startN8n } from '../../support/n8n/instance';
import { installPackage, packPackage } from '../../support/n8n/package';
import { groupMembers } from '../../support/n8n/process';
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

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-readme-install-'));
const tmpDirs: string[] = [home];
/** The n8n the README's steps installed into; the harness's checks run on it. */
let n8n: N8nInstance | undefined;

afterAll(async () => {
	await n8n?.stop();
	for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

const instance = (): N8nInstance => {
	if (!n8n) throw new Error('n8n did not start');
	return n8n;
};

describe("the README's npm install steps", () => {
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

		const t0 = Date.now();
		n8n = await startN8n({ userFolder: home, https: true });
		console.log(`n8n ready at ${n8n.baseUrl} in ${Date.now() - t0} ms (user folder ${n8n.userFolder})`);
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

describe('e2e harness (real n8n), on the n8n the README installed into', () => {
	it('runs the selected n8n from its host folder on its Node, over HTTPS, with an owner and an API key', async () => {
		const n = instance();
		expect(n.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
		expect(n.webhookBaseUrl).toBe(`${n.baseUrl}/`);
		expect(n.host).toEqual(hostPaths());
		expect(n.certificate).toContain('BEGIN CERTIFICATE');

		// The generated certificate verifies as its own CA for 127.0.0.1.
		const health = await n.request('/healthz/readiness');
		expect(health.status).toBe(200);

		const state = JSON.parse(fs.readFileSync(path.join(n.userFolder, 'e2e-owner.json'), 'utf8'));
		expect(state).toEqual(expect.objectContaining({ email: n.owner.email, password: n.owner.password, apiKey: expect.any(String) }));
		expect(await n.api.public('GET', '/workflows?limit=1')).toEqual(expect.objectContaining({ data: [] }));

		// The internal REST API as the owner (logs in with the stored password).
		const me = (await n.api.rest('GET', '/login')) as { data: { email: string } };
		expect(me.data.email).toBe(n.owner.email);
	});

	it('stop() leaves no process behind', async () => {
		const n = instance();
		// n8n leads a process group of its own; its task runners are in it.
		const pid = n.process.pid!;
		const group = groupMembers(pid);
		expect(group).toContain(pid);
		const t0 = Date.now();
		await n.stop();
		console.log(`n8n stopped in ${Date.now() - t0} ms (group ${group.join(',')})`);
		await n.stop(); // idempotent
		expect(groupMembers(pid)).toEqual([]);
	}, 60_000);

	it('packs a package and installs it as n8n installs community packages', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-e2e-dummy-'));
		tmpDirs.push(dir);
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({
				name: 'n8n-nodes-e2e-dummy',
				version: '1.0.0',
				main: 'index.js',
				files: ['index.js', 'built.txt'],
				scripts: { build: "node -e \"require('fs').writeFileSync('built.txt', 'built')\"" },
				peerDependencies: { 'n8n-workflow': '*' },
			}),
		);
		fs.writeFileSync(path.join(dir, 'index.js'), 'module.exports = {};\n');
		const tarball = await packPackage(dir);
		expect(fs.existsSync(tarball)).toBe(true);
		expect(await packPackage(dir)).toBe(tarball); // cached

		const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-install-'));
		tmpDirs.push(userFolder);
		await installPackage(userFolder, tarball);
		const installed = path.join(userFolder, '.n8n', 'nodes', 'node_modules', 'n8n-nodes-e2e-dummy');
		expect(fs.readFileSync(path.join(installed, 'built.txt'), 'utf8')).toBe('built');
		// The peer dependency is n8n's own: not installed.
		expect(fs.existsSync(path.join(userFolder, '.n8n', 'nodes', 'node_modules', 'n8n-workflow'))).toBe(false);
		const nodesPkg = JSON.parse(fs.readFileSync(path.join(userFolder, '.n8n', 'nodes', 'package.json'), 'utf8'));
		expect(Object.keys(nodesPkg.dependencies)).toEqual(['n8n-nodes-e2e-dummy']);
	}, 120_000);
});
