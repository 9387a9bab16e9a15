/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The recipes (docs/recipes.md) in one real n8n (regular mode) with a real PostgreSQL, imported as
 * they are (each creates its table): seeded chain scripts of 200 blocks and more, with reorganisations
 * of depth 1 to 3 (flip-flops included), lost answers (duplicates, retries), one SIGKILL of n8n
 * mid-stream and one overlapping Backfill. With "Respond: When the Workflow Finishes", afterwards both
 * ledgers (PostgreSQL, n8n's Data Table) equal the canonical chain and Notify Once sent what it
 * promises, also past the 1,000,000 announcements where its Remove Duplicates used to stop. With "Immediately", a slow write lets a rollback overtake the apply it
 * undoes, and the ledger keeps an event the chain dropped: shown, deterministically, by holding the
 * apply's row lock. The queue-mode runs are in queue.e2e.test.ts.
 *
 * RECORD_SEQUENCES=<n> runs n in-order scripts instead of one; RECORD_SEED=<seed> replays one.
 */
import { setTimeout as sleep } from 'timers/promises';

import type { Emulator } from '../../emulator';
import type { WorkflowJson } from '../../support/n8n/api';
import { type Postgres, startPostgres } from '../../support/n8n/servers';
import { startStack, type Stack } from '../../support/n8n/stack';
import { transfersOf } from '../../support/chainScript';
import {
	ACT_DEPTH,
	clearLedger,
	describeResult,
	expectActedOnceFinal,
	expectLedgerEqualsChain,
	expectNotifiedOnce,
	heightsOfTag,
	hookNamed,
	LEDGER_DATABASE,
	ledgerRows,
	type RecordSetup,
	runSequence,
	sequenceSeeds,
	setUpRecipes,
	STREAM_EMULATOR,
} from '../../support/record';

const API_KEY = 'record-test-key';
const SECRET = 'e2e-record-consumer-secret-0123456789abcdef';

let stack: Stack;
let postgres: Postgres;
let setup: RecordSetup;
let emu: Emulator;

beforeAll(async () => {
	[stack, postgres] = await Promise.all([
		startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks API', emulator: STREAM_EMULATOR }),
		startPostgres(LEDGER_DATABASE),
	]);
	emu = stack.emu;
	setup = await setUpRecipes(stack.n8n, emu, postgres, stack.credential);
}, 10 * 60_000);

afterAll(async () => {
	await setup?.receiver.close();
	await stack?.close();
	await postgres?.stop();
}, 120_000);

/** The ledger recipe's trigger set to respond `mode`, and re-activated (with a new hook). */
async function respond(mode: 'onReceived' | 'lastNode'): Promise<void> {
	const { n8n } = stack;
	const workflow = await n8n.api.getWorkflow(setup.ledger.workflowId);
	const nodes = workflow.nodes.map((node) => (node.name === 'Stacks Hooks Trigger' ? { ...node, parameters: { ...(node.parameters as object), responseMode: mode } } : node));
	await n8n.api.deactivate(setup.ledger.workflowId);
	await n8n.api.updateWorkflow(setup.ledger.workflowId, { name: workflow.name, nodes, connections: workflow.connections, settings: workflow.settings } as WorkflowJson);
	await n8n.api.activate(setup.ledger.workflowId);
	// Deactivation deleted the hook; activation registered a new one.
	setup.ledger.hookUuid = hookNamed(emu, 'Ledger');
}

/** The heights of this file's own test blocks (900_001 …): tag 9's range. */
const TEST_BLOCKS = heightsOfTag(9);

/** A block with one transfer, and the fork that replaces it (another transfer), at `height`. */
function blockAndFork(height: number, tag: string) {
	const transfer = (n: number) => ({ kind: 'stx_transfer' as const, sender: 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM', recipient: 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG', amount: 1000 + n, txid: `0x${tag}${String(n).padStart(64 - tag.length, '0')}` });
	const block = { height, hash: `0x${tag}${'a'.repeat(64 - tag.length)}`, transactions: [transfer(1)] };
	const fork = { height, hash: `0x${tag}${'b'.repeat(64 - tag.length)}`, transactions: [transfer(2)] };
	return { block, fork, blockRow: transfersOf(block)[0], forkRow: transfersOf(fork)[0] };
}

/** The apply's first row held by another transaction: its write waits, as behind a slow database. */
const holdRow = (eventId: string) =>
	postgres.hold(`INSERT INTO stacks_events (event_id, block_height, block_hash, tx_hash, event_type) VALUES ('${eventId}', 0, 'held', 'held', 'held')`, LEDGER_DATABASE);

const ledgerDeliveries = () => emu.deliveries.filter((report) => report.hookUuid === setup.ledger.hookUuid && report.error === undefined);

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
	for (const deadline = Date.now() + timeoutMs; !(await check()); await sleep(200)) if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
}

describe('Respond: When the Workflow Finishes (regular mode)', () => {
	for (const [i, seed] of sequenceSeeds(Number(process.env.FC_SEED ?? Date.now()) | 0, 1).entries()) {
		it(`keeps the ledger equal to the chain and notifies once, through reorgs, duplicates, a SIGKILL and a backfill (seed ${seed})`, async () => {
			const result = await runSequence(setup, {
				seed,
				tag: 10 + i,
				blocks: 200,
				crash: async () => {
					await stack.n8n.crash();
					await stack.n8n.restart();
				},
			});
			console.log(describeResult('in order, regular mode', result, seed));
			expectLedgerEqualsChain(result);
			expectLedgerEqualsChain(result, result.dataTableRows);
			const final = expectActedOnceFinal(result, ACT_DEPTH, true);
			console.log(`  act once final at depth ${ACT_DEPTH}: ${final.oracle.acted.size} events acted on, ${final.oracle.undone.size} undone after acting by deeper reorganisations; ${final.actedTwice} acted on twice (the execution the SIGKILL cut short)`);
			const { lostToTheCrash } = expectNotifiedOnce(result, emu, setup.notify!.hookUuid, true);
			if (lostToTheCrash) console.log(`  ${lostToTheCrash} messages of the delivery the SIGKILL cut short were not sent (at most once)`);
			// The SIGKILL cut deliveries short, and the service sent them again.
			expect(result.attempts.failed).toBeGreaterThan(0);
		}, 15 * 60_000);
	}

	it('answers a delivery whose workflow failed 500, and the service sends it again until the ledger has it', async () => {
		await clearLedger(postgres);
		const { block, blockRow } = blockAndFork(900_003, 'fa11ed');
		const before = emu.deliveries.length;
		const attempts = () => emu.deliveries.slice(before).filter((report) => report.hookUuid === setup.ledger.hookUuid);
		// The table refusing every new row for a while: the Postgres node fails, so the workflow does.
		await postgres.query('ALTER TABLE stacks_events ADD CONSTRAINT refuse_all CHECK (false) NOT VALID', LEDGER_DATABASE);
		let delivered: Promise<unknown> | undefined;
		try {
			delivered = emu.injectBlock(block);
			await until('two failed attempts', () => attempts().length >= 2);
		} finally {
			await postgres.query('ALTER TABLE stacks_events DROP CONSTRAINT refuse_all', LEDGER_DATABASE);
		}
		await delivered;
		await emu.settled();
		const statuses = attempts().map((report) => report.status);
		expect(statuses.slice(0, -1).every((status) => status === 500)).toBe(true);
		expect(statuses.length).toBeGreaterThanOrEqual(3);
		expect(statuses.at(-1)).toBe(200);
		expect((await ledgerRows(postgres, TEST_BLOCKS)).map((row) => row.eventId)).toEqual([blockRow.eventId]);
	}, 5 * 60_000);

	it('notifies once past the 1,000,000 announcements where Remove Duplicates stopped, and a re-sent delivery sends nothing again', async () => {
		// The record as a million announcements of old events leave it (Remove Duplicates' historySize in the old recipe).
		const HISTORY = 1_000_000;
		await postgres.query(
			`INSERT INTO stacks_announcements (event_id, direction) SELECT 'old:' || g, CASE WHEN g % 10 = 0 THEN 'rollback' ELSE 'apply' END FROM generate_series(1, ${HISTORY}) g ON CONFLICT DO NOTHING`,
			LEDGER_DATABASE,
		);
		expect(Number((await postgres.query('SELECT count(*) FROM stacks_announcements', LEDGER_DATABASE))[0][0])).toBeGreaterThan(HISTORY);
		const { block, fork, blockRow, forkRow } = blockAndFork(900_004, 'b16b16');
		const mine = () => setup.receiver.messages.filter((message) => [blockRow.eventId, forkRow.eventId].includes(message.eventId)).map((m) => `${m.direction} ${m.eventId}`);
		const notifyAttempts = () => emu.deliveries.filter((report) => report.hookUuid === setup.notify!.hookUuid && report.payload.event.apply.some((b) => b.block_identifier.index === 900_004));
		// The block's answer lost once: the service sends the same delivery again.
		emu.loseNextAnswers(1, { hookUuid: setup.notify!.hookUuid });
		await emu.injectBlock(block);
		await emu.injectReorg([block], [fork]);
		await emu.settled();
		await until('the messages', () => mine().length >= 3);
		await sleep(1000);
		expect(mine().sort()).toEqual([`apply ${blockRow.eventId}`, `apply ${forkRow.eventId}`, `rollback ${blockRow.eventId}`].sort());
		expect(notifyAttempts().length).toBeGreaterThanOrEqual(2);
	}, 5 * 60_000);
});

describe('Respond: Immediately (the default)', () => {
	beforeAll(async () => {
		// Only the PostgreSQL ledger is under test here: the other recipes would process every delivery of
		// the script for nothing (CI's time). The suite ends after this block, so they stay off.
		for (const recipe of [setup.notify, setup.dataTable, setup.act]) await stack.n8n.api.deactivate(recipe!.workflowId);
	}, 120_000);

	afterAll(async () => {
		await respond('lastNode');
	}, 120_000);

	it('lets a reorganisation overtake a slow apply: the ledger keeps the event the chain dropped; When the Workflow Finishes does not', async () => {
		await clearLedger(postgres);
		// Immediately: the apply is answered at once, so the reorganisation follows while its write still waits.
		await respond('onReceived');
		const first = blockAndFork(900_001, 'dead01');
		const held = await holdRow(first.blockRow.eventId);
		try {
			const before = ledgerDeliveries().length;
			const applying = emu.injectBlock(first.block);
			const reorganising = emu.injectReorg([first.block], [first.fork]);
			await Promise.all([applying, reorganising]);
			expect(ledgerDeliveries().length - before).toBe(2);
			await until('the reorganisation written', async () => (await ledgerRows(postgres, TEST_BLOCKS)).some((row) => row.eventId === first.forkRow.eventId));
		} finally {
			await held.release();
		}
		await until('the apply written', async () => (await ledgerRows(postgres, TEST_BLOCKS)).some((row) => row.eventId === first.blockRow.eventId));
		expect((await ledgerRows(postgres, TEST_BLOCKS)).map((row) => row.eventId).sort()).toEqual([first.blockRow.eventId, first.forkRow.eventId].sort());

		// When the Workflow Finishes: the service holds the reorganisation back until the apply's workflow has run.
		await clearLedger(postgres);
		await respond('lastNode');
		const second = blockAndFork(900_002, 'dead02');
		const heldAgain = await holdRow(second.blockRow.eventId);
		let settled: Promise<unknown>;
		try {
			const sentBefore = emu.deliveries.length;
			settled = Promise.all([emu.injectBlock(second.block), emu.injectReorg([second.block], [second.fork])]);
			await sleep(3000);
			const postedMeanwhile = emu.deliveries.slice(sentBefore).filter((report) => report.hookUuid === setup.ledger.hookUuid);
			expect(postedMeanwhile).toEqual([]);
		} finally {
			await heldAgain.release();
		}
		await settled;
		expect((await ledgerRows(postgres, TEST_BLOCKS)).map((row) => row.eventId)).toEqual([second.forkRow.eventId]);
	}, 5 * 60_000);

	it('on a whole script, the ledger can only be wrong about events a reorganisation touched', async () => {
		await respond('onReceived');
		const [seed] = sequenceSeeds((Number(process.env.FC_SEED ?? Date.now()) + 1) | 0, 1);
		// Tag 8: below the in-order scripts' 10, 11, … however many RECORD_SEQUENCES asks for. 100 blocks: the claim is
		// about each reorganisation (about 30 of them here), and the in-order script above runs the 200-block stream.
		const result = await runSequence(setup, { seed, tag: 8, blocks: 100, crash: async () => {}, backfill: false });
		const expected = new Set(result.script.expectedRows.map((row) => row.eventId));
		const actual = new Set(result.rows.map((row) => row.eventId));
		const extra = [...actual].filter((id) => !expected.has(id));
		const missing = [...expected].filter((id) => !actual.has(id));
		console.log(`${describeResult('immediately, regular mode', result, seed)}; ledger differs from the chain by ${extra.length} extra and ${missing.length} missing rows`);
		expect(extra.filter((id) => !result.script.rolledBack.has(id))).toEqual([]);
		expect(missing.filter((id) => !result.script.rolledBack.has(id))).toEqual([]);
	}, 15 * 60_000);
});
