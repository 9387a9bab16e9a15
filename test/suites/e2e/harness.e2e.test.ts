/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Smoke test of the end-to-end harness itself, against the selected real n8n on its Node:
 * provisioning, HTTPS with a generated self-signed pair, owner + API key, a Webhook workflow
 * through the public API, restart, the CLI route, stop, and pack/install of a package.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import type { Execution, WorkflowJson } from '../../support/n8n/api';
import { runWorkflowOnce } from '../../support/n8n/cli';
import { hostPaths } from '../../support/n8n/hosts/provision';
import { type N8nInstance, startN8n } from '../../support/n8n/instance';
import { installPackage, packPackage } from '../../support/n8n/package';
import { groupMembers } from '../../support/n8n/process';

const WEBHOOK_ID = '6f1c3c0e-5b0f-4f38-9a8e-2d5a4c1e7b01';
const WEBHOOK_PATH = 'e2e-harness-smoke';

const webhookWorkflow: WorkflowJson = {
	name: 'e2e harness smoke: webhook',
	nodes: [
		{
			id: 'b9d2b8e4-0c55-4f0e-9a39-1a1d0f3f4c11',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: WEBHOOK_ID,
			parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, responseMode: 'onReceived', options: {} },
		},
	],
	connections: {},
};

describe('e2e harness (real n8n)', () => {
	let n8n: N8nInstance | undefined;
	const startedPids: number[] = [];
	const tmpDirs: string[] = [];

	beforeAll(async () => {
		const t0 = Date.now();
		n8n = await startN8n({ https: true });
		startedPids.push(n8n.process.pid!);
		console.log(`n8n ready at ${n8n.baseUrl} in ${Date.now() - t0} ms (user folder ${n8n.userFolder})`);
	}, 10 * 60_000);

	let again: N8nInstance | undefined;

	afterAll(async () => {
		await n8n?.stop();
		await again?.stop();
		for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
		if (n8n) fs.rmSync(n8n.userFolder, { recursive: true, force: true });
	}, 60_000);

	const instance = (): N8nInstance => {
		if (!n8n) throw new Error('n8n did not start');
		return n8n;
	};

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
		expect(state).toEqual(
			expect.objectContaining({ email: n.owner.email, password: n.owner.password, apiKey: expect.any(String) }),
		);
		expect(await n.api.public('GET', '/workflows?limit=1')).toEqual(expect.objectContaining({ data: [] }));

		// The internal REST API as the owner (logs in with the stored password).
		const me = (await n.api.rest('GET', '/login')) as { data: { email: string } };
		expect(me.data.email).toBe(n.owner.email);
	});

	let workflowId = '';

	it('activates a Webhook workflow through the public API and records its execution', async () => {
		const n = instance();
		const created = await n.api.createWorkflow(webhookWorkflow);
		workflowId = created.id;
		expect(created.active).toBe(false);

		const activated = await n.api.activate(workflowId);
		expect(activated.active).toBe(true);

		const body = { hello: 'stacks', n: 42, nested: { ok: true } };
		const res = await n.request(n.webhookUrl(WEBHOOK_PATH), { method: 'POST', body });
		expect(res.status).toBe(200);

		const executions: Execution[] = await n.api.waitForExecutions(workflowId, 1, { timeoutMs: 30_000 });
		expect(executions).toHaveLength(1);
		expect(executions[0].status).toBe('success');
		const item = executions[0].data?.resultData?.runData?.Webhook?.[0]?.data?.main?.[0]?.[0]?.json;
		expect(item?.body).toEqual(body);

		const again = await n.api.getWorkflow(workflowId);
		expect(again.active).toBe(true);
	}, 60_000);

	it('deactivates it: the webhook is gone', async () => {
		const n = instance();
		const deactivated = await n.api.deactivate(workflowId);
		expect(deactivated.active).toBe(false);
		const res = await n.request(n.webhookUrl(WEBHOOK_PATH), { method: 'POST', body: { late: true } });
		expect(res.status).toBe(404);
	}, 30_000);

	it('restarts on the same user folder and comes back ready with the same owner', async () => {
		const n = instance();
		const before = n.process.pid!;
		const t0 = Date.now();
		await n.restart();
		console.log(`n8n restarted in ${Date.now() - t0} ms`);
		startedPids.push(n.process.pid!);
		expect(n.process.pid).not.toBe(before);
		expect(groupMembers(before)).toEqual([]); // the old n8n and its task runners
		expect((await n.request('/healthz/readiness')).status).toBe(200);
		const wf = await n.api.getWorkflow(workflowId);
		expect(wf.name).toBe(webhookWorkflow.name);
		expect(await n.api.executions({ workflowId })).toHaveLength(1);
	}, 120_000);

	it('runs a workflow once through the CLI (import:workflow + execute) beside the server', async () => {
		const n = instance();
		const t0 = Date.now();
		const result = await runWorkflowOnce(n, {
			name: 'e2e harness smoke: run once',
			nodes: [
				{
					id: '0a5e3f6e-8d1b-4b8e-9a0d-3f3c2b1a0e01',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: '0a5e3f6e-8d1b-4b8e-9a0d-3f3c2b1a0e02',
					name: 'Set',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [200, 0],
					parameters: {
						assignments: {
							assignments: [{ id: 'a1', name: 'answer', value: '={{ 6 * 7 }}', type: 'number' }],
						},
						options: {},
					},
				},
			],
			connections: { Start: { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
		});
		console.log(`runWorkflowOnce took ${Date.now() - t0} ms`);
		expect({ exitCode: result.exitCode, signal: result.signal }).toEqual({ exitCode: 0, signal: null });
		expect(JSON.stringify(result.json)).toContain('"answer":42');
	}, 180_000);

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

	it('stop() leaves no process behind', async () => {
		const n = instance();
		// n8n leads a process group of its own; its task runners are in it.
		const group = groupMembers(n.process.pid!);
		expect(group).toContain(n.process.pid);
		const t0 = Date.now();
		await n.stop();
		console.log(`n8n stopped in ${Date.now() - t0} ms (group ${group.join(',')})`);
		await n.stop(); // idempotent
		for (const pgid of startedPids) expect(groupMembers(pgid)).toEqual([]);
	}, 30_000);

	it('a later startN8n on the same user folder reuses the owner and the API key', async () => {
		const n = instance();
		const stateFile = path.join(n.userFolder, 'e2e-owner.json');
		const before = fs.readFileSync(stateFile, 'utf8');
		const t0 = Date.now();
		again = await startN8n({ userFolder: n.userFolder, https: true });
		console.log(`n8n started again on the same folder in ${Date.now() - t0} ms`);
		expect(fs.readFileSync(stateFile, 'utf8')).toBe(before);
		expect(again.owner).toEqual(n.owner);
		expect((await again.api.getWorkflow(workflowId)).active).toBe(false);
		const pid = again.process.pid!;
		await again.stop();
		expect(groupMembers(pid)).toEqual([]);
	}, 120_000);
});
