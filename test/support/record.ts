/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The record suites' common part (test/suites/e2e/record*.e2e.test.ts): the four recipes
 * (test/examples/workflows/ledger-postgres.json, ledger-data-table.json, notify-once.json and
 * act-once-final.json, its depth set to ACT_DEPTH)
 * imported into a real n8n as they are, with nothing set up by hand (each creates its table on its
 * first delivery: the PostgreSQL ones in a database of their own, the Data Table one in n8n's), the
 * notifications sent to a local receiver, and a seeded chain script (chainScript.ts) streamed through
 * the emulator, with one SIGKILL of n8n mid-stream and one Backfill overlapping what was delivered;
 * then both ledgers, the messages and the actions checked against the script's oracle.
 */
import { randomUUID } from 'crypto';
import * as http from 'http';
import type { AddressInfo } from 'net';
import { setTimeout as sleep } from 'timers/promises';

import { type BlockInput, type DeliveryReport, type Emulator, NO_ANSWER } from '../emulator';
import { type ChainScript, chainScript, type LedgerRow, transfersOf } from './chainScript';
import { ACTION_TYPE, CREDENTIAL_TYPE, loadExample, TRIGGER_TYPE } from './examples';
import type { WorkflowJson } from './n8n/api';
import type { N8nInstance } from './n8n/instance';
import type { Postgres } from './n8n/servers';

export const LEDGER_DATABASE = 'ledger';

/** The service's side for these suites: retries long enough to outlast an n8n restart, no interruption. */
export const STREAM_EMULATOR = {
	retryDelaysMs: [250, 500, 1000, 2000, 4000, 8000, 8000, 8000, 8000],
	interruptAfterFailures: 1000,
	deliveryTimeoutMs: 60_000,
};

/** The Data Table recipe's table, as its *Ensure the table* node names it. */
export const DATA_TABLE_NAME = 'Stacks ledger';

/** Empties the PostgreSQL ledger's table, when the recipe has created it already. */
export async function clearLedger(postgres: Postgres): Promise<void> {
	await postgres.query(`DO $$ BEGIN IF to_regclass('stacks_events') IS NOT NULL THEN TRUNCATE stacks_events; END IF; END $$`, LEDGER_DATABASE);
}

export interface Message {
	eventId: string;
	/** Notify Once's announcements and corrections; Act Once Final's actions and its reports of an acted event undone. */
	direction: 'apply' | 'rollback' | 'final' | 'undone';
	text: string;
}

/** Act Once Final's depth in these suites (the recipe ships with 6): the scripts' reorganisations of depth 3 then undo events already acted on. */
export const ACT_DEPTH = 2;

/** The notify recipe's messages, as a chat's webhook would receive them (HTTP, 127.0.0.1). */
export interface Receiver {
	url: string;
	messages: Message[];
	close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
	const messages: Message[] = [];
	const server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
		req.on('end', () => {
			messages.push(JSON.parse(body) as Message);
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`,
		messages,
		close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
	};
}

export interface RecordSetup {
	n8n: N8nInstance;
	emu: Emulator;
	postgres: Postgres;
	receiver: Receiver;
	stacksCredential: { id: string; name: string };
	/** Workflow ids of the recipes, and their hooks at the emulator (the PostgreSQL ledger's alone with `ledgerOnly`). */
	ledger: { workflowId: string; hookUuid: string };
	notify?: { workflowId: string; hookUuid: string };
	dataTable?: { workflowId: string; hookUuid: string };
	act?: { workflowId: string; hookUuid: string };
	/** Where the test calls n8n's production webhooks (the Backfill workflow's): n8n's public address, unless told. */
	webhookBaseUrl: string;
}

/**
 * The recipes with this n8n's credentials and the receiver's address, as a user sets them up; `triggerOptions` set on
 * their triggers' Options. Each set-up's triggers get webhook paths of their own: queue.e2e sets the recipes up twice on
 * one stack, and there the second set-up's activation once answered 409 "There is a conflict with one of the
 * webhooks." (on the legacy expression engine, whose deliveries come faster). n8n 2.41's code allows it: its
 * `WebhookService.deleteWebhooks` deletes a deactivated workflow's cache entries (Redis in queue mode) without waiting,
 * then the rows, and a delivery looked up in between puts the row back in the cache, where another workflow's
 * activation on the same path finds it.
 */
function recipes(
	stacks: { id: string; name: string },
	postgres: { id: string; name: string },
	receiverUrl: string,
	triggerOptions: Record<string, unknown> = {},
): { ledger: WorkflowJson; notify: WorkflowJson; dataTable: WorkflowJson; act: WorkflowJson } {
	const ledger = loadExample('ledger', stacks);
	const notify = loadExample('notify', stacks);
	const dataTable = loadExample('ledgerDataTable', stacks);
	const act = loadExample('actOnceFinal', stacks);
	const all = [...ledger.nodes, ...notify.nodes, ...dataTable.nodes, ...act.nodes];
	for (const node of all) {
		const parameters = node.parameters as Record<string, unknown>;
		if ((node.credentials as Record<string, unknown> | undefined)?.postgres) node.credentials = { postgres };
		if (node.type === 'n8n-nodes-base.httpRequest') parameters.url = receiverUrl;
		if (node.type === TRIGGER_TYPE) {
			parameters.options = { ...(parameters.options as object), ...triggerOptions };
			node.webhookId = randomUUID();
		}
	}
	// The depth, where the recipe's note says to change it.
	const final = act.nodes.find((node) => node.name === 'Final now')!.parameters as { options: { queryReplacement: string } };
	if (!final.options.queryReplacement.endsWith(', 6] }}')) throw new Error(`act-once-final.json: the depth is no longer where this test sets it: ${final.options.queryReplacement}`);
	final.options.queryReplacement = final.options.queryReplacement.replace(/, 6\] \}\}$/, `, ${ACT_DEPTH}] }}`);
	return { ledger, notify, dataTable, act };
}

/** The uuid of the recipe's hook at the emulator (a trigger registers a new one on each activation). */
export function hookNamed(emu: Emulator, name: 'Ledger' | 'Notify once' | string): string {
	const hook = emu.hooks().find((candidate) => candidate.definition.name === name);
	if (!hook) throw new Error(`no hook named ${name} at the emulator: ${JSON.stringify(emu.hooks().map((h) => h.definition.name))}`);
	return hook.uuid;
}

/** Creates the ledger's database (a user's, empty), the credentials, and the recipes, active, in `n8n`: their tables they create themselves. */
export async function setUpRecipes(
	n8n: N8nInstance,
	emu: Emulator,
	postgres: Postgres,
	stacksCredential: { id: string; name: string },
	triggerOptions: Record<string, unknown> = {},
	opts: { ledgerOnly?: boolean; webhookBaseUrl?: string } = {},
): Promise<RecordSetup> {
	// Once per server: the queue suite sets up two accounts' recipes on one stack, each script in heights of its own.
	const [[exists]] = await postgres.query(`SELECT count(*) FROM pg_database WHERE datname = '${LEDGER_DATABASE}'`);
	if (exists === '0') await postgres.query(`CREATE DATABASE ${LEDGER_DATABASE}`);
	const pgCredential = await n8n.api.createCredential({
		name: 'Ledger database',
		type: 'postgres',
		data: { host: postgres.host, port: postgres.port, database: LEDGER_DATABASE, user: postgres.user, password: 'trust-auth', ssl: 'disable', allowUnauthorizedCerts: false, maxConnections: 10, sshTunnel: false },
	});
	const receiver = await startReceiver();
	const { ledger, notify, dataTable, act } = recipes(stacksCredential, { id: pgCredential.id, name: pgCredential.name }, receiver.url, triggerOptions);
	const ids: string[] = [];
	for (const workflow of opts.ledgerOnly ? [ledger] : [ledger, notify, dataTable, act, backfillWorkflow(stacksCredential)]) {
		const { id } = await n8n.api.createWorkflow(workflow);
		await n8n.api.activate(id);
		ids.push(id);
	}
	const hookOf = (name: string) => hookNamed(emu, name);
	return {
		n8n,
		emu,
		postgres,
		receiver,
		stacksCredential,
		webhookBaseUrl: opts.webhookBaseUrl ?? n8n.webhookBaseUrl,
		ledger: { workflowId: ids[0], hookUuid: hookOf('Ledger') },
		...(!opts.ledgerOnly && {
			notify: { workflowId: ids[1], hookUuid: hookOf('Notify once') },
			dataTable: { workflowId: ids[2], hookUuid: hookOf('Ledger (Data Table)') },
			act: { workflowId: ids[3], hookUuid: hookOf('Act once final') },
		}),
	};
}

/** Heights a script of `tag` uses: each script, and each test block, has a range of its own. */
export const heightsOfTag = (tag: number): [number, number] => [tag * 100_000, tag * 100_000 + 99_999];

/**
 * The ledger table's rows at the heights `range` (a script's own), as rows comparable with the oracle's, by event id.
 * A suite's scripts share the table: the trigger can still be replaying an earlier script's heights (its health check
 * closes gaps on its own), which is right for that script and no business of this one's.
 */
export async function ledgerRows(postgres: Postgres, [from, to]: [number, number]): Promise<LedgerRow[]> {
	// The recipe creates its table on its first delivery: none yet, no rows.
	const [[table]] = await postgres.query(`SELECT coalesce(to_regclass('stacks_events')::text, '-')`, LEDGER_DATABASE);
	if (table === '-') return [];
	const rows = await postgres.query(
		`SELECT event_id, block_height, block_hash, tx_hash, sender, recipient, amount FROM stacks_events WHERE block_height BETWEEN ${from} AND ${to} ORDER BY event_id`,
		LEDGER_DATABASE,
	);
	return rows.map(([eventId, blockHeight, blockHash, txHash, sender, recipient, amount]) => ({ eventId, blockHeight: Number(blockHeight), blockHash, txHash, sender, recipient, amount }));
}

/** The Data Table recipe's table as n8n's public API lists it (with its size as n8n counts it), once the recipe has created it. */
export async function findDataTable(n8n: Pick<N8nInstance, 'api'>): Promise<{ id: string; name: string; sizeBytes?: number } | undefined> {
	const tables = (await n8n.api.public('GET', `/data-tables?filter=${encodeURIComponent(JSON.stringify({ name: DATA_TABLE_NAME }))}`)) as { data: Array<{ id: string; name: string; sizeBytes?: number }> };
	return tables.data.find((candidate) => candidate.name === DATA_TABLE_NAME);
}

/** The Data Table ledger's rows at the heights `range`, read as a user would: n8n's public API. */
export async function dataTableRows(n8n: N8nInstance, [from, to]: [number, number]): Promise<LedgerRow[]> {
	const table = await findDataTable(n8n);
	if (!table) return [];
	const filter = { type: 'and', filters: [{ columnName: 'blockHeight', condition: 'gte', value: from }, { columnName: 'blockHeight', condition: 'lte', value: to }] };
	const rows: LedgerRow[] = [];
	let cursor: string | null | undefined;
	do {
		const query = `limit=250&filter=${encodeURIComponent(JSON.stringify(filter))}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
		const page = (await n8n.api.public('GET', `/data-tables/${table.id}/rows?${query}`)) as { data: Array<Record<string, unknown>>; nextCursor?: string | null };
		for (const row of page.data) {
			const { eventId, blockHeight, blockHash, txHash, sender, recipient, amount } = row as Record<string, string>;
			rows.push({ eventId, blockHeight: Number(blockHeight), blockHash, txHash, sender, recipient, amount });
		}
		cursor = page.nextCursor;
	} while (cursor);
	return rows;
}

const byId = (rows: LedgerRow[]) => [...rows].sort((a, b) => a.eventId.localeCompare(b.eventId));

const BACKFILL_PATH = 'backfill-recipes';

/**
 * A user's workflow that backfills both recipes' hooks: a Webhook (answering once the workflow has
 * run) and two Backfill nodes, heights and hooks from the request. Started by a request rather than
 * by n8n's CLI, whose two starts of n8n (import, execute) cost a minute; in queue mode it runs on a worker.
 */
function backfillWorkflow(stacks: { id: string; name: string }): WorkflowJson {
	const body = (field: string) => `={{ $('Start').first().json.body.${field} }}`;
	const node = (name: string, hook: 'ledger' | 'notify' | 'dataTable' | 'act', x: number) => ({
		id: `backfill-${hook}`,
		name,
		type: ACTION_TYPE,
		typeVersion: 1,
		position: [x, 0],
		parameters: { resource: 'hook', operation: 'backfill', hookId: { __rl: true, mode: 'id', value: body(hook) }, fromHeight: body('from'), toHeight: body('to') },
		credentials: { [CREDENTIAL_TYPE]: stacks },
	});
	return {
		name: 'Backfill the recipes',
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: '0b5f3c1e-7a2d-4e8f-9c6b-1d4a7e2f8b30', parameters: { httpMethod: 'POST', path: BACKFILL_PATH, responseMode: 'lastNode', options: {} } },
			node('Backfill the ledger', 'ledger', 250),
			node('Backfill the Data Table ledger', 'dataTable', 500),
			node('Backfill the notifications', 'notify', 750),
			node('Backfill the actions', 'act', 1000),
		],
		connections: {
			Start: { main: [[{ node: 'Backfill the ledger', type: 'main', index: 0 }]] },
			'Backfill the ledger': { main: [[{ node: 'Backfill the Data Table ledger', type: 'main', index: 0 }]] },
			'Backfill the Data Table ledger': { main: [[{ node: 'Backfill the notifications', type: 'main', index: 0 }]] },
			'Backfill the notifications': { main: [[{ node: 'Backfill the actions', type: 'main', index: 0 }]] },
		},
	};
}

/** Backfill of [from, to] into the recipes' hooks, by the Backfill workflow; resolves with its last node's output. */
export async function backfill(setup: RecordSetup, from: number, to: number): Promise<unknown> {
	const answer = await setup.n8n.request(`${setup.webhookBaseUrl}webhook/${BACKFILL_PATH}`, {
		method: 'POST',
		body: { from, to, ledger: setup.ledger.hookUuid, notify: setup.notify!.hookUuid, dataTable: setup.dataTable!.hookUuid, act: setup.act!.hookUuid },
		timeoutMs: 180_000,
	});
	if (answer.status !== 200) throw new Error(`the Backfill workflow answered ${answer.status}: ${answer.text.slice(0, 3000)}`);
	return answer.json;
}

/**
 * A script's steps sent into the emulator as the service would meet them: a lost answer armed (unless one is still
 * armed), or the block or reorganisation injected, with at most `ahead` deliveries unsettled (the emulator's stream,
 * not the test, keeps the order).
 */
export class ScriptStream {
	private readonly pending: Array<Promise<unknown>> = [];
	private readonly window: Array<Promise<unknown>> = [];

	constructor(
		private readonly emu: Emulator,
		private readonly ahead = 6,
	) {}

	async send(step: ChainScript['steps'][number]): Promise<void> {
		if (step.kind === 'loseAnswer') {
			// A lost answer is the network failing one answer on its way back, as one is sent: one not lost yet (no delivery
			// answered since, the hook stopped or the stream stalled) is not saved up to fall on the next delivery's retries
			// with the others, which would interrupt the hook for a network that failed once a while ago.
			if (this.emu.lostAnswersPending() === 0) this.emu.loseNextAnswers(1);
			return;
		}
		const sent = step.kind === 'apply' ? this.emu.injectBlock(step.block) : this.emu.injectReorg(step.rollback, step.apply);
		this.pending.push(sent);
		this.window.push(sent);
		if (this.window.length >= this.ahead) await this.window.shift();
	}

	/** Resolves once every step sent so far is settled. */
	async sent(): Promise<void> {
		await Promise.all(this.pending);
	}
}

export interface SequenceOptions {
	seed: number;
	/** Keeps this script's heights and hashes apart from the suite's other scripts. */
	tag: number;
	blocks: number;
	/** Kills n8n (or one of its processes) and brings it back; run once, mid-stream. */
	crash: () => Promise<void>;
	/** Steps streamed ahead of the ones settled: the emulator's stream, not the test, keeps the order. */
	ahead?: number;
	/** The Backfill over delivered heights at the end (default); off where only the PostgreSQL ledger is active. */
	backfill?: boolean;
}

export interface SequenceResult {
	script: ChainScript;
	rows: LedgerRow[];
	/** The Data Table ledger's rows at the script's heights. */
	dataTableRows: LedgerRow[];
	/** Notify Once's messages, and Act Once Final's (`final`, `undone`), of this script. */
	messages: Message[];
	actions: Message[];
	/** What the stream cost: attempts of each recipe's hook, the failed ones, answers lost, attempts n8n never answered. */
	attempts: { ledger: number; dataTable: number; notify: number; act: number; failed: number; lost: number; timedOut: number };
	backfilled?: { from: number; to: number };
	crashedAtStep: number;
}

/** Streams one seeded script through the emulator into the recipes, with the crash and the backfill. */
export async function runSequence(setup: RecordSetup, opts: SequenceOptions): Promise<SequenceResult> {
	const { emu, postgres, receiver } = setup;
	const startHeight = opts.tag * 100_000;
	const script = chainScript(opts.seed, { blocks: opts.blocks, startHeight, tag: opts.tag });
	await clearLedger(postgres);
	receiver.messages.length = 0;
	const firstReport = emu.deliveries.length;

	const crashAt = Math.floor(script.steps.length * (0.3 + (Math.abs(opts.seed) % 40) / 100));
	const stream = new ScriptStream(emu, opts.ahead);
	for (const [index, step] of script.steps.entries()) {
		if (index === crashAt) await opts.crash();
		await stream.send(step);
	}
	await stream.sent();
	await emu.settled();

	// A backfill over a third of the range, all of it delivered already.
	const from = startHeight + Math.floor(script.canonical.length / 3);
	const to = from + 24;
	if (opts.backfill !== false) {
		const replayed = await backfill(setup, from, to);
		expect(replayed).toEqual({ uuid: setup.act!.hookUuid, fromHeight: from, toHeight: to, replayed: to - from + 1 });
		await emu.settled();
	}
	// The backfill's deliveries are answered once their executions finished (in order) or were queued.
	await sleep(2000);

	const reports = emu.deliveries.slice(firstReport);
	// This script's messages: its block hashes begin with its tag (chainScript.ts).
	const mine = receiver.messages.filter((message) => message.eventId.startsWith(`0x${opts.tag.toString(16).padStart(8, '0')}`));
	const of = (uuid: string) => reports.filter((report) => report.hookUuid === uuid);
	return {
		script,
		rows: await ledgerRows(postgres, heightsOfTag(opts.tag)),
		dataTableRows: await dataTableRows(setup.n8n, heightsOfTag(opts.tag)),
		messages: mine.filter((message) => message.direction === 'apply' || message.direction === 'rollback'),
		actions: mine.filter((message) => message.direction === 'final' || message.direction === 'undone'),
		attempts: {
			ledger: of(setup.ledger.hookUuid).length,
			dataTable: of(setup.dataTable!.hookUuid).length,
			notify: of(setup.notify!.hookUuid).length,
			act: of(setup.act!.hookUuid).length,
			failed: reports.filter((report) => report.error !== undefined).length,
			lost: reports.filter((report) => report.answerLost === true).length,
			timedOut: reports.filter((report) => report.error?.startsWith(NO_ANSWER) === true).length,
		},
		...(opts.backfill !== false && { backfilled: { from, to } }),
		crashedAtStep: crashAt,
	};
}

/** The ledger (the PostgreSQL one, or the rows given) equals the canonical chain's events, exactly. */
export function expectLedgerEqualsChain(result: Pick<SequenceResult, 'script' | 'rows'>, rows = result.rows): void {
	const expected = byId(result.script.expectedRows);
	const actual = byId(rows);
	const expectedIds = new Set(expected.map((row) => row.eventId));
	const actualIds = new Set(actual.map((row) => row.eventId));
	// The differences first, named (a readable failure), then every field.
	expect({ missing: [...expectedIds].filter((id) => !actualIds.has(id)), extra: [...actualIds].filter((id) => !expectedIds.has(id)) }).toEqual({ missing: [], extra: [] });
	expect(actual).toEqual(expected);
}

const keyOf = (direction: string, eventId: string) => `${direction} ${eventId}`;

/** The event ids of a delivery's payload, by direction. */
function keysOfPayload(report: DeliveryReport): string[] {
	const keys: string[] = [];
	for (const direction of ['apply', 'rollback'] as const) {
		for (const block of report.payload.event[direction]) {
			for (const tx of block.transactions) {
				const debit = tx.operations.find((op) => op.type === 'token_transfer' && op.amount?.value.startsWith('-'));
				if (debit) keys.push(keyOf(direction, `${block.block_identifier.hash}:${tx.transaction_identifier.hash}:${debit.operation_identifier.index}`));
			}
		}
	}
	return keys;
}

/**
 * Notify Once's promise: never two messages for one event in one block and direction; an
 * announcement for every event ever applied, a correction for every event a reorganisation undid.
 * The one exception, when `crashed` (the whole n8n killed): n8n killed between the step that records
 * an event as seen and the one that sends its message loses those messages, at most the events of the
 * one delivery that was running (its later retry finds them seen).
 */
export function expectNotifiedOnce(result: SequenceResult, emu: Emulator, notifyHook: string, crashed: boolean): { lostToTheCrash: number } {
	const keys = result.messages.map((message) => keyOf(message.direction, message.eventId));
	const twice = keys.filter((key, i) => keys.indexOf(key) !== i);
	expect(twice).toEqual([]);
	const expected = new Set([...[...result.script.applied].map((id) => keyOf('apply', id)), ...[...result.script.rolledBack].map((id) => keyOf('rollback', id))]);
	const sent = new Set(keys);
	expect([...sent].filter((key) => !expected.has(key))).toEqual([]);
	const missing = [...expected].filter((key) => !sent.has(key));
	if (missing.length === 0 || !crashed) {
		expect(missing).toEqual([]);
		return { lostToTheCrash: 0 };
	}
	// Every missing message belongs to one delivery whose answer never came (the execution the kill cut short).
	const cut = emu.deliveries.filter((report) => report.hookUuid === notifyHook && report.error !== undefined && report.status === null);
	const explained = cut.some((report) => {
		const inPayload = new Set(keysOfPayload(report));
		return missing.every((key) => inPayload.has(key));
	});
	expect({ missing, explainedByOneCutDelivery: explained }).toEqual({ missing, explainedByOneCutDelivery: true });
	return { lostToTheCrash: missing.length };
}

/** What Act Once Final must do with a script, at depth `depth`: its oracle, step by step as the deliveries come. */
export function finalOracle(script: ChainScript, depth: number): { acted: Map<string, number>; undone: Map<string, number> } {
	// The hook's filter: STX transfers and coinbases. A block matching neither is not delivered, so it does not count.
	const delivered = (block: BlockInput) => block.transactions.some((tx) => tx.kind === 'stx_transfer' || tx.kind === 'coinbase');
	const state = new Map<string, { height: number; state: 'pending' | 'acted' | 'undone' }>();
	const acted = new Map<string, number>();
	const undone = new Map<string, number>();
	const count = (map: Map<string, number>, id: string) => map.set(id, (map.get(id) ?? 0) + 1);
	for (const step of script.steps) {
		if (step.kind === 'loseAnswer') continue;
		const rolledBack = step.kind === 'reorg' ? step.rollback : [];
		const applied = step.kind === 'reorg' ? step.apply : [step.block];
		for (const row of rolledBack.filter(delivered).flatMap(transfersOf)) {
			const event = state.get(row.eventId);
			if (event?.state === 'pending') state.delete(row.eventId);
			else if (event?.state === 'acted') {
				event.state = 'undone';
				count(undone, row.eventId);
			}
		}
		for (const row of applied.filter(delivered).flatMap(transfersOf)) {
			const event = state.get(row.eventId);
			if (!event) state.set(row.eventId, { height: row.blockHeight, state: 'pending' });
			else if (event.state === 'undone') event.state = 'acted';
		}
		const heights = applied.filter(delivered).map((block) => block.height);
		if (heights.length === 0) continue;
		const tip = Math.max(...heights);
		for (const [id, event] of state) {
			if (event.state !== 'pending' || event.height > tip - depth) continue;
			event.state = 'acted';
			count(acted, id);
		}
	}
	return { acted, undone };
}

/**
 * Act Once Final's promise at `depth`: every event that reached the depth acted on once, none that a
 * reorganisation undid before; an event acted on and then undone by a deeper one reported once each
 * time. The exception, when `crashed` (the whole n8n killed once): the action runs before its mark, so
 * events the killed execution had acted on are acted on again by the next delivery (at least once), at
 * most twice. Which delivery that is the oracle cannot say: after the restart the trigger's own replays
 * can reach the depth before the script's next step does.
 */
export function expectActedOnceFinal(result: SequenceResult, depth: number, crashed: boolean): { actedTwice: number; oracle: ReturnType<typeof finalOracle> } {
	const oracle = finalOracle(result.script, depth);
	const countOf = (direction: 'final' | 'undone') => {
		const counts = new Map<string, number>();
		for (const message of result.actions) if (message.direction === direction) counts.set(message.eventId, (counts.get(message.eventId) ?? 0) + 1);
		return counts;
	};
	const sorted = (map: Map<string, number>) => [...map].sort(([a], [b]) => a.localeCompare(b));
	const acted = countOf('final');
	expect(sorted(countOf('undone'))).toEqual(sorted(oracle.undone));
	// Never one the chain undid before it was deep enough, and every one that was, at least once.
	expect({ notFinal: [...acted.keys()].filter((id) => !oracle.acted.has(id)), missing: [...oracle.acted.keys()].filter((id) => !acted.has(id)) }).toEqual({ notFinal: [], missing: [] });
	const twice = [...acted].filter(([, n]) => n > 1).map(([id]) => id);
	if (twice.length === 0 || !crashed) {
		expect(twice).toEqual([]);
		return { actedTwice: 0, oracle };
	}
	// One kill between an action and its mark: acted on again once, never more.
	expect([...acted].filter(([, n]) => n > 2)).toEqual([]);
	return { actedTwice: twice.length, oracle };
}

export function describeResult(label: string, result: SequenceResult, seed: number): string {
	const { counts } = result.script;
	return (
		`${label}: seed ${seed} (replay: RECORD_SEED=${seed}); ${result.script.steps.length} steps, ${counts.blocks} blocks, ${counts.reorgs} reorganisations ` +
		`(depths ${JSON.stringify(counts.depths)}, ${counts.flipFlops} flip-flops), ${counts.lostAnswers} answers lost; crash at step ${result.crashedAtStep}; ` +
		`${result.backfilled ? `backfill ${result.backfilled.from}-${result.backfilled.to}` : 'no backfill'}; ledger ${result.rows.length} rows, Data Table ledger ${result.dataTableRows.length} (chain ${counts.transfers}); ` +
		`${result.messages.length} messages, ${result.actions.length} actions; delivery attempts ledger ${result.attempts.ledger}, Data Table ${result.attempts.dataTable}, notify ${result.attempts.notify}, act ${result.attempts.act}, failed ${result.attempts.failed}, answers lost ${result.attempts.lost}, not answered in time ${result.attempts.timedOut}`
	);
}

/** Seeds for this run: RECORD_SEED replays one; RECORD_SEQUENCES (default `count`) runs more. */
export function sequenceSeeds(base: number, count: number): number[] {
	const replay = Number(process.env.RECORD_SEED);
	if (Number.isSafeInteger(replay)) return [replay];
	const n = Number(process.env.RECORD_SEQUENCES ?? count);
	return Array.from({ length: n }, (_, i) => (base + i * 7919) | 0);
}
