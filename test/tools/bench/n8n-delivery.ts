/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 1, deliveries inside a real n8n (the selected version on its Node, HTTPS, the packed package installed
 * as n8n installs community packages): the same deliveries posted concurrently to
 *   A: a workflow of the Stacks Hooks Trigger (its production webhook),
 *   B: a workflow of n8n's Webhook node (POST, respond on received, header auth with the
 *      consumer secret) and a Code node splitting the payload into the same per-transaction items, and
 *   C: a workflow of the floor (floor/FloorTrigger.node.js, a package of its own installed the
 *      same way): the cheapest community trigger n8n allows that does the same job, one constant
 *      compared, the same per-transaction items out, answered by n8n once the execution is queued
 *      like the trigger, the trigger's credential attached (n8n checks it before each execution, as
 *      it does A's and B's); what n8n itself charges any community trigger per delivery, and
 *   D: the floor under the trigger's whole description (floor/FloorTriggerDescribed.node.js): what D
 *      costs beyond C is n8n's charge for the trigger's parameters, what A costs beyond D the
 *      trigger's own code (rows …p),
 * over several rounds, for each n8n configuration of CONFIGS (n8n restarted in between, same user
 * folder). In a round the batches run A B C C B A (each side early and late, its figure the mean
 * of the two); rejected deliveries, and accepted ones posted one at a time (rows …e), go to the
 * sides in turn, one delivery each, so every side meets the same n8n. Every accepted delivery must
 * give exactly one successful execution with the right number of items (checked from the saved
 * executions: n8n's default of saving every execution stays on, so the reference does the same work).
 */
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { text } from 'stream/consumers';
import { setTimeout as sleep } from 'timers/promises';

import { type Emulator, startEmulator } from '../../emulator';
import type { Execution, WorkflowJson } from '../../support/n8n/api';
import { type N8nInstance, startN8n } from '../../support/n8n/instance';
import { installPackage, packPackage } from '../../support/n8n/package';
import { atExit } from '../../support/n8n/process';
import { REPO_DIR } from '../../support/paths';
import { FLOOR_DESCRIBED_TYPE, FLOOR_TYPE, packFloor } from './floor/package';
import { ALICE, API_KEY, BOB, delivery, SECRET, WRONG_SECRET } from './payloads';
import { fmtBytes, fmtMs, fmtRatio, median, percentile, type Row, verdict } from './util';

/**
 * `idleMs`: the pause after each answer of the one-at-a-time deliveries (rows …c, …e). With its
 * defaults, n8n 2.41 takes each webhook request a fresh expression isolate from a pool of one and
 * refills the pool after the request: one that comes before the refill waits for it. Back to back,
 * rejected deliveries took about 6, 17 or 40 ms by where each came in that cycle, and the medians of
 * sides taking turns told their places apart, not the sides (1.41× in one run). After 100 ms each
 * meets a full pool. With lazy acquire there is no such cycle, and a pause would only add what an
 * idle machine costs to wake (about 4.5 ms a request here) to both sides of the ratio.
 */
const CONFIGS: Array<{ id: string; label: string; env: Record<string, string>; idleMs: number }> = [
	{ id: '', label: 'defaults', env: {}, idleMs: 100 },
	// n8n 2.41 takes a fresh expression isolate for every webhook request to any node but its own
	// Webhook node, whether or not an expression needs one; this setting takes one only when needed.
	{ id: 'L', label: 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true', env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' }, idleMs: 0 },
];
/** Deliveries per batch and transactions per delivery. */
const SIZES = { small: { n: 120, tx: 1 }, large: { n: 20, tx: 500 } };
const CONCURRENCY = 10;
const REJECTED_N = 30;

const TRIGGER_NODE = 'Stacks Hooks Trigger';
const TRIGGER_WEBHOOK_ID = '5b0c8a4e-1f2d-4e3a-9b6c-7d8e9f0a1b2c';
const WEBHOOK_NODE = 'Webhook';
const CODE_NODE = 'Split Transactions';
const FLOOR_NODE = 'Floor Trigger';
const FLOOR_WEBHOOK_ID = '7d2eac60-3b4f-4a5c-9d8e-9fa0b1c2d3e4';
const DESCRIBED_NODE = 'Floor Trigger Described';
const DESCRIBED_WEBHOOK_ID = '8e3fbd71-4c5a-4b6d-8e9f-a0b1c2d3e4f5';
/** The trigger's parameters in every workflow of it here; the floor under its description runs with the same. */
// The health check off: it costs one request per interval, not per delivery (noteDelivery, the
// per-delivery part of it, runs either way), and here it would see blocks the bench posts that the
// emulator never evaluated, and act on that (a replay, an alert's failed execution) mid-batch.
const TRIGGER_PARAMETERS = { events: { filter: [{ type: 'stx_transfer', sender: ALICE }] }, options: { healthCheckMinutes: 0 } };
/** Accepted 1-tx deliveries per side and round posted one at a time, the sides interleaved (rows …e). */
const PAIRED_N = 60;
/** The floor is measured against the trigger within this factor (rows …f). */
const FLOOR_SLACK = 1.05;

/** The Code node: the delivery's blocks, rollbacks first, as one item per transaction with the trigger's fields. */
const SPLIT_JS = `const d = $input.first().json.body;
const common = { hookUuid: d.chainhook.uuid, hookName: d.chainhook.name ?? null, network: d.event.network };
const blocks = [...(d.event.rollback || []).map((b) => ['rollback', b]), ...(d.event.apply || []).map((b) => ['apply', b])];
const out = [];
for (const [direction, b] of blocks) {
  for (const tx of b.transactions) {
    const m = tx.metadata || {};
    out.push({ json: {
      direction, hookUuid: common.hookUuid, hookName: common.hookName, network: common.network,
      blockHeight: b.block_identifier.index, blockHash: b.block_identifier.hash, blockTimestamp: b.timestamp ?? null,
      txHash: tx.transaction_identifier?.hash ?? null, txType: m.type ?? null, txStatus: m.status ?? null,
      sender: m.sender_address ?? null, fee: m.fee_rate ?? null, nonce: m.nonce ?? null,
      position: m.position?.index ?? null, operations: tx.operations || [], metadata: m,
    } });
  }
}
return out;`;

const workflows = (hooksCredential: object, headerCredential: object): WorkflowJson[] => [
	{
		name: 'Bench: Stacks Hooks Trigger',
		connections: {},
		nodes: [{
			id: 'b1a2c3d4-0000-4000-8000-000000000001', name: TRIGGER_NODE, type: 'n8n-nodes-stacks-hooks.stacksHooksTrigger',
			// The version n8n gives the node when it is added now (1.1 skips n8n's per-request legacy
			// expression for typeVersion 1; see the node's description).
			typeVersion: 1.1, position: [0, 0], webhookId: TRIGGER_WEBHOOK_ID,
			parameters: TRIGGER_PARAMETERS, credentials: { stacksHooksApi: hooksCredential },
		}],
	}, {
		name: 'Bench: Webhook + Code',
		connections: { [WEBHOOK_NODE]: { main: [[{ node: CODE_NODE, type: 'main', index: 0 }]] } },
		nodes: [
			{
				id: 'b1a2c3d4-0000-4000-8000-000000000002', name: WEBHOOK_NODE, type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1, position: [0, 0], webhookId: '6c1d9b5f-2a3e-4f4b-8c7d-8e9fa0b1c2d3',
				parameters: { httpMethod: 'POST', path: 'stacks-bench', authentication: 'headerAuth', responseMode: 'onReceived', options: {} },
				credentials: { httpHeaderAuth: headerCredential },
			}, {
				id: 'b1a2c3d4-0000-4000-8000-000000000003', name: CODE_NODE, type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, 0],
				parameters: { mode: 'runOnceForAllItems', language: 'javaScript', jsCode: SPLIT_JS },
			},
		],
	}, {
		name: 'Bench: floor trigger',
		connections: {},
		nodes: [{
			id: 'b1a2c3d4-0000-4000-8000-000000000004', name: FLOOR_NODE, type: FLOOR_TYPE,
			// The trigger's credential, never loaded: n8n checks it before each execution, as it does the trigger's.
			typeVersion: 1.1, position: [0, 0], webhookId: FLOOR_WEBHOOK_ID, parameters: {}, credentials: { stacksHooksApi: hooksCredential },
		}],
	}, {
		name: "Bench: floor trigger under the trigger's description",
		connections: {},
		nodes: [{
			id: 'b1a2c3d4-0000-4000-8000-000000000005', name: DESCRIBED_NODE, type: FLOOR_DESCRIBED_TYPE,
			typeVersion: 1.1, position: [0, 0], webhookId: DESCRIBED_WEBHOOK_ID, parameters: TRIGGER_PARAMETERS, credentials: { stacksHooksApi: hooksCredential },
		}],
	},
];

/** The sides of the batches; the floor under the trigger's description only joins the one-at-a-time comparisons. */
const VARIANTS = ['trigger', 'webhook', 'floor'] as const;
type Variant = (typeof VARIANTS)[number] | 'described';
/** The sides of the one-at-a-time accepted deliveries (rows …e): the reference Webhook+Code is left out. */
const PAIRED = ['trigger', 'floor', 'described'] as const satisfies readonly Variant[];
/** Every side, for the rejected deliveries. */
const SIDES = [...VARIANTS, 'described'] as const satisfies readonly Variant[];
type Size = keyof typeof SIZES;
/**
 * Where a variant's deliveries go; `itemsNode`'s first output holds its items, `items(tx)` of them
 * for a delivery of `tx` transactions; `answers` whether webhook() writes {received, items} itself.
 */
type Target = { variant: Variant; workflowId: string; url: string; itemsNode: string; items: (tx: number) => number; answers: boolean; rejectedStatus: number };
/** perSecond: completed deliveries/s (first POST → last of their executions stopped); answeredPerSecond: first POST → last answer. */
type BatchFigures = Record<'perSecond' | 'answeredPerSecond' | 'p50' | 'p99', number>;
/** One configuration's rounds: batches per size and variant, and the rejected deliveries' medians and statuses. */
type ConfigFigures = Record<Size, Record<(typeof VARIANTS)[number], BatchFigures[]>> & {
	rejected: Record<Variant, number[]>;
	statuses: Record<Variant, number[]>;
	/** Per round, each side's median latency of accepted 1-tx deliveries posted one at a time, interleaved. */
	paired: Record<(typeof PAIRED)[number], number[]>;
};

/* Posting: node's https with an agent per batch, so every batch opens its connections anew ----- */

function post(agent: https.Agent, url: string, body: Buffer, secret: string): Promise<{ ms: number; status: number; text: string }> {
	return new Promise((resolve, reject) => {
		const start = performance.now();
		const headers = { 'content-type': 'application/json', 'content-length': String(body.length), 'user-agent': 'stacks-hooks-bench', 'x-hook-consumer-secret': secret };
		const req = https.request(url, { method: 'POST', agent, headers }, (res) =>
			text(res).then((answer) => resolve({ ms: performance.now() - start, status: res.statusCode ?? 0, text: answer }), reject),
		);
		req.setTimeout(120_000, () => req.destroy(new Error(`POST ${url}: no answer within 120 s`)));
		req.on('error', reject);
		req.end(body);
	});
}

/** `n` POSTs of the same body by `concurrency` workers over keep-alive connections (also part 6's). */
export async function blast(n8n: Pick<N8nInstance, 'certificate'>, url: string, body: Buffer | Buffer[], n: number, concurrency: number, secret: string) {
	const bodies = Array.isArray(body) ? body : [body];
	const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, ca: n8n.certificate });
	const answers: Array<Awaited<ReturnType<typeof post>>> = [];
	const startedAt = Date.now();
	let next = 0;
	const worker = async () => {
		while (next < n) {
			const i = next++;
			answers.push(await post(agent, url, bodies[i % bodies.length], secret));
		}
	};
	try {
		await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
	} finally {
		agent.destroy();
	}
	return { latencies: answers.map((a) => a.ms), statuses: answers.map((a) => a.status), bodies: answers.map((a) => a.text), startedAt, answeredAt: Date.now() };
}

/* Executions --------------------------------------------------------------------------------- */

const isFinished = (e: Execution) => !['new', 'running', 'waiting'].includes(e.status) && e.stoppedAt !== null;

/**
 * The workflow's executions with an id above `afterId`, newest first. Pages only until it reaches
 * older ones: N8nApi's executions() lists (and with data, loads) every one of the run's hundreds.
 */
export async function executionsAfter(n8n: Pick<N8nInstance, 'api'>, workflowId: string, afterId: number, includeData: boolean, limit = 250): Promise<Execution[]> {
	const out: Execution[] = [];
	for (let cursor: string | undefined; ; ) {
		const query = new URLSearchParams({ workflowId, limit: String(limit) });
		if (includeData) query.set('includeData', 'true');
		if (cursor) query.set('cursor', cursor);
		const page = (await n8n.api.public('GET', `/executions?${query.toString()}`)) as { data: Execution[]; nextCursor?: string | null };
		const newer = page.data.filter((execution) => Number(execution.id) > afterId);
		out.push(...newer);
		cursor = page.nextCursor ?? undefined;
		if (newer.length < page.data.length || !cursor) return out;
	}
}

/** Waits until `count` executions above `afterId` have finished; returns them. */
export async function waitForNew(n8n: Pick<N8nInstance, 'api'>, workflowId: string, afterId: number, count: number, timeoutMs = 300_000): Promise<Execution[]> {
	for (const deadline = Date.now() + timeoutMs; ; await sleep(250)) {
		const seen = await executionsAfter(n8n, workflowId, afterId, false);
		if (seen.length >= count && seen.every(isFinished)) return seen;
		if (Date.now() > deadline) {
			throw new Error(`waited ${timeoutMs} ms for ${count} executions of workflow ${workflowId}; ${seen.length} seen, ${seen.filter(isFinished).length} finished`);
		}
	}
}

export const itemCount = (execution: Execution, node: string) => execution.data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0]?.length;

/* The benchmark ------------------------------------------------------------------------------ */

/**
 * Part 1's rows: for each configuration of CONFIGS a/b (throughput, p99), c (rejected) and e (accepted one
 * at a time), a.1f/a.2f/cf/ef (against the floor), cp/ep (the floor under the trigger's description
 * against the floor), then 1d (correctness).
 */
export async function deliveryRows(rounds: number, log: (msg: string) => void): Promise<Row[]> {
	const setupStart = Date.now();
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-bench-n8n-'));
	atExit(() => fs.rmSync(userFolder, { recursive: true, force: true, maxRetries: 5 }));
	// dist/ was just built by `npm run bench`: packPackage packs it as is.
	const tarball = await packPackage(REPO_DIR);
	await installPackage(userFolder, tarball);
	const floorTarball = await packFloor();
	await installPackage(userFolder, floorTarball);
	log(`installed ${path.basename(tarball)} and ${path.basename(floorTarball)} into the n8n user folder; starting n8n`);
	let n8n!: N8nInstance;
	let emu: Emulator | undefined;
	const start = async (env: Record<string, string>, port?: number, brokerPort?: number) =>
		(n8n = await startN8n({
			userFolder, https: true, port, brokerPort, provisionLog: (msg) => log(`[n8n host] ${msg}`),
			// A fresh user folder's database migrations alone can take over a minute on a busy 2-core machine.
			readyTimeoutMs: 180_000,
			// The Code node's task runner stays up between rounds, so the reference is not charged for restarting it.
			env: { N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT: '0', ...env },
		}));
	try {
		await start(CONFIGS[0].env);
		emu = await startEmulator({ accounts: [{ apiKey: API_KEY, consumerSecret: SECRET }], deliveryCa: n8n.certificate });
		const credential = async (name: string, type: string, data: Record<string, unknown>) => {
			const created = await n8n.api.createCredential({ name, type, data });
			return { id: created.id, name: created.name };
		};
		const ids: string[] = [];
		for (const workflow of workflows(
			// No consumer secret in the credential, as users now set it up: the trigger reads the
			// account's (SECRET, the emulator account's) from the service at activation.
			await credential('Stacks Hooks (bench emulator)', 'stacksHooksApi', { apiKey: API_KEY, network: 'testnet', baseUrl: emu.url }),
			await credential('Consumer secret header (bench)', 'httpHeaderAuth', { name: 'x-hook-consumer-secret', value: SECRET }),
		)) {
			const { id } = await n8n.api.createWorkflow(workflow);
			await n8n.api.activate(id);
			ids.push(id);
		}
		const hooks = emu.hooks(API_KEY);
		const triggerUrl = n8n.webhookUrl(`${TRIGGER_WEBHOOK_ID}/webhook`);
		if (hooks.length !== 1 || hooks[0].definition.action.url !== triggerUrl) {
			throw new Error(`activation registered ${hooks.length} hook(s) at the emulator: ${JSON.stringify(hooks.map((h) => h.definition.action))}`);
		}
		const targets: Record<Variant, Target> = {
			trigger: { variant: 'trigger', workflowId: ids[0], url: triggerUrl, itemsNode: TRIGGER_NODE, items: (tx) => tx, answers: true, rejectedStatus: 401 },
			webhook: { variant: 'webhook', workflowId: ids[1], url: n8n.webhookUrl('stacks-bench'), itemsNode: CODE_NODE, items: (tx) => tx, answers: false, rejectedStatus: 403 },
			floor: {
				variant: 'floor', workflowId: ids[2], url: n8n.webhookUrl(`${FLOOR_WEBHOOK_ID}/webhook`), itemsNode: FLOOR_NODE, items: (tx) => tx, answers: true, rejectedStatus: 401,
			},
			described: {
				variant: 'described', workflowId: ids[3], url: n8n.webhookUrl(`${DESCRIBED_WEBHOOK_ID}/webhook`), itemsNode: DESCRIBED_NODE, items: (tx) => tx, answers: true, rejectedStatus: 401,
			},
		};
		const problems: string[] = [];
		const accepted: Record<Variant, number> = { trigger: 0, webhook: 0, floor: 0, described: 0 };
		let lastId = 0;

		// The real path once: the emulator delivers a block to the trigger it registered.
		const [report] = await emu.injectBlock({
			height: 500,
			transactions: [1, 2, 3].map((i) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount: i })),
		});
		if (report?.status !== 200) problems.push(`the emulator's own delivery was answered ${report?.status} (${report?.error})`);
		accepted.trigger++;
		lastId = Number((await waitForNew(n8n, ids[0], 0, 1))[0].id);
		const emulatorItems = itemCount((await executionsAfter(n8n, ids[0], 0, true))[0], TRIGGER_NODE);
		if (emulatorItems !== 3) problems.push(`the emulator's 3-transaction delivery gave ${emulatorItems} items`);
		log(`n8n ready, the three workflows active, the emulator's delivery ran (${((Date.now() - setupStart) / 1000).toFixed(1)} s of set-up)`);

		const body = (size: Size, height: number) => Buffer.from(JSON.stringify(delivery(hooks[0].uuid, hooks[0].definition.name, height, SIZES[size].tx)));
		const bodies = { small: body('small', 1001), large: body('large', 1002) };
		// Each accepted delivery a block of its own, as the service sends them: the same block posted
		// again and again is what the trigger reads as a delivery the workflow keeps failing on (its
		// alert then saves a failed execution, an execution no delivery asked for).
		let nextHeight = 2000;
		const distinct = (size: Size, n: number) => Array.from({ length: n }, () => body(size, nextHeight++));
		/**
		 * Accepted deliveries to `target` posted since execution `before`: counted, their answers checked,
		 * then every execution waited for and checked from its saved data (status, `expected` items). `what`
		 * names them in a problem. How many were accepted, and their executions, finished.
		 */
		const settle = async (target: Target, what: string, before: number, answers: { statuses: number[]; bodies: string[] }, expected: number, pageSize: number) => {
			const n = answers.statuses.length;
			const ok = answers.statuses.filter((status) => status === 200).length;
			accepted[target.variant] += ok;
			if (ok !== n) problems.push(`${what}: ${n - ok} of ${n} deliveries answered ${[...new Set(answers.statuses)].join('/')}`);
			if (target.answers) {
				const wrong = answers.bodies.filter((b) => b !== JSON.stringify({ received: true, items: expected })).length;
				if (wrong) problems.push(`${what}: ${wrong} answers were not {received:true, items:${expected}}`);
			}
			const done = await waitForNew(n8n, target.workflowId, before, ok);
			const withData = await executionsAfter(n8n, target.workflowId, before, true, pageSize);
			if (withData.length !== ok) problems.push(`${what}: ${ok} deliveries accepted, ${withData.length} executions`);
			for (const execution of withData) {
				const items = itemCount(execution, target.itemsNode);
				if (execution.status !== 'success' || items !== expected) {
					problems.push(`${what}: execution ${execution.id} ${execution.status} with ${items} items (expected ${expected})`);
				}
			}
			lastId = Math.max(lastId, ...withData.map((e) => Number(e.id)));
			return { ok, done };
		};

		/** One batch: post, wait for every execution, check them; the figures. */
		const batch = async (target: Target, size: Size, n: number): Promise<BatchFigures> => {
			const before = lastId;
			const posted = await blast(n8n, target.url, distinct(size, n), n, CONCURRENCY, SECRET);
			const { ok, done } = await settle(target, `${target.variant} ${size}`, before, posted, target.items(SIZES[size].tx), size === 'small' ? 100 : 10);
			const stoppedAt = Math.max(...done.map((e) => Date.parse(e.stoppedAt!)));
			return {
				perSecond: ok / ((stoppedAt - posted.startedAt) / 1000),
				answeredPerSecond: n / ((posted.answeredAt - posted.startedAt) / 1000),
				p50: percentile(posted.latencies, 50),
				p99: percentile(posted.latencies, 99),
			};
		};

		/**
		 * `n` deliveries to each side, one at a time, the sides taking turns (A B C, C B A, ...), each after
		 * `idleMs` of quiet (CONFIGS): each delivery meets n8n in the state the others met, so what tells
		 * them apart is the side, not the moment (noise and drift reach every side alike). One keep-alive
		 * connection per side.
		 */
		const interleaved = async <S extends Variant>(sides: readonly S[], n: number, body: () => Buffer, secret: string, idleMs: number) => {
			const agents = new Map(sides.map((side) => [side, new https.Agent({ keepAlive: true, maxSockets: 1, ca: n8n.certificate })]));
			const answers = new Map(sides.map((side) => [side, [] as Array<Awaited<ReturnType<typeof post>>>]));
			try {
				for (let i = 0; i < n; i++) {
					for (const side of i % 2 ? [...sides].reverse() : sides) {
						answers.get(side)!.push(await post(agents.get(side)!, targets[side].url, body(), secret));
						if (idleMs > 0) await sleep(idleMs);
					}
				}
			} finally {
				for (const agent of agents.values()) agent.destroy();
			}
			return answers;
		};

		/** Rejected deliveries one at a time, every side interleaved (the cost of one refusal on an otherwise idle n8n): each side's median latency. */
		const rejectedRound = async (idleMs: number, n = REJECTED_N) => {
			const medians = {} as Record<Variant, number>;
			const statuses = {} as Record<Variant, number[]>;
			for (const [side, answers] of await interleaved(SIDES, n, () => bodies.small, WRONG_SECRET, idleMs)) {
				statuses[side] = [...new Set(answers.map((answer) => answer.status))];
				if (statuses[side].length !== 1 || statuses[side][0] !== targets[side].rejectedStatus) {
					problems.push(`${side} rejected: answered ${statuses[side].join('/')} (expected ${targets[side].rejectedStatus})`);
				}
				medians[side] = median(answers.map((answer) => answer.ms));
			}
			return { medians, statuses };
		};

		/**
		 * Accepted 1-tx deliveries one at a time, the trigger, the floor and the floor under the trigger's
		 * description interleaved, each a block of its own; every execution checked as a batch's are. Each
		 * side's median latency (POST → answer: the execution saved, as n8n answers these).
		 */
		const pairedRound = async (idleMs: number, n = PAIRED_N) => {
			const before = lastId;
			const medians = {} as Record<(typeof PAIRED)[number], number>;
			for (const [side, answers] of await interleaved(PAIRED, n, () => body('small', nextHeight++), SECRET, idleMs)) {
				const posted = { statuses: answers.map((answer) => answer.status), bodies: answers.map((answer) => answer.text) };
				await settle(targets[side], `${side} one at a time`, before, posted, 1, 100);
				medians[side] = median(answers.map((answer) => answer.ms));
			}
			return medians;
		};

		/** The mean of a side's two batches of one round (A B C C B A: each side once early and once late in it). */
		const meanOf = (a: BatchFigures, b: BatchFigures): BatchFigures => ({
			perSecond: (a.perSecond + b.perSecond) / 2,
			answeredPerSecond: (a.answeredPerSecond + b.answeredPerSecond) / 2,
			p50: (a.p50 + b.p50) / 2,
			p99: (a.p99 + b.p99) / 2,
		});

		const rows: Row[] = [];
		for (const [index, config] of CONFIGS.entries()) {
			if (index > 0) {
				log(`restarting n8n with ${config.label}`);
				const { port, brokerPort } = n8n;
				await n8n.stop();
				await start(config.env, port, brokerPort);
			}
			// Warm-up (not reported): compiles the code paths and starts the Code node's task runner.
			log(`${config.label}: warm-up`);
			for (const variant of VARIANTS) {
				await batch(targets[variant], 'small', 10);
				await batch(targets[variant], 'large', 1);
			}
			await rejectedRound(config.idleMs, 5);
			await pairedRound(config.idleMs, 10);
			const sides = () => ({ trigger: [], webhook: [], floor: [] });
			const figures: ConfigFigures = {
				small: sides(), large: sides(), rejected: { ...sides(), described: [] }, statuses: { ...sides(), described: [] }, paired: { trigger: [], floor: [], described: [] },
			};
			for (let round = 1; round <= rounds; round++) {
				// A B C C B A, starting with A and C in turn: each side runs once early and once late in every
				// round, and its figure for the round is the mean of the two, so a drift within the round
				// (n8n's background work, the machine's) reaches every side alike.
				const order = round % 2 ? [...VARIANTS] : [...VARIANTS].reverse();
				for (const size of ['small', 'large'] as const) {
					const first = {} as Record<(typeof VARIANTS)[number], BatchFigures>;
					for (const variant of [...order, ...[...order].reverse()]) {
						const t0 = performance.now();
						const b = await batch(targets[variant], size, SIZES[size].n);
						if (first[variant]) figures[size][variant].push(meanOf(first[variant], b));
						else first[variant] = b;
						log(
							`${config.label}, round ${round}: ${variant} ${SIZES[size].n} × ${SIZES[size].tx}-tx: ${b.perSecond.toFixed(1)}/s done, ` +
								`${b.answeredPerSecond.toFixed(1)}/s answered, p50 ${b.p50.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
						);
					}
				}
				const { medians: rejected, statuses } = await rejectedRound(config.idleMs);
				for (const side of SIDES) figures.rejected[side].push(rejected[side]);
				Object.assign(figures.statuses, statuses);
				log(`${config.label}, round ${round}: rejected × ${REJECTED_N} each, interleaved: ${SIDES.map((side) => `${side} ${rejected[side].toFixed(2)} ms`).join(', ')}`);
				const paired = await pairedRound(config.idleMs);
				for (const side of PAIRED) figures.paired[side].push(paired[side]);
				log(`${config.label}, round ${round}: accepted one at a time × ${PAIRED_N} each, interleaved: ${PAIRED.map((side) => `${side} ${paired[side].toFixed(2)} ms`).join(', ')}`);
			}
			rows.push(...configRows(`1${config.id}`, `n8n (${config.label})`, rounds, figures, bodies, config.idleMs));
		}

		// Nothing more than the accepted deliveries ran (rejected ones started nothing). The emulator's
		// deliveries to the trigger count too: its first, and any replay its health check asked for (the
		// trigger's notes hold heights the emulator never evaluated, as the bench posts them itself).
		await sleep(1500);
		const replays = emu.deliveries.filter((report) => report.hookUuid === hooks[0].uuid && report.status === 200).slice(1);
		accepted.trigger += replays.length;
		const executions: Record<Variant, number> = { trigger: 0, webhook: 0, floor: 0, described: 0 };
		for (const variant of SIDES) {
			executions[variant] = (await executionsAfter(n8n, targets[variant].workflowId, 0, false)).length;
			if (executions[variant] !== accepted[variant]) problems.push(`${variant}: ${accepted[variant]} accepted deliveries but ${executions[variant]} executions`);
		}
		rows.push({
			id: '1d', what: 'n8n: correctness — one successful execution per accepted delivery, right item count',
			figure: `${executions.trigger}/${accepted.trigger}`,
			reference: `Webhook+Code ${executions.webhook}/${accepted.webhook}, floor ${executions.floor}/${accepted.floor}, floor under the trigger's description ${executions.described}/${accepted.described}`,
			ratio: NaN,
			target: 'all, exactly', verdict: problems.length === 0 ? 'PASS' : 'FAIL',
			raw:
				(problems.length === 0
					? 'all configurations, warm-ups and rounds: every execution checked from its saved data (status success; trigger, Code node and floor output = transactions in the delivery), every trigger and floor answer {received: true, items: n}; rejected deliveries started none'
					: `PROBLEMS: ${problems.slice(0, 10).join('; ')}`) +
				`; the trigger's count includes ${replays.length} deliveries of the emulator replaying heights for the trigger's health check (${replays.map((report) => report.payload.event.apply.map((block) => block.block_identifier.index).join('+')).join(', ') || 'none'})` +
				`. n8n's default execution saving stays on for all three (needed to check every count, and the same work on every side)`,
		});
		return rows;
	} finally {
		log('stopping n8n and the emulator');
		await emu?.close().catch(() => undefined);
		await n8n?.stop();
	}
}

/**
 * One configuration's rows, medians over the rounds: a, b (throughput and p99 per size) and c
 * (rejected), the trigger beside Webhook+Code; a.1f, a.2f, b.1f, b.2f and cf, the trigger beside
 * the floor, which outputs the same items and is answered the same way, within FLOOR_SLACK.
 */
function configRows(prefix: string, where: string, rounds: number, f: ConfigFigures, bodies: Record<Size, Buffer>, idleMs: number): Row[] {
	const oneAtATime = idleMs > 0 ? `one at a time after ${idleMs} ms of quiet` : 'one at a time, back to back';
	const vs = (id: string, what: string, t: number, w: number, show: (v: number) => string, higherIsBetter: boolean, raw: string): Row => ({
		id, what: `${where}: ${what}`,
		figure: show(t), reference: `Webhook+Code ${show(w)}`, ratio: t / w,
		target: higherIsBetter ? '≥ 1.0×' : '≤ 1.0×', verdict: verdict(higherIsBetter ? t >= w : t <= w),
		raw,
	});
	const vsFloor = (id: string, what: string, t: number, fl: number, show: (v: number) => string, higherIsBetter: boolean, raw: string): Row => ({
		id, what: `${where}: ${what}, against the floor`,
		figure: show(t), reference: `floor ${show(fl)}`, ratio: t / fl,
		target: `within ${FLOOR_SLACK}×`, verdict: verdict(higherIsBetter ? t * FLOOR_SLACK >= fl : t <= fl * FLOOR_SLACK),
		raw,
	});
	const list = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(', ');
	/** The floor's own figure beside Webhook+Code's, for the raw numbers. */
	const floorCost = (fl: number, w: number, show: (v: number) => string) =>
		`The floor vs Webhook+Code (what n8n itself costs a community trigger): ${show(fl)} vs ${show(w)} (${fmtRatio(fl / w)})`;
	const rows = (['small', 'large'] as const).flatMap((size) => {
		const { trigger, webhook, floor } = f[size];
		const of = (key: keyof BatchFigures) => ({ t: trigger.map((b) => b[key]), w: webhook.map((b) => b[key]), f: floor.map((b) => b[key]) });
		const [tput, answered, p50, p99] = [of('perSecond'), of('answeredPerSecond'), of('p50'), of('p99')];
		const id = `${prefix}${size === 'small' ? 'a' : 'b'}`;
		const label = `${SIZES[size].n} × ${SIZES[size].tx}-tx deliveries (${fmtBytes(bodies[size].length)}), concurrency ${CONCURRENCY}`;
		const perSecond = (v: number) => `${v.toFixed(1)}/s`;
		const tputRaw =
			`completed deliveries/s (first POST → last of their executions stopped), median of ${rounds} rounds: ` +
			`trigger ${list(tput.t, 1)}; Webhook+Code ${list(tput.w, 1)}; floor ${list(tput.f, 1)}. ` +
			`Answered/s (first POST → last answer): ${median(answered.t).toFixed(1)} vs ${median(answered.w).toFixed(1)} vs floor ${median(answered.f).toFixed(1)}`;
		const p99Raw =
			`POST → answer, median over rounds of each round's p99 (trigger ${list(p99.t, 1)}; Webhook+Code ${list(p99.w, 1)}; floor ${list(p99.f, 1)} ms); ` +
			`p50 ${fmtMs(median(p50.t))} vs ${fmtMs(median(p50.w))} vs floor ${fmtMs(median(p50.f))}`;
		return [
			vs(`${id}.1`, `${label}: throughput`, median(tput.t), median(tput.w), perSecond, true, tputRaw),
			vsFloor(`${id}.1f`, `${label}: throughput`, median(tput.t), median(tput.f), perSecond, true,
				`throughput ≥ 1/${FLOOR_SLACK} of the floor's; the figures of ${id}.1. ${floorCost(median(tput.f), median(tput.w), perSecond)}`),
			vs(`${id}.2`, `${label}: p99 latency`, median(p99.t), median(p99.w), fmtMs, false, p99Raw),
			vsFloor(`${id}.2f`, `${label}: p99 latency`, median(p99.t), median(p99.f), fmtMs, false,
				`p99 ≤ ${FLOOR_SLACK}× the floor's; the figures of ${id}.2. ${floorCost(median(p99.f), median(p99.w), fmtMs)}`),
		];
	});
	const { rejected, statuses, paired } = f;
	/** What n8n charges for the trigger's description alone: the floor under it against the floor (info). */
	const described = (id: string, what: string, d: number, fl: number, t: number, raw: string): Row => ({
		id, what: `${where}: ${what}, the floor under the trigger's description against the floor`,
		figure: fmtMs(d), reference: `floor ${fmtMs(fl)}`, ratio: d / fl, target: 'info', verdict: 'info',
		raw: `${raw}; what n8n charges for the trigger's parameters and webhook description, with the floor's code. The trigger against it (its own code): ${fmtMs(t)} vs ${fmtMs(d)} (${fmtRatio(t / d)})`,
	});
	rows.push(
		vs(`${prefix}c`, 'rejected delivery (wrong secret), one at a time', median(rejected.trigger), median(rejected.webhook), fmtMs, false,
			`median latency of ${REJECTED_N} POSTs per side and round, ${oneAtATime}, the four sides taking turns, median of ${rounds} rounds ` +
				`(trigger ${list(rejected.trigger, 2)}; Webhook+Code ${list(rejected.webhook, 2)}; floor ${list(rejected.floor, 2)}; floor under the trigger's description ${list(rejected.described, 2)} ms); ` +
				`answered ${statuses.trigger.join('/')} vs ${statuses.webhook.join('/')} vs floor ${statuses.floor.join('/')}`),
		vsFloor(`${prefix}cf`, 'rejected delivery (wrong secret), one at a time', median(rejected.trigger), median(rejected.floor), fmtMs, false,
			`latency ≤ ${FLOOR_SLACK}× the floor's; the figures of ${prefix}c. ${floorCost(median(rejected.floor), median(rejected.webhook), fmtMs)}`),
		described(`${prefix}cp`, 'rejected delivery (wrong secret), one at a time', median(rejected.described), median(rejected.floor), median(rejected.trigger), `the figures of ${prefix}c`),
		vsFloor(`${prefix}ef`, 'accepted 1-tx delivery, one at a time: latency', median(paired.trigger), median(paired.floor), fmtMs, false,
			`POST → answer (the execution saved, as n8n answers these), median of ${PAIRED_N} per side and round, ${oneAtATime}, the trigger, the floor and the floor under the trigger's description ` +
				`taking turns, each a block of its own, every execution checked; median of ${rounds} rounds (trigger ${list(paired.trigger, 2)}; floor ${list(paired.floor, 2)}; ` +
				`floor under the trigger's description ${list(paired.described, 2)} ms). Latency ≤ ${FLOOR_SLACK}× the floor's`),
		described(`${prefix}ep`, 'accepted 1-tx delivery, one at a time: latency', median(paired.described), median(paired.floor), median(paired.trigger), `the figures of ${prefix}ef`),
	);
	return rows;
}
