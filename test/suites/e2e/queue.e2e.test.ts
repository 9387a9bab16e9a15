/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * n8n's queue mode, on one stack: Redis, PostgreSQL (n8n's database, and the ledger in a database of its own on
 * the same server), a main process (activation, the health check, test webhooks), two webhook processes (where
 * deliveries land, and where the trigger's own webhook keeps what they took), two workers (the executions),
 * behind a load balancer. n8n's public webhook address (N8N_WEBHOOK_URL) is one the service reaches and no n8n
 * process can (behind an ingress, no hairpin NAT), so the main reaches the webhook processes only at the
 * trigger's Internal Webhook Address, the load balancer's own. One stack for every part, each with an account
 * and an emulator of its own (their services retry differently), each leaving nothing active for the next: a
 * queue stack is five n8n starts, and CI's time goes to n8n's CPU.
 *
 * Nothing missed: the ledger recipe as users import it, its trigger checking every 3 s, through a seeded
 * 100-block script with reorganisations, lost answers, both webhook processes killed for longer than
 * the service's retries, the hook disabled at the service for a while, and deliveries dropped without
 * a word; nothing done by hand; then a healthy tail: one GET a check, nothing replayed, no alert.
 * Without it, and with it set to the main process (which answers the check with its own notes, and
 * takes no delivery), side by side in the same stack: a paused hook still caught up, no replay driven
 * by counts, a drop left unfound as docs/nothing-missed.md says, and exactly one alert each: that the check is
 * blind, or that the notes heard at that address never hold a delivery, naming it.
 *
 * Exact: seeded chain scripts of 100 blocks and more with reorganisations (flip-flops included), lost
 * answers, one webhook process killed (SIGKILL) and restarted mid-stream, and one overlapping Backfill:
 * with "Respond: When the Workflow Finishes" both ledgers (PostgreSQL, n8n's Data Table, which lives in
 * n8n's database here) equal the canonical chain afterwards and Notify Once sent each message exactly
 * once (the workers are not killed, so no execution is cut short).
 *
 * Each process at its job: the main registers the trigger's hook; each webhook process checks the secret
 * of the deliveries it receives; the workers (one execution at a time each, so that two at once are on
 * both) run the executions, which land in PostgreSQL; restarts of each kind of process lose nothing; test
 * webhooks reach the main; two workers share one account's rate limit with the action node.
 *
 * Regular mode: gaps.e2e.test.ts and record.e2e.test.ts. GAPS_SEQUENCES=<n> and RECORD_SEQUENCES=<n>
 * run n scripts instead of one; GAPS_SEED=<seed> and RECORD_SEED=<seed> replay one.
 */
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';

import type { DeliveryPayload, Emulator } from '../../emulator';
import { REORG_MARGIN } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/gapState';
import { EXAMPLE_SENDER, loadExample, TRIGGER_TYPE } from '../../support/examples';
import { alertsOf, CHECK_MINUTES, CHECK_MS, describeGapResult, describeTail, expectQuietTail, GAPS_EMULATOR, gapSeeds, healthyTail, runGapSequence, TAIL_CHECKS, triggerLog, undoneInLog, withoutExcused } from '../../support/gaps';
import { type Execution, httpRequest, type WorkflowJson } from '../../support/n8n/api';
import type { N8nProcess } from '../../support/n8n/instance';
import { type QueueStack, startQueueStack } from '../../support/n8n/queue';
import { emulatorWithCredential, UNREACHABLE_PUBLIC_URL } from '../../support/n8n/stack';
import { ACT_DEPTH, describeResult, expectActedOnceFinal, expectLedgerEqualsChain, expectNotifiedOnce, type RecordSetup, runSequence, sequenceSeeds, setUpRecipes, STREAM_EMULATOR } from '../../support/record';

const API_KEY = 'gaps-queue-key';
/**
 * The scripts' length here. gaps.e2e and record.e2e run the same scripts over 200 blocks in regular mode, where the
 * sequences of reorganisations and lost answers are explored; what queue mode adds is where each fault lands (webhook
 * processes, workers, the main's check), and every fault of a script is placed at a fraction of its length, so 100
 * blocks carry each of them at the price of half the stream.
 */
const QUEUE_SCRIPT_BLOCKS = 100;

/** Each test of the part where each process is at its job; the others give their own. */
jest.setTimeout(240_000);

let stack: QueueStack;
let setup: RecordSetup;
/** The load balancer's own address: the trigger's Internal Webhook Address, as docs/queue-mode.md says for this topology. */
let internalWebhookAddress: string;
/** Every line each n8n process printed, by process name (`main`, `webhook-1`, `worker-2`, ...). */
const logs = new Map<string, string[]>();

beforeAll(async () => {
	stack = await startQueueStack({
		apiKey: API_KEY,
		consumerSecret: 'e2e-gaps-queue-secret-0123456789abcdef',
		credentialName: 'Stacks Hooks API',
		emulator: GAPS_EMULATOR,
		// As docs/queue-mode.md asks with Respond: When the Workflow Finishes. n8n removes a
		// finished job from Redis at once by default, and a webhook process that starts waiting for
		// its job after a worker finished it never answers (Bull's job.finished() finds nothing and
		// waits for an event that has passed): about one delivery in a hundred, each stalled until the
		// service gives up (60 s in the exact part), as runs without this setting showed.
		env: { N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: '1000', N8N_EXECUTIONS_QUEUE_KEEP_LAST_FAILED: '1000' },
		publicUrl: UNREACHABLE_PUBLIC_URL,
		// What this suite shows does not depend on how n8n evaluates an expression, and the isolates of n8n's default
		// engine cost half the CPU of five processes (instance.ts, expressionEngine). record.e2e runs the recipes on it.
		expressionEngine: 'legacy',
		log: (line) => {
			const [, name, rest] = /^\[([^\]]+)\] (.*)$/.exec(line) ?? [];
			if (!logs.has(name)) logs.set(name, []);
			logs.get(name)!.push(rest);
		},
	});
	internalWebhookAddress = `https://127.0.0.1:${stack.balancer.port}`;
}, 10 * 60_000);

afterAll(async () => {
	// Every process's output, for a failure's post-mortem.
	const dump = path.join(os.tmpdir(), 'stacks-hooks-queue-e2e.log');
	fs.writeFileSync(dump, [...logs.entries()].map(([name, lines]) => lines.map((line) => `[${name}] ${line}`).join('\n')).join('\n'));
	console.log(`queue mode: every process's output is in ${dump}`);
	await setup?.receiver.close();
	await stack?.close();
}, 120_000);

/** Deactivates every active workflow of the stack: a part done with leaves the stack quiet for the next. */
async function deactivateAll(): Promise<void> {
	const { data } = (await stack.main.api.public('GET', '/workflows?active=true&limit=250')) as { data: Array<{ id: string }> };
	for (const { id } of data) await stack.main.api.deactivate(id);
}

describe("the trigger closes its own gaps (queue mode, two webhook processes, two workers, the public address unreachable, the Internal Webhook Address set)", () => {
	// The ledger recipe, active until the record part below (a part's own set-up, so that a run of one other part, or on
	// an n8n version without what the recipes need, does without it).
	beforeAll(async () => {
		setup = await setUpRecipes(stack.main, stack.emu, stack.postgres, stack.credential, { healthCheckMinutes: CHECK_MINUTES, internalWebhookAddress }, { ledgerOnly: true });
	}, 5 * 60_000);

	for (const [i, seed] of gapSeeds((Number(process.env.FC_SEED ?? Date.now()) + 3) | 0, 1).entries()) {
		it(`keeps the ledger equal to the chain through an outage of the webhook processes, a paused hook and silent drops (seed ${seed})`, async () => {
			const result = await runGapSequence(setup, {
				seed,
				tag: 40 + i,
				blocks: QUEUE_SCRIPT_BLOCKS,
				apiKey: API_KEY,
				faults: {
					down: async () => {
						for (const webhook of stack.webhooks) await webhook.crash();
					},
					revive: async () => {
						await Promise.all(stack.webhooks.map((webhook) => webhook.restart()));
					},
				},
				limitMs: 2 * CHECK_MS + 120_000,
				undoneReported: () => undoneInLog(stack.main.logs()),
			});
			console.log(describeGapResult('queue mode', result, seed));
			if (!Number.isFinite(result.settledAfterMs)) {
				const expected = new Set(result.script.expectedRows.map((row) => row.eventId));
				const extraBlocks = new Set(result.rows.filter((row) => !expected.has(row.eventId)).map((row) => row.blockHash));
				const story = stack.emu.deliveries
					.filter((report) => report.hookUuid === setup.ledger.hookUuid)
					.flatMap((report) =>
						(['rollback', 'apply'] as const).flatMap((direction) =>
							report.payload.event[direction]
								.filter((block) => extraBlocks.has(block.block_identifier.hash))
								.map((block) => `${new Date(report.at).toISOString().slice(11, 23)} ${direction} ${block.block_identifier.index} ${block.block_identifier.hash.slice(-8)} in ${report.direction} of ${report.blockHeight}: ${report.status ?? report.error}${report.silent ? ' SILENT' : ''}${report.dropped ? ' dropped' : ''} attempt ${report.attempt}`),
						),
					);
				console.log(`the trigger said:\n${triggerLog(stack.main)}\n\nthe extra blocks' deliveries:\n${story.join('\n')}`);
			}
			// Missing nothing; extra only the events of blocks the trigger reported undone without their rollback, or took just before the kill.
			expectLedgerEqualsChain({ script: result.script, rows: withoutExcused(result.rows, result.script.expectedRows, [...result.undone, ...result.unknowable]) });
			expect(Number.isFinite(result.settledAfterMs)).toBe(true);
			expect(result.faults.silentDrops).toBeGreaterThan(0);
			expect(result.faults.interruptions).toBe(1);

			await expectQuietTail(setup, result, { n8n: stack.main, emu: stack.emu });
			// The check heard the webhook processes at the Internal Webhook Address (blind only while both were down, and
			// then said nothing to the Error Workflow, which expectQuietTail checked); the main, which takes no delivery,
			// never counted on its own notes.
			expect(triggerLog(stack.main)).not.toMatch(/counts what this n8n process took itself/);
		}, 15 * 60_000);
	}
});

/** A trigger of its own on the stack (the trigger example, every block below matching it), and what is seen of its hook. */
async function ownTrigger(name: string, options: Record<string, unknown>) {
	const workflow = loadExample('trigger', stack.credential);
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE)!;
	trigger.webhookId = randomUUID();
	trigger.parameters = { ...(trigger.parameters as object), hookName: name, options: { healthCheckMinutes: CHECK_MINUTES, ...options } };
	const { id } = await stack.main.api.createWorkflow({ ...workflow, name });
	await stack.main.api.activate(id);
	const hook = () => stack.emu.hooks().find((candidate) => candidate.definition.name === name)!;
	const uuid = hook().uuid;
	return {
		id,
		uuid,
		enabled: () => hook().status.enabled,
		delivered: (at: number) => stack.emu.deliveries.some((report) => report.hookUuid === uuid && report.status === 200 && report.blockHeight === at),
		/** The heights the check replayed, since `since`. */
		evaluated: (since = 0) =>
			stack.emu.requests.filter((request) => request.at >= since && request.path.endsWith(`/me/${uuid}/evaluate`)).map((request) => (request.body as { block_height: number }).block_height),
		pause: () => fetch(`${stack.emu.url}/me/${uuid}/enabled`, { method: 'PATCH', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: false }) }),
		dropped: () => stack.emu.deliveries.find((report) => report.hookUuid === uuid && report.silent),
		alerts: () => alertsOf(stack.main, id),
	};
}

describe('queue mode where the check cannot hear the webhook processes: no Internal Webhook Address (the public address unreachable), or one that reaches the main process', () => {
	it('each catches a paused hook up, replays nothing on what it cannot see, leaves a silent drop unfound, and says once why', async () => {
		// Side by side on one stream: both triggers match every block below.
		const blind = await ownTrigger('Blind', {});
		// The main answers the check (its own production webhook) with its own notes: none, whatever the service delivers.
		const wrong = await ownTrigger('Address of the main', { internalWebhookAddress: stack.main.baseUrl });
		const both = [blind, wrong];
		let height = 4_900_000;
		const mine = () => stack.emu.injectBlock({ height: ++height, transactions: [{ kind: 'stx_transfer', sender: EXAMPLE_SENDER, recipient: 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG', amount: height }] });
		try {
			// A stream the checks cannot see: the webhook processes take it. The address of the main is found out meanwhile.
			for (const until = Date.now() + 8 * CHECK_MS; Date.now() < until; await sleep(600)) await mine();
			expect(both.map((trigger) => trigger.evaluated())).toEqual([[], []]);

			// Paused at the service: what it never evaluated meanwhile is replayed by the stopped-hook path, which needs no count.
			for (const trigger of both) await trigger.pause();
			const pausedFrom = height + 1;
			for (let i = 0; i < 6; i++) await mine();
			const paused = Array.from({ length: height - pausedFrom + 1 }, (_, i) => pausedFrom + i);
			for (const until = Date.now() + 10 * CHECK_MS; !both.every((trigger) => trigger.enabled()) && Date.now() < until; await sleep(250));
			expect(both.map((trigger) => trigger.enabled())).toEqual([true, true]);
			for (const until = Date.now() + 60_000; !both.every((trigger) => paused.every(trigger.delivered)) && Date.now() < until; await sleep(600)) await mine();
			expect(both.map((trigger) => paused.filter((at) => !trigger.delivered(at)))).toEqual([[], []]);
			const replayedForPause = both.map((trigger) => trigger.evaluated().length);
			// The paused heights, the reorganisation margin below them, and the blocks mined until the service evaluated again.
			for (const replays of replayedForPause) expect(replays).toBeLessThanOrEqual(paused.length + REORG_MARGIN + 15);

			// A delivery of each dropped without a word once the pause's catch-up is over (a live block's, not a replay's): not
			// found without a view of what arrived, as docs/nothing-missed.md says.
			const tail = await healthyTail(stack.emu, {
				hookUuid: () => blind.uuid,
				alsoQuiet: () => [wrong.uuid],
				fromHeight: height + 1,
				checks: TAIL_CHECKS,
				sender: EXAMPLE_SENDER,
				alerts: blind.alerts,
				whenQuiet: () => {
					for (const trigger of both) stack.emu.dropNextDeliveries(1, { hookUuid: trigger.uuid, appliesOnly: true });
				},
			});
			console.log(`blind check and the address of the main: ${paused.length} paused heights caught up with ${replayedForPause.join(' and ')} replays; ${describeTail(tail)}`);
			for (const trigger of both) {
				const dropped = trigger.dropped();
				expect(dropped).toBeDefined();
				// Nothing replayed in the tail, the dropped block included.
				expect(trigger.evaluated(tail.startedAt)).toEqual([]);
			}

			const [blindAlerts, wrongAlerts] = await Promise.all(both.map((trigger) => trigger.alerts()));
			console.log(`alerts: blind ${JSON.stringify(blindAlerts.map((alert) => alert.message))}; address of the main ${JSON.stringify(wrongAlerts.map((alert) => alert.message))}`);
			expect(blindAlerts).toHaveLength(1);
			expect(blindAlerts[0].message).toMatch(/cannot tell whether the blocks matching hook \S+ reach the workflow: over \d+ checks the service counted \d+ match\(es\), none reached this n8n process/);
			expect(blindAlerts[0].message).toContain(`could not be reached`);
			expect(blindAlerts[0].message).toContain(UNREACHABLE_PUBLIC_URL.replace(/\/$/, ''));
			expect(wrongAlerts).toHaveLength(1);
			expect(wrongAlerts[0].message).toMatch(/cannot tell whether the blocks matching hook \S+ reach the workflow: over \d+ checks the service counted \d+ match\(es\) at heights \d+-\d+ and kept the hook delivering/);
			expect(wrongAlerts[0].message).toContain(`${stack.main.baseUrl}/webhook/`);
			expect(wrongAlerts[0].message).toContain('(this main process itself)');
		} finally {
			for (const trigger of both) await stack.main.api.deactivate(trigger.id);
		}
	}, 6 * 60_000);
});

describe('Respond: When the Workflow Finishes (queue mode, two workers)', () => {
	let exact: RecordSetup;
	let closeEmulator: () => Promise<void>;

	beforeAll(async () => {
		// The ledger trigger above checks every 3 s: done with, it leaves this part the stack to itself.
		await deactivateAll();
		// An account of its own, at a service that retries for about 40 s and never gives up within the script.
		const { emu, credential } = await emulatorWithCredential(stack.main, {
			apiKey: 'record-queue-key',
			consumerSecret: 'e2e-record-queue-secret-0123456789abcdef',
			credentialName: 'Stacks Hooks API (exact)',
			emulator: STREAM_EMULATOR,
		});
		closeEmulator = () => emu.close();
		emu.routeDeliveries(UNREACHABLE_PUBLIC_URL, internalWebhookAddress);
		// The Backfill workflow is called where this machine reaches n8n: the load balancer (the public address is not).
		exact = await setUpRecipes(stack.main, emu, stack.postgres, credential, { internalWebhookAddress }, { webhookBaseUrl: `${internalWebhookAddress}/` });
	}, 5 * 60_000);

	afterAll(async () => {
		await deactivateAll();
		await exact?.receiver.close();
		await closeEmulator?.();
	}, 120_000);

	for (const [i, seed] of sequenceSeeds((Number(process.env.FC_SEED ?? Date.now()) + 2) | 0, 1).entries()) {
		it(`keeps the ledger equal to the chain and notifies exactly once, through reorgs, duplicates, a killed webhook process and a backfill (seed ${seed})`, async () => {
			const result = await runSequence(exact, {
				seed,
				tag: 20 + i,
				blocks: QUEUE_SCRIPT_BLOCKS,
				crash: async () => {
					const [webhook] = stack.webhooks;
					await webhook.crash();
					await webhook.restart();
				},
			});
			console.log(describeResult('in order, queue mode', result, seed));
			expectLedgerEqualsChain(result);
			expectLedgerEqualsChain(result, result.dataTableRows);
			const final = expectActedOnceFinal(result, ACT_DEPTH, false);
			console.log(`  act once final at depth ${ACT_DEPTH}: ${final.oracle.acted.size} events acted on, ${final.oracle.undone.size} undone after acting by deeper reorganisations`);
			expectNotifiedOnce(result, exact.emu, exact.notify!.hookUuid, false);
			// n8n answered every delivery that reached a live webhook process (the setting above).
			expect(result.attempts.timedOut).toBe(0);
			// n8n's record holds the workers' runs: one at least for each block carrying a transfer (six in ten of the script's).
			const executions = await stack.main.api.executions({ workflowId: exact.ledger.workflowId });
			expect(executions.filter((execution) => execution.status === 'success').length).toBeGreaterThan(QUEUE_SCRIPT_BLOCKS / 2);
		}, 15 * 60_000);
	}
});

// ---- Each process at its job ----

const QUEUE_KEY = 'queue-e2e-key';
const SECRET = '9e0e'.repeat(16);
const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
const WEBHOOK_ID = '4b1d6c3e-7a2f-4e59-9c08-5f3a2b1d0e7c';
const TRIGGER = 'n8n-nodes-stacks-hooks.stacksHooksTrigger';
const ACTION = 'n8n-nodes-stacks-hooks.stacksHooks';
/** Five n8n processes share 2 cores: executions may take a while to show up. */
const SLOW = { timeoutMs: 90_000 };

let main: QueueStack['main'];
let emu: Emulator;
let credential: { id: string; name: string };
let height = 5000;

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
			// As docs/queue-mode.md asks where the public address is not reachable from inside.
			parameters: { events: { filter: [{ type: 'stx_transfer', sender: ALICE }] }, options: { internalWebhookAddress } },
			credentials: { stacksHooksApi: credential },
		},
	],
	connections: {},
});

const transfers = (count: number) => ({
	height: ++height,
	transactions: Array.from({ length: count }, (_, i) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount: 1000 + i })),
});

const webhookPath = `webhook/${WEBHOOK_ID}/webhook`;
/** The production URL n8n registers: at its public address, which the service reaches as the load balancer. */
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

describe('each process at its job (queue mode, one execution at a time a worker)', () => {
	beforeAll(async () => {
		await deactivateAll();
		// One execution at a time per worker (n8n's N8N_CONCURRENCY_PRODUCTION_LIMIT, which a worker takes over its
		// --concurrency): two at once are then certainly on both workers.
		await Promise.all(
			stack.workers.map((worker) => {
				worker.env.N8N_CONCURRENCY_PRODUCTION_LIMIT = '1';
				return worker.restart();
			}),
		);
		main = stack.main;
		({ emu, credential } = await emulatorWithCredential(main, { apiKey: QUEUE_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks (queue mode)' }));
		emu.routeDeliveries(UNREACHABLE_PUBLIC_URL, internalWebhookAddress);
	}, 5 * 60_000);

	afterAll(() => emu?.close());

	describe('queue mode: main, 2 webhook processes, 2 workers, Redis, PostgreSQL', () => {
		let workflowId: string;
		let executions = 0;

		it('registers exactly one enabled hook for the production URL when the main process activates the workflow', async () => {
			workflowId = (await main.api.createWorkflow(triggerWorkflow())).id;
			await main.api.activate(workflowId);
			const hooks = emu.hooks(QUEUE_KEY);
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
			const [before] = emu.hooks(QUEUE_KEY);
			await main.restart();
			expect(emu.hooks(QUEUE_KEY).map((hook) => hook.uuid)).toEqual([before.uuid]);
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
			// Drained first, as docs/queue-mode.md asks: a webhook process stopped with deliveries in
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
			expect(emu.hooks(QUEUE_KEY)).toHaveLength(1);
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
			const parameters = workflow.nodes[0].parameters as { options: object };
			workflow.nodes[0].parameters = { ...parameters, options: { ...parameters.options, healthCheckMinutes: 0.05 } }; // every 3 s
			await main.api.updateWorkflow(workflowId, workflow);
			await main.api.activate(workflowId);
			const [hook] = emu.hooks(QUEUE_KEY);
			emu.interruptHook(hook.uuid);
			expect(await emu.injectBlock(transfers(1))).toEqual([]);
			for (const deadline = Date.now() + 20_000; emu.hooks(QUEUE_KEY)[0]?.status.status !== 'streaming' && Date.now() < deadline; ) await sleep(250);
			expect(emu.hooks(QUEUE_KEY)).toEqual([expect.objectContaining({ uuid: hook.uuid, status: expect.objectContaining({ enabled: true, status: 'streaming' }) })]);
			// The repair's log line can come a moment after the service sees the hook enabled.
			const healedBy = () => [...logs.entries()].filter(([, lines]) => lines.some((line) => line.includes(`enabled hook ${hook.uuid} again by the health check`))).map(([name]) => name);
			for (const deadline = Date.now() + 5_000; healedBy().length === 0 && Date.now() < deadline; ) await sleep(100);
			expect(healedBy()).toEqual(['main']);
			const [report] = await emu.injectBlock(transfers(1));
			expect(report.status).toBe(200);
			executions += 1;
			const done = await main.api.waitForExecutions(workflowId, executions, SLOW);
			// The block ran, once. The check that healed the hook may also save a failed execution: an alert that block
			// 5004 was taken again and again, which the test above caused by posting it 40 times with other transactions
			// (whether it fires depends on how many of those the restarted process answered). So runs are counted by block.
			const blockHash = report.payload.event.apply[0].block_identifier.hash;
			const runs = done.filter((execution) => execution.mode === 'webhook' && itemsOf(execution).some((item) => item.blockHash === blockHash));
			expect(runs.map((execution) => execution.status)).toEqual(['success']);
			executions = done.length;
		});

		it('delivers a test event to the main process, which runs it: the load balancer sends /webhook-test/ there', async () => {
			const testWebhookId = '2c7e4f1a-9b3d-4a6e-8f0c-1d2e3f4a5b6c';
			const { id } = await main.api.createWorkflow(triggerWorkflow(testWebhookId, 'Queue mode: test event'));
			await main.api.runManually(id, 'Stacks Hooks Trigger');
			const testHook = emu.hooks(QUEUE_KEY).find((hook) => hook.definition.action.url.includes(testWebhookId));
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
			const testHook = emu.hooks(QUEUE_KEY).find((hook) => hook.definition.action.url.includes(testWebhookId));
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
			expect(emu.hooks(QUEUE_KEY)).toEqual([]);
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
					headers: { 'x-api-key': QUEUE_KEY },
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
						credentials: { stacksHooksApi: credential },
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
});
