/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The recipes (README, Recipes) in n8n's queue mode: Redis, PostgreSQL (n8n's database, and the
 * ledger in a database of its own on the same server), a main process, two webhook processes and
 * two workers. Seeded chain scripts of 200 blocks and more with reorganisations (flip-flops
 * included), lost answers, one webhook process killed (SIGKILL) and restarted mid-stream, and one
 * overlapping Backfill: with "Respond: When the Workflow Finishes" both ledgers (PostgreSQL, n8n's Data
 * Table, which lives in n8n's database here) equal the canonical chain afterwards and Notify Once sent
 * each message exactly once (the workers are not killed, so
 * no execution is cut short). Regular mode: record.e2e.test.ts.
 *
 * RECORD_SEQUENCES=<n> runs n in-order scripts instead of one; RECORD_SEED=<seed> replays one.
 */
import { type QueueStack, startQueueStack } from '../../support/n8n/queue';
import { ACT_DEPTH, describeResult, expectActedOnceFinal, expectLedgerEqualsChain, expectNotifiedOnce, type RecordSetup, runSequence, sequenceSeeds, setUpRecipes, STREAM_EMULATOR } from '../../support/record';

let stack: QueueStack;
let setup: RecordSetup;

beforeAll(async () => {
	stack = await startQueueStack({
		apiKey: 'record-queue-key',
		consumerSecret: 'e2e-record-queue-secret-0123456789abcdef',
		credentialName: 'Stacks Hooks API',
		emulator: STREAM_EMULATOR,
		// As the README's Queue mode asks with Respond: When the Workflow Finishes. n8n removes a
		// finished job from Redis at once by default, and a webhook process that starts waiting for
		// its job after a worker finished it never answers (Bull's job.finished() finds nothing and
		// waits for an event that has passed): about one delivery in a hundred, each stalled until the
		// service gives up (60 s here), as runs without this setting showed.
		env: { N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: '1000', N8N_EXECUTIONS_QUEUE_KEEP_LAST_FAILED: '1000' },
	});
	setup = await setUpRecipes(stack.main, stack.emu, stack.postgres, stack.credential);
}, 10 * 60_000);

afterAll(async () => {
	await setup?.receiver.close();
	await stack?.close();
}, 120_000);

describe('Respond: When the Workflow Finishes (queue mode, two workers)', () => {
	for (const [i, seed] of sequenceSeeds((Number(process.env.FC_SEED ?? Date.now()) + 2) | 0, 1).entries()) {
		it(`keeps the ledger equal to the chain and notifies exactly once, through reorgs, duplicates, a killed webhook process and a backfill (seed ${seed})`, async () => {
			const result = await runSequence(setup, {
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
			expectNotifiedOnce(result, stack.emu, setup.notify!.hookUuid, false);
			// n8n answered every delivery that reached a live webhook process (the setting above).
			expect(result.attempts.timedOut).toBe(0);
			// The executions ran on both workers.
			const executions = await stack.main.api.executions({ workflowId: setup.ledger.workflowId });
			expect(executions.filter((execution) => execution.status === 'success').length).toBeGreaterThan(100);
		}, 15 * 60_000);
	}
});
