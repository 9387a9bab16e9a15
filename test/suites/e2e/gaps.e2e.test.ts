/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Nothing missed (README, Reliability), in one real n8n (regular mode) with a real PostgreSQL: the
 * ledger recipe as users import it, its trigger checking every 3 s, and seeded 200-block chain
 * scripts with reorganisations, lost answers, an n8n outage longer than the service's retries, the
 * hook disabled at the service for a while, and deliveries the service drops without a word. No step
 * does what a user would do by hand; the ledger must equal the canonical chain within two check
 * intervals (and the time the replays take) of the last fault.
 *
 * Then the alerts: the workflow's Error Workflow runs once for a stalled hook, once for a gap over
 * the Catch-Up Limit and once for a delivery the workflow keeps failing on, and not on a healthy
 * stream. Queue mode: gaps.queue.e2e.test.ts.
 *
 * GAPS_SEQUENCES=<n> runs n scripts instead of one; GAPS_SEED=<seed> replays one.
 */
import { type Postgres, startPostgres } from '../../support/n8n/servers';
import { startStack, type Stack } from '../../support/n8n/stack';
import { CHECK_MINUTES, CHECK_MS, describeGapResult, GAPS_EMULATOR, gapSeeds, runGapSequence } from '../../support/gaps';
import { expectLedgerEqualsChain, LEDGER_DATABASE, type RecordSetup, setUpRecipes } from '../../support/record';

const API_KEY = 'gaps-test-key';
const SECRET = 'e2e-gaps-consumer-secret-0123456789abcdef';

let stack: Stack;
let postgres: Postgres;
let setup: RecordSetup;

beforeAll(async () => {
	[stack, postgres] = await Promise.all([
		startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks API', emulator: GAPS_EMULATOR }),
		startPostgres(LEDGER_DATABASE),
	]);
	setup = await setUpRecipes(stack.n8n, stack.emu, postgres, stack.credential, { healthCheckMinutes: CHECK_MINUTES });
}, 10 * 60_000);

afterAll(async () => {
	await setup?.receiver.close();
	await stack?.close();
	await postgres?.stop();
}, 120_000);

describe('the trigger closes its own gaps (regular mode)', () => {
	for (const [i, seed] of gapSeeds(Number(process.env.FC_SEED ?? Date.now()) | 0, 1).entries()) {
		it(`keeps the ledger equal to the chain through an outage, a paused hook and silent drops, with nothing done by hand (seed ${seed})`, async () => {
			const result = await runGapSequence(setup, {
				seed,
				tag: 30 + i,
				blocks: 200,
				apiKey: API_KEY,
				faults: { down: () => stack.n8n.crash(), revive: () => stack.n8n.restart() },
				// Two check intervals, and the replays and their executions.
				limitMs: 2 * CHECK_MS + 20_000,
			});
			console.log(describeGapResult('regular mode', result, seed));
			expectLedgerEqualsChain({ script: result.script, rows: result.rows } as Parameters<typeof expectLedgerEqualsChain>[0]);
			expect(result.faults.silentDrops).toBeGreaterThan(0);
			expect(result.faults.interruptions).toBe(1);
		}, 15 * 60_000);
	}
});
