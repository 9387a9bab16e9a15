/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The ledger recipes (README, Recipes; Reliability) in n8n's queue mode, on one stack: Redis, PostgreSQL
 * (n8n's database, and the ledger in a database of its own on the same server), a main process (where
 * the health check runs), two webhook processes (where deliveries land, and where the trigger's own
 * webhook keeps what they took), two workers, behind a load balancer. n8n's public webhook address
 * (N8N_WEBHOOK_URL) is one the service reaches and no n8n process can (behind an ingress, no hairpin
 * NAT), so the main reaches the webhook processes only at the trigger's Internal Webhook Address, the
 * load balancer's own. One stack for both parts, each with an account and an emulator of its own (their
 * services retry differently): a queue stack is five n8n starts, and CI's time goes to n8n's CPU.
 *
 * Nothing missed: the ledger recipe as users import it, its trigger checking every 3 s, through a seeded
 * 200-block script with reorganisations, lost answers, both webhook processes killed for longer than
 * the service's retries, the hook disabled at the service for a while, and deliveries dropped without
 * a word; nothing done by hand; then a healthy tail: one GET a check, nothing replayed, no alert.
 * Without it, and with it set to the main process (which answers the check with its own notes, and
 * takes no delivery), side by side in the same stack: a paused hook still caught up, no replay driven
 * by counts, a drop left unfound as the README says, and exactly one alert each: that the check is
 * blind, or that the notes heard at that address never hold a delivery, naming it.
 *
 * Exact: seeded chain scripts of 200 blocks and more with reorganisations (flip-flops included), lost
 * answers, one webhook process killed (SIGKILL) and restarted mid-stream, and one overlapping Backfill:
 * with "Respond: When the Workflow Finishes" both ledgers (PostgreSQL, n8n's Data Table, which lives in
 * n8n's database here) equal the canonical chain afterwards and Notify Once sent each message exactly
 * once (the workers are not killed, so no execution is cut short).
 *
 * Regular mode: gaps.e2e.test.ts and record.e2e.test.ts. GAPS_SEQUENCES=<n> and RECORD_SEQUENCES=<n>
 * run n scripts instead of one; GAPS_SEED=<seed> and RECORD_SEED=<seed> replay one.
 */
import { randomUUID } from 'crypto';
import { setTimeout as sleep } from 'timers/promises';

import { REORG_MARGIN } from '../../../nodes/StacksHooksTrigger/healthCheck/model/gapPlan';
import { EXAMPLE_SENDER, loadExample, TRIGGER_TYPE } from '../../support/examples';
import { alertsOf, CHECK_MINUTES, CHECK_MS, describeGapResult, describeTail, expectQuietTail, GAPS_EMULATOR, gapSeeds, healthyTail, runGapSequence, TAIL_CHECKS, triggerLog, undoneInLog, withoutExcused } from '../../support/gaps';
import { type QueueStack, startQueueStack } from '../../support/n8n/queue';
import { emulatorWithCredential, UNREACHABLE_PUBLIC_URL } from '../../support/n8n/stack';
import { ACT_DEPTH, describeResult, expectActedOnceFinal, expectLedgerEqualsChain, expectNotifiedOnce, type RecordSetup, runSequence, sequenceSeeds, setUpRecipes, STREAM_EMULATOR } from '../../support/record';

const API_KEY = 'gaps-queue-key';

let stack: QueueStack;
let setup: RecordSetup;
/** The load balancer's own address: the trigger's Internal Webhook Address, as the README's Queue mode says for this topology. */
let internalWebhookAddress: string;

beforeAll(async () => {
	stack = await startQueueStack({
		apiKey: API_KEY,
		consumerSecret: 'e2e-gaps-queue-secret-0123456789abcdef',
		credentialName: 'Stacks Hooks API',
		emulator: GAPS_EMULATOR,
		// As the README's Queue mode asks with Respond: When the Workflow Finishes. n8n removes a
		// finished job from Redis at once by default, and a webhook process that starts waiting for
		// its job after a worker finished it never answers (Bull's job.finished() finds nothing and
		// waits for an event that has passed): about one delivery in a hundred, each stalled until the
		// service gives up (60 s in the exact part), as runs without this setting showed.
		env: { N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: '1000', N8N_EXECUTIONS_QUEUE_KEEP_LAST_FAILED: '1000' },
		publicUrl: UNREACHABLE_PUBLIC_URL,
	});
	internalWebhookAddress = `https://127.0.0.1:${stack.balancer.port}`;
	setup = await setUpRecipes(stack.main, stack.emu, stack.postgres, stack.credential, { healthCheckMinutes: CHECK_MINUTES, internalWebhookAddress }, { ledgerOnly: true });
}, 10 * 60_000);

afterAll(async () => {
	await setup?.receiver.close();
	await stack?.close();
}, 120_000);

describe("the trigger closes its own gaps (queue mode, two webhook processes, two workers, the public address unreachable, the Internal Webhook Address set)", () => {
	for (const [i, seed] of gapSeeds((Number(process.env.FC_SEED ?? Date.now()) + 3) | 0, 1).entries()) {
		it(`keeps the ledger equal to the chain through an outage of the webhook processes, a paused hook and silent drops (seed ${seed})`, async () => {
			const result = await runGapSequence(setup, {
				seed,
				tag: 40 + i,
				blocks: 200,
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
			// found without a view of what arrived, as the README says.
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
		await stack.main.api.deactivate(setup.ledger.workflowId);
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
		await exact?.receiver.close();
		await closeEmulator?.();
	}, 60_000);

	for (const [i, seed] of sequenceSeeds((Number(process.env.FC_SEED ?? Date.now()) + 2) | 0, 1).entries()) {
		it(`keeps the ledger equal to the chain and notifies exactly once, through reorgs, duplicates, a killed webhook process and a backfill (seed ${seed})`, async () => {
			const result = await runSequence(exact, {
				seed,
				tag: 20 + i,
				blocks: 200,
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
			// The executions ran on both workers.
			const executions = await stack.main.api.executions({ workflowId: exact.ledger.workflowId });
			expect(executions.filter((execution) => execution.status === 'success').length).toBeGreaterThan(100);
		}, 15 * 60_000);
	}
});
