/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Both nodes in n8n's queue mode (the selected n8n, see hosts/versions.ts): real Redis and PostgreSQL, one main process, two
 * webhook processes behind a load balancer and two workers (queue.ts). The main process
 * registers the trigger's hook; each webhook process checks the deliveries it receives; the
 * workers run the executions, which land in PostgreSQL; restarts of each kind of process lose
 * nothing; two workers share one account's rate limit with the action node.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';

import type { DeliveryPayload, Emulator } from '../../emulator';
import { type Execution, httpRequest, type WorkflowJson } from '../../support/n8n/api';
import type { N8nInstance, N8nProcess } from '../../support/n8n/instance';
import { type QueueStack, startQueueStack } from '../../support/n8n/queue';

const API_KEY = 'queue-e2e-key';
const SECRET = '9e0e'.repeat(16);
const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
const WEBHOOK_ID = '4b1d6c3e-7a2f-4e59-9c08-5f3a2b1d0e7c';
const TRIGGER = 'n8n-nodes-stacks-hooks.stacksHooksTrigger';
const ACTION = 'n8n-nodes-stacks-hooks.stacksHooks';
/** Five n8n processes share 2 cores: executions may take a while to show up. */
const SLOW = { timeoutMs: 90_000 };

let stack: QueueStack;
let main: N8nInstance;
let emu: Emulator;
let height = 5000;
/** Every line each n8n process printed, by process name. */
const logs = new Map<string, string[]>();
jest.setTimeout(240_000);

const triggerWorkflow = (webhookId = WEBHOOK_ID, name = 'Queue mode: STX from Alice'): WorkflowJson => ({
	name,
	nodes: [
		{
			id: 'a1d6e7a8-3333-4b2c-9d3e-cccccccccccc',
			name: 'Stacks Hooks Trigger',
			type: TRIGGER,
			typeVersion: 1.1,
			position: [0, 0],
			webhookId,
			parameters: { events: { filter: [{ type: 'stx_transfer', sender: ALICE }] } },
			credentials: { stacksHooksApi: stack.credential },
		},
	],
	connections: {},
});

const transfers = (count: number) => ({
	height: ++height,
	transactions: Array.from({ length: count }, (_, i) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount: 1000 + i })),
});

const webhookPath = `webhook/${WEBHOOK_ID}/webhook`;
/** The production URL n8n registers: the load balancer's. */
const productionUrl = () => `${stack.env.N8N_WEBHOOK_URL}${webhookPath}`;
/** The same path on one webhook process, bypassing the load balancer. */
const directUrl = (proc: N8nProcess) => `${proc.baseUrl}/${webhookPath}`;
/** A delivery (an object, or its JSON) posted straight to one webhook process; with the account's secret unless told. */
const deliverTo = (proc: N8nProcess, body: unknown, headers: Record<string, string> = { 'x-hook-consumer-secret': SECRET }) =>
	proc.request(directUrl(proc), {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: typeof body === 'string' ? body : JSON.stringify(body),
		timeoutMs: 60_000,
	});

const itemsOf = (execution: Execution) =>
	execution.data?.resultData?.runData?.['Stacks Hooks Trigger']?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];

/** The execution ids PostgreSQL holds for a workflow, with their status and mode. */
const executionRows = async (workflowId: string) =>
	(await stack.postgres.query(`select id, status, mode from execution_entity where "workflowId" = '${workflowId}' order by id`)).map(([id, status, mode]) => ({ id, status, mode }));

/** The worker names whose log says they ran an execution. */
const workersThatRan = (executionId: string) =>
	[...logs.entries()]
		.filter(([name, lines]) => name.startsWith('worker') && lines.some((line) => new RegExp(`execution ${executionId}\\b`).test(line)))
		.map(([name]) => name);

beforeAll(async () => {
	stack = await startQueueStack({
		apiKey: API_KEY,
		consumerSecret: SECRET,
		credentialName: 'Stacks Hooks (queue mode)',
		// One execution at a time per worker: two at once are then certainly on both workers.
		workerConcurrency: 1,
		log: (line) => {
			const [, name, rest] = /^\[([^\]]+)\] (.*)$/.exec(line) ?? [];
			if (!logs.has(name)) logs.set(name, []);
			logs.get(name)!.push(rest);
		},
	});
	({ main, emu } = stack);
}, 15 * 60_000);

afterAll(async () => {
	// Every process's output, for a failure's post-mortem.
	const dump = path.join(os.tmpdir(), 'stacks-hooks-queue-e2e.log');
	fs.writeFileSync(dump, [...logs.entries()].map(([name, lines]) => lines.map((line) => `[${name}] ${line}`).join('\n')).join('\n'));
	console.log(`queue mode: every process's output is in ${dump}`);
	await stack?.close();
}, 120_000);

describe('queue mode: main, 2 webhook processes, 2 workers, Redis, PostgreSQL', () => {
	let workflowId: string;
	let executions = 0;

	it('registers exactly one enabled hook for the production URL when the main process activates the workflow', async () => {
		workflowId = (await main.api.createWorkflow(triggerWorkflow())).id;
		await main.api.activate(workflowId);
		const hooks = emu.hooks(API_KEY);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].status.enabled).toBe(true);
		expect(hooks[0].definition.action.url).toBe(productionUrl());
	});

	it('checks the secret on each webhook process: 401 and no execution without it, one execution per valid delivery, run by the workers and kept in PostgreSQL', async () => {
		// A real delivery from the service, through the load balancer to a webhook process.
		const servedBefore = { ...stack.balancer.served, webhooks: [...stack.balancer.served.webhooks] };
		const [report] = await emu.injectBlock(transfers(3));
		expect(report.status).toBe(200);
		expect(stack.balancer.served.main).toBe(servedBefore.main);
		expect(stack.balancer.served.webhooks.reduce((a, b) => a + b) - servedBefore.webhooks.reduce((a, b) => a + b)).toBe(1);
		executions += 1;
		const payload: DeliveryPayload = report.payload;

		const post = (proc: N8nProcess, headers: Record<string, string>) => deliverTo(proc, payload, headers);
		for (const proc of stack.webhooks) {
			expect((await post(proc, {})).status).toBe(401);
			expect((await post(proc, { 'x-hook-consumer-secret': `${SECRET.slice(0, -1)}x` })).status).toBe(401);
		}
		// Alternately to each webhook process.
		for (let i = 0; i < 6; i++) {
			const answer = await post(stack.webhooks[i % 2], { 'x-hook-consumer-secret': SECRET });
			expect({ i, status: answer.status, body: answer.json }).toEqual({ i, status: 200, body: { received: true, items: 3 } });
			executions += 1;
		}
		const done = await main.api.waitForExecutions(workflowId, executions, SLOW);
		expect(done).toHaveLength(executions);
		for (const execution of done) {
			expect(execution.status).toBe('success');
			expect(itemsOf(execution).map((item) => item.txHash)).toEqual(payload.event.apply[0].transactions.map((tx) => tx.transaction_identifier.hash));
		}
		// Nothing more came from the refused ones.
		await sleep(1500);
		expect(await main.api.executions({ workflowId })).toHaveLength(executions);

		const rows = await executionRows(workflowId);
		expect(rows.map((row) => row.id).sort()).toEqual(done.map((execution) => execution.id).sort());
		expect(rows.every((row) => row.status === 'success' && row.mode === 'webhook')).toBe(true);
		// Run on the workers, not on the main or webhook processes, and both workers took some.
		const ranOn = done.map((execution) => workersThatRan(execution.id));
		expect(ranOn.every((names) => names.length === 1)).toBe(true);
		expect(new Set(ranOn.flat()).size).toBe(2);
	});

	it('loses nothing when the main process restarts: still one hook, deliveries still run', async () => {
		const [before] = emu.hooks(API_KEY);
		await main.restart();
		expect(emu.hooks(API_KEY).map((hook) => hook.uuid)).toEqual([before.uuid]);
		expect((await emu.injectBlock(transfers(1)))[0].status).toBe(200);
		executions += 1;
		expect(await main.api.waitForExecutions(workflowId, executions, SLOW)).toHaveLength(executions);
	});

	it('loses nothing when a webhook process restarts, nor when a worker restarts', async () => {
		const [report] = await emu.injectBlock(transfers(2));
		expect(report.status).toBe(200);
		const { payload } = report;
		executions += 1;
		const post = (proc: N8nProcess) => deliverTo(proc, payload);
		// Drained first, as README's Queue mode asks: a webhook process stopped with deliveries in
		// flight refuses them (the service sends them again) and may leave executions "new" for ever.
		await main.api.waitForExecutions(workflowId, executions, SLOW);

		await stack.webhooks[0].restart();
		expect((await post(stack.webhooks[0])).status).toBe(200);
		executions += 1;
		expect(await main.api.waitForExecutions(workflowId, executions, SLOW)).toHaveLength(executions);

		await stack.workers[0].restart();
		for (const proc of stack.webhooks) {
			expect((await post(proc)).status).toBe(200);
			executions += 1;
		}
		const done = await main.api.waitForExecutions(workflowId, executions, SLOW);
		expect(done.filter((execution) => execution.status !== 'success')).toEqual([]);
		expect(emu.hooks(API_KEY)).toHaveLength(1);
	});

	it('runs every delivery a webhook process answered 200 although it was stopped mid-stream: n8n answers once the job is queued', async () => {
		const [report] = await emu.injectBlock(transfers(1));
		expect(report.status).toBe(200);
		executions += 1;
		await main.api.waitForExecutions(workflowId, executions, SLOW);
		// Deliveries each with a transaction of its own, sent every 15 ms while the process stops.
		const hashes = Array.from({ length: 40 }, (_, i) => `0x${(0xdead0000 + i).toString(16).padStart(64, '0')}`);
		const bodies = hashes.map((hash) => {
			const body = structuredClone(report.payload);
			body.event.apply[0].transactions[0].transaction_identifier.hash = hash;
			return JSON.stringify(body);
		});
		const proc = stack.webhooks[1];
		const posts = bodies.map((body, i) =>
			sleep(i * 15).then(() => deliverTo(proc, body).then((answer) => answer.status, () => 0)),
		);
		await sleep(250);
		const restarting = proc.restart();
		const statuses = await Promise.all(posts);
		await restarting;
		const answered = hashes.filter((_, i) => statuses[i] === 200);
		console.log(
			`queue mode, webhook process stopped mid-stream: ${answered.length} of ${hashes.length} deliveries answered 200, ` +
				`the others ${[...new Set(statuses.filter((status) => status !== 200))].join('/') || '–'} (0 = no answer; the service sends those again)`,
		);
		// Each delivery answered 200 has its execution, finished (none left "new"); extras are the re-sendable ones.
		const ran = new Set<string>();
		for (const deadline = Date.now() + 90_000; answered.some((hash) => !ran.has(hash)) && Date.now() < deadline; await sleep(1000)) {
			for (const execution of await main.api.executions({ workflowId, includeData: true })) {
				if (execution.status === 'success') itemsOf(execution).forEach((item) => ran.add(String(item.txHash)));
			}
		}
		expect(answered.filter((hash) => !ran.has(hash))).toEqual([]);
		await sleep(2000); // what else was queued has run
		executions = (await main.api.executions({ workflowId })).filter((execution) => !['new', 'running', 'waiting'].includes(execution.status) && execution.stoppedAt !== null).length;
	});

	it("heals an interrupted hook from the main process's health check, the only process that runs it", async () => {
		const workflow = triggerWorkflow();
		workflow.nodes[0].parameters = { ...(workflow.nodes[0].parameters as object), options: { healthCheckMinutes: 0.05 } }; // every 3 s
		await main.api.updateWorkflow(workflowId, workflow);
		await main.api.activate(workflowId);
		const [hook] = emu.hooks(API_KEY);
		emu.interruptHook(hook.uuid);
		expect(await emu.injectBlock(transfers(1))).toEqual([]);
		for (const deadline = Date.now() + 20_000; emu.hooks(API_KEY)[0]?.status.status !== 'streaming' && Date.now() < deadline; ) await sleep(250);
		expect(emu.hooks(API_KEY)).toEqual([expect.objectContaining({ uuid: hook.uuid, status: expect.objectContaining({ enabled: true, status: 'streaming' }) })]);
		// The repair's log line can come a moment after the service sees the hook enabled.
		const healedBy = () => [...logs.entries()].filter(([, lines]) => lines.some((line) => line.includes(`enabled hook ${hook.uuid} again by the health check`))).map(([name]) => name);
		for (const deadline = Date.now() + 5_000; healedBy().length === 0 && Date.now() < deadline; ) await sleep(100);
		expect(healedBy()).toEqual(['main']);
		expect((await emu.injectBlock(transfers(1)))[0].status).toBe(200);
		executions += 1;
		expect(await main.api.waitForExecutions(workflowId, executions, SLOW)).toHaveLength(executions);
	});

	it('delivers a test event to the main process, which runs it: the load balancer sends /webhook-test/ there', async () => {
		const testWebhookId = '2c7e4f1a-9b3d-4a6e-8f0c-1d2e3f4a5b6c';
		const { id } = await main.api.createWorkflow(triggerWorkflow(testWebhookId, 'Queue mode: test event'));
		await main.api.runManually(id, 'Stacks Hooks Trigger');
		const testHook = emu.hooks(API_KEY).find((hook) => hook.definition.action.url.includes(testWebhookId));
		expect(testHook?.definition.action.url).toBe(`${stack.env.N8N_WEBHOOK_URL}webhook-test/${testWebhookId}/webhook`);
		// A webhook process does not serve test webhooks: that is why the load balancer sends them to the main.
		const direct = await stack.webhooks[0].request(`${stack.webhooks[0].baseUrl}/webhook-test/${testWebhookId}/webhook`, { method: 'POST', body: {} });
		expect(direct.status).toBe(404);
		const mainBefore = stack.balancer.served.main;
		const reports = await emu.injectBlock(transfers(2));
		expect(reports.find((report) => report.hookUuid === testHook!.uuid)?.status).toBe(200);
		expect(stack.balancer.served.main).toBe(mainBefore + 1);
		const [execution] = await main.api.waitForExecutions(id, 1, SLOW);
		expect(execution.mode).toBe('manual');
		expect(itemsOf(execution)).toHaveLength(2);
		const [production] = reports.filter((report) => report.hookUuid !== testHook!.uuid);
		if (production?.status === 200) executions += 1; // the production hook matched too
	});

	it('says why a test event fails when n8n sends manual runs to the workers (OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true)', async () => {
		main.env.OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS = 'true';
		await main.restart();
		const testWebhookId = '3d8f5a2b-0c4e-4b7f-9a1d-2e3f4a5b6c7d';
		const { id } = await main.api.createWorkflow(triggerWorkflow(testWebhookId, 'Queue mode: offloaded test event'));
		await main.api.runManually(id, 'Stacks Hooks Trigger');
		const testHook = emu.hooks(API_KEY).find((hook) => hook.definition.action.url.includes(testWebhookId));
		const reports = await emu.injectBlock(transfers(1));
		expect(reports.find((report) => report.hookUuid === testHook?.uuid)?.status).toBe(200);
		if (reports.find((report) => report.hookUuid !== testHook?.uuid)?.status === 200) executions += 1;
		const [execution] = await main.api.waitForExecutions(id, 1, SLOW);
		expect(execution.status).toBe('error');
		const full = (await main.api.public('GET', `/executions/${execution.id}?includeData=true`)) as Execution;
		expect(full.data?.resultData?.error?.message).toBe('The test delivery was received by another n8n process than the one running this test');
		expect(workersThatRan(execution.id)).toHaveLength(1);
	});

	it('deletes the hook when the main process deactivates the workflow', async () => {
		await main.api.deactivate(workflowId);
		expect(emu.hooks(API_KEY)).toEqual([]);
		expect(await emu.injectBlock(transfers(1))).toEqual([]);
	});
});

describe('queue mode: the action node on two workers at once, one account budget', () => {
	const HOOKS = 10;
	const ITEMS_PER_RUN = 150;

	it('enables 300 items with 0 failed items while two workers share 100 requests per 10 s', async () => {
		// Hooks to enable, registered directly at the service.
		const uuids: string[] = [];
		for (let i = 0; i < HOOKS; i++) {
			const created = await httpRequest(`${emu.url}/me/`, {
				method: 'POST',
				headers: { 'x-api-key': API_KEY },
				body: {
					version: '1',
					name: `queue-rate-${i}`,
					chain: 'stacks',
					network: 'testnet',
					filters: { events: [{ type: 'stx_transfer' }] },
					action: { type: 'http_post', url: `https://hooks.example.com/${i}` },
				},
			});
			expect(created.status).toBe(200);
			uuids.push((created.json as { uuid: string }).uuid);
		}
		emu.configure({ rateLimit: { limit: 100, windowMs: 10_000 } });
		emu.clearRequests();

		const workflow = await main.api.createWorkflow({
			name: 'Queue mode: enable many',
			nodes: [
				{
					id: 'b1d6e7a8-4444-4b2c-9d3e-dddddddddddd',
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: '6c2e1a9b-3d4f-4a5b-8c7d-9e0f1a2b3c4d',
					parameters: { httpMethod: 'POST', path: 'enable-many', responseMode: 'onReceived' },
				},
				{
					id: 'b1d6e7a8-5555-4b2c-9d3e-eeeeeeeeeeee',
					name: 'Split Out',
					type: 'n8n-nodes-base.splitOut',
					typeVersion: 1,
					position: [200, 0],
					parameters: { fieldToSplitOut: 'body.hooks', options: {} },
				},
				{
					id: 'b1d6e7a8-6666-4b2c-9d3e-ffffffffffff',
					name: 'Enable Hook',
					type: ACTION,
					typeVersion: 1,
					position: [400, 0],
					onError: 'continueRegularOutput',
					parameters: { resource: 'hook', operation: 'enable', hookId: { __rl: true, mode: 'id', value: '={{ $json["body.hooks"] }}' } },
					credentials: { stacksHooksApi: stack.credential },
				},
			],
			connections: {
				Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
				'Split Out': { main: [[{ node: 'Enable Hook', type: 'main', index: 0 }]] },
			},
		});
		await main.api.activate(workflow.id);

		// One call to each webhook process, at once: each becomes a job, and each worker takes one.
		const hooks = Array.from({ length: ITEMS_PER_RUN }, (_, i) => uuids[i % HOOKS]);
		const answers = await Promise.all(
			stack.webhooks.map((proc) => proc.request(`${proc.baseUrl}/webhook/enable-many`, { method: 'POST', body: { hooks } })),
		);
		expect(answers.map((answer) => answer.status)).toEqual([200, 200]);

		const runs = await main.api.waitForExecutions(workflow.id, 2, { timeoutMs: 180_000 });
		const outputs = await Promise.all(
			runs.map(async (run) => {
				const full = (await main.api.public('GET', `/executions/${run.id}?includeData=true`)) as Execution;
				return full.data?.resultData?.runData?.['Enable Hook']?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];
			}),
		);
		const items = outputs.flat();
		const failed = items.filter((item) => 'error' in item);
		const limited = emu.requests.filter((request) => request.status === 429).length;
		console.log(
			`queue mode, two workers on one budget of 100 requests per 10 s: ${items.length} items, ${failed.length} failed, ` +
				`${limited} answers 429 along the way; workers: ${runs.map((run) => workersThatRan(run.id).join('+')).join(', ')}`,
		);
		expect(runs.map((run) => run.status)).toEqual(['success', 'success']);
		expect(items).toHaveLength(2 * ITEMS_PER_RUN);
		expect(failed).toEqual([]);
		expect(new Set(runs.flatMap((run) => workersThatRan(run.id))).size).toBe(2);
		expect(items.every((item) => item.enabled === true)).toBe(true);
	});
});
