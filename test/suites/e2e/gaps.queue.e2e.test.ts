/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Nothing missed (README, Reliability) in n8n's queue mode: Redis, PostgreSQL, a main process (where
 * the health check runs), two webhook processes (where deliveries land, and where the trigger's own
 * webhook keeps what they took), two workers. The ledger recipe as users import it, its trigger
 * checking every 3 s, through a seeded 200-block script with reorganisations, lost answers, both
 * webhook processes killed for longer than the service's retries, the hook disabled at the service for
 * a while, and deliveries dropped without a word; nothing done by hand. Regular mode: gaps.e2e.test.ts.
 *
 * GAPS_SEQUENCES=<n> runs n scripts instead of one; GAPS_SEED=<seed> replays one.
 */
import { CHECK_MINUTES, CHECK_MS, describeGapResult, GAPS_EMULATOR, gapSeeds, runGapSequence, undoneInLog, withoutExcused } from '../../support/gaps';
import { type QueueStack, startQueueStack } from '../../support/n8n/queue';
import { expectLedgerEqualsChain, type RecordSetup, setUpRecipes } from '../../support/record';

const API_KEY = 'gaps-queue-key';

let stack: QueueStack;
const triggerLines = () => stack.main.logs().split('\n').filter((line) => line.includes('Stacks Hooks Trigger')).join('\n');
let setup: RecordSetup;

beforeAll(async () => {
	stack = await startQueueStack({
		apiKey: API_KEY,
		consumerSecret: 'e2e-gaps-queue-secret-0123456789abcdef',
		credentialName: 'Stacks Hooks API',
		emulator: GAPS_EMULATOR,
		// As the README's Queue mode asks with Respond: When the Workflow Finishes (record.queue.e2e.test.ts says why).
		env: { N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: '1000', N8N_EXECUTIONS_QUEUE_KEEP_LAST_FAILED: '1000' },
	});
	setup = await setUpRecipes(stack.main, stack.emu, stack.postgres, stack.credential, { healthCheckMinutes: CHECK_MINUTES }, { ledgerOnly: true });
}, 10 * 60_000);

afterAll(async () => {
	await setup?.receiver.close();
	await stack?.close();
}, 120_000);

describe('the trigger closes its own gaps (queue mode, two webhook processes, two workers)', () => {
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
				console.log(`the trigger said:\n${triggerLines()}\n\nthe extra blocks' deliveries:\n${story.join('\n')}`);
			}
			// Missing nothing; extra only the events of blocks the trigger reported undone without their rollback, or took just before the kill.
			expectLedgerEqualsChain({ script: result.script, rows: withoutExcused(result.rows, result.script.expectedRows, [...result.undone, ...result.unknowable]) });
			expect(Number.isFinite(result.settledAfterMs)).toBe(true);
			expect(result.faults.silentDrops).toBeGreaterThan(0);
			expect(result.faults.interruptions).toBe(1);
		}, 15 * 60_000);
	}
});
