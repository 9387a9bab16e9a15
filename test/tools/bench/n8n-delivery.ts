/**
 * Deliveries inside a real n8n (2.41.1 on Node 24, HTTPS, the packed package installed as n8n
 * installs community packages): the same deliveries posted concurrently to
 *   A: a workflow of the Stacks Hooks Trigger (its production webhook), and
 *   B: a workflow of n8n's Webhook node (POST, respond on received, header auth with the
 *      consumer secret) and a Code node splitting the payload into the same per-transaction items,
 * alternated A/B, B/A, ... over several rounds, for each n8n configuration asked for (n8n
 * restarted in between, same user folder). Every accepted delivery must give exactly one
 * successful execution with the right number of items (checked from the saved executions:
 * n8n's default of saving every execution stays on, so the reference does the same work).
 */
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';

import { type Emulator, startEmulator } from '../../emulator';
import { setTimeout as sleep } from 'timers/promises';

import type { Execution, WorkflowJson } from '../../support/n8n/api';
import { type N8nInstance, startN8n } from '../../support/n8n/instance';
import { installPackage } from '../../support/n8n/package';
import { ALICE, API_KEY, BOB, type Delivery, delivery, SECRET, WRONG_SECRET } from './payloads';
import { envWithoutNpm, median, nowMs, percentile, runChild } from './util';

const TRIGGER_TYPE = 'n8n-nodes-stacks-hooks.stacksHooksTrigger';
const TRIGGER_NODE = 'Stacks Hooks Trigger';
const TRIGGER_WEBHOOK_ID = '5b0c8a4e-1f2d-4e3a-9b6c-7d8e9f0a1b2c';
const WEBHOOK_NODE = 'Webhook';
const WEBHOOK_PATH = 'stacks-bench';
const CODE_NODE = 'Split Transactions';

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

export type Variant = 'trigger' | 'webhook';

export interface BatchFigures {
	n: number;
	concurrency: number;
	/** Completed deliveries per second: from the first POST to the last of their executions stopping. */
	perSecond: number;
	/** Answered deliveries per second: from the first POST to the last answer. */
	answeredPerSecond: number;
	p50: number;
	p99: number;
}

export interface ConfigFigures {
	/** Short id for the table ('' for n8n's defaults). */
	id: string;
	/** How n8n was configured for these rounds. */
	label: string;
	env: Record<string, string>;
	small: { trigger: BatchFigures[]; webhook: BatchFigures[] };
	large: { trigger: BatchFigures[]; webhook: BatchFigures[] };
	rejected: { trigger: number[]; webhook: number[]; triggerStatus: number[]; webhookStatus: number[] };
}

export interface DeliveryFigures {
	rounds: number;
	smallTx: number;
	smallBytes: number;
	largeTx: number;
	largeBytes: number;
	configs: ConfigFigures[];
	correctness: {
		/** Accepted deliveries (the emulator's own delivery included), per workflow. */
		accepted: Record<Variant, number>;
		/** Executions n8n saved, per workflow. */
		executions: Record<Variant, number>;
		/** Problems found: wrong status, item count, answer, or missing/extra executions. */
		problems: string[];
	};
	n8nVersion: string;
	setupMs: number;
}

export interface DeliveryOptions {
	/** The package's folder (dist/ built). */
	repoDir: string;
	/** n8n configurations to measure in turn (same user folder, workflows and emulator; n8n restarted between them). */
	configs: Array<{ id: string; label: string; env: Record<string, string> }>;
	rounds: number;
	smallN: number;
	largeN: number;
	largeTx: number;
	concurrency: number;
	rejectedN: number;
	log: (msg: string) => void;
}

interface Target {
	variant: Variant;
	workflowId: string;
	url: string;
	/** The node whose first output holds the per-transaction items. */
	itemsNode: string;
	acceptedStatus: number;
	rejectedStatus: number;
}

/* -------------------------------------------------------------------------------------------- */
/* Posting                                                                                      */
/* -------------------------------------------------------------------------------------------- */

interface Posted {
	latencies: number[];
	statuses: number[];
	bodies: string[];
	/** Date.now() when the first POST started and when the last answer ended. */
	startedAt: number;
	answeredAt: number;
}

function post(agent: https.Agent, url: string, body: Buffer, secret: string): Promise<{ ms: number; status: number; text: string }> {
	return new Promise((resolve, reject) => {
		const start = nowMs();
		const req = https.request(
			url,
			{
				method: 'POST',
				agent,
				headers: {
					'content-type': 'application/json',
					'content-length': String(body.length),
					'user-agent': 'stacks-hooks-bench',
					'x-hook-consumer-secret': secret,
				},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('error', reject);
				res.on('end', () =>
					resolve({ ms: nowMs() - start, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
				);
			},
		);
		req.setTimeout(120_000, () => req.destroy(new Error(`POST ${url}: no answer within 120 s`)));
		req.on('error', reject);
		req.end(body);
	});
}

/** `n` POSTs of the same body by `concurrency` workers over keep-alive connections. */
async function blast(n8n: N8nInstance, url: string, body: Buffer, n: number, concurrency: number, secret: string): Promise<Posted> {
	const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, ca: n8n.certificate });
	const out: Posted = { latencies: [], statuses: [], bodies: [], startedAt: Date.now(), answeredAt: 0 };
	let next = 0;
	try {
		const worker = async () => {
			while (next < n) {
				next++;
				const answer = await post(agent, url, body, secret);
				out.latencies.push(answer.ms);
				out.statuses.push(answer.status);
				out.bodies.push(answer.text);
			}
		};
		await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
		out.answeredAt = Date.now();
	} finally {
		agent.destroy();
	}
	return out;
}

/* -------------------------------------------------------------------------------------------- */
/* Executions                                                                                   */
/* -------------------------------------------------------------------------------------------- */

const isFinished = (e: Execution) => !['new', 'running', 'waiting'].includes(e.status) && e.stoppedAt !== null;

/** The workflow's executions with an id above `afterId`, newest first (pages until it reaches older ones). */
async function executionsAfter(n8n: N8nInstance, workflowId: string, afterId: number, includeData: boolean, limit = 250): Promise<Execution[]> {
	const out: Execution[] = [];
	let cursor: string | undefined;
	for (;;) {
		const query = new URLSearchParams({ workflowId, limit: String(limit) });
		if (includeData) query.set('includeData', 'true');
		if (cursor) query.set('cursor', cursor);
		const page = (await n8n.api.public('GET', `/executions?${query.toString()}`)) as { data: Execution[]; nextCursor?: string | null };
		let older = false;
		for (const execution of page.data) {
			if (Number(execution.id) > afterId) out.push(execution);
			else older = true;
		}
		cursor = page.nextCursor ?? undefined;
		if (older || !cursor) return out;
	}
}

/** Waits until `count` executions above `afterId` have finished; returns them. */
async function waitForNew(n8n: N8nInstance, workflowId: string, afterId: number, count: number, timeoutMs = 300_000): Promise<Execution[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const seen = await executionsAfter(n8n, workflowId, afterId, false);
		if (seen.length >= count && seen.every(isFinished)) return seen;
		if (Date.now() > deadline) {
			throw new Error(`waited ${timeoutMs} ms for ${count} executions of workflow ${workflowId}; ${seen.length} seen, ${seen.filter(isFinished).length} finished`);
		}
		await sleep(250);
	}
}

function itemCount(execution: Execution, node: string): number | undefined {
	return execution.data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0]?.length;
}

/* -------------------------------------------------------------------------------------------- */
/* Set-up                                                                                       */
/* -------------------------------------------------------------------------------------------- */

async function packTarball(repoDir: string, resources: Resources, log: (msg: string) => void): Promise<string> {
	// dist/ was just built by `npm run bench`; pack it as is.
	const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-bench-pack-'));
	resources.dirs.push(dest);
	const result = await runChild('npm', ['pack', '--ignore-scripts', '--pack-destination', dest], {
		cwd: repoDir,
		env: envWithoutNpm(),
		timeoutMs: 120_000,
	});
	if (result.code !== 0) throw new Error(`npm pack failed: ${result.stderr}`);
	const tarball = fs.readdirSync(dest).find((f) => f.endsWith('.tgz'));
	if (!tarball) throw new Error(`npm pack left no tarball in ${dest}`);
	log(`packed ${tarball}`);
	return path.join(dest, tarball);
}

function triggerWorkflow(credential: { id: string; name: string }): WorkflowJson {
	return {
		name: 'Bench: Stacks Hooks Trigger',
		nodes: [
			{
				id: 'b1a2c3d4-0000-4000-8000-000000000001',
				name: TRIGGER_NODE,
				type: TRIGGER_TYPE,
				// The version n8n gives the node when it is added now (1.1 skips n8n's per-request legacy
				// expression for typeVersion 1; see the node's description).
				typeVersion: 1.1,
				position: [0, 0],
				webhookId: TRIGGER_WEBHOOK_ID,
				parameters: { events: { filter: [{ type: 'stx_transfer', sender: ALICE }] } },
				credentials: { stacksHooksApi: credential },
			},
		],
		connections: {},
	};
}

function webhookWorkflow(credential: { id: string; name: string }): WorkflowJson {
	return {
		name: 'Bench: Webhook + Code',
		nodes: [
			{
				id: 'b1a2c3d4-0000-4000-8000-000000000002',
				name: WEBHOOK_NODE,
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				position: [0, 0],
				webhookId: '6c1d9b5f-2a3e-4f4b-8c7d-8e9fa0b1c2d3',
				parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, authentication: 'headerAuth', responseMode: 'onReceived', options: {} },
				credentials: { httpHeaderAuth: credential },
			},
			{
				id: 'b1a2c3d4-0000-4000-8000-000000000003',
				name: CODE_NODE,
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { mode: 'runOnceForAllItems', language: 'javaScript', jsCode: SPLIT_JS },
			},
		],
		connections: { [WEBHOOK_NODE]: { main: [[{ node: CODE_NODE, type: 'main', index: 0 }]] } },
	};
}

/* -------------------------------------------------------------------------------------------- */
/* The benchmark                                                                                */
/* -------------------------------------------------------------------------------------------- */

export interface Resources {
	n8n?: N8nInstance;
	emulator?: Emulator;
	dirs: string[];
}

export async function measureDeliveries(opts: DeliveryOptions, resources: Resources): Promise<DeliveryFigures> {
	const { log } = opts;
	const setupStart = Date.now();
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-bench-n8n-'));
	resources.dirs.push(userFolder);
	const tarball = await packTarball(opts.repoDir, resources, log);
	await installPackage(userFolder, tarball);
	log('installed the package into the n8n user folder; starting n8n');
	// The Code node's task runner stays up between rounds, so the reference is not charged for restarting it.
	const baseEnv = { N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT: '0' };
	const start = async (env: Record<string, string>, port?: number, brokerPort?: number) => {
		const instance = await startN8n({
			userFolder,
			https: true,
			port,
			brokerPort,
			env: { ...baseEnv, ...env },
			provisionLog: (msg) => log(`[n8n host] ${msg}`),
		});
		resources.n8n = instance;
		return instance;
	};
	let n8n = await start(opts.configs[0].env);
	const emu = await startEmulator({ accounts: [{ apiKey: API_KEY, consumerSecret: SECRET }], deliveryCa: n8n.certificate });
	resources.emulator = emu;

	const hooksCredential = await n8n.api.createCredential({
		name: 'Stacks Hooks (bench emulator)',
		type: 'stacksHooksApi',
		data: { apiKey: API_KEY, network: 'testnet', baseUrl: emu.url, consumerSecret: SECRET },
	});
	const headerCredential = await n8n.api.createCredential({
		name: 'Consumer secret header (bench)',
		type: 'httpHeaderAuth',
		data: { name: 'x-hook-consumer-secret', value: SECRET },
	});
	const triggerWf = await n8n.api.createWorkflow(triggerWorkflow({ id: hooksCredential.id, name: hooksCredential.name }));
	await n8n.api.activate(triggerWf.id);
	const webhookWf = await n8n.api.createWorkflow(webhookWorkflow({ id: headerCredential.id, name: headerCredential.name }));
	await n8n.api.activate(webhookWf.id);

	const hooks = emu.hooks(API_KEY);
	const problems: string[] = [];
	const triggerUrl = n8n.webhookUrl(`${TRIGGER_WEBHOOK_ID}/webhook`);
	if (hooks.length !== 1 || hooks[0].definition.action.url !== triggerUrl) {
		throw new Error(`activation registered ${hooks.length} hook(s) at the emulator: ${JSON.stringify(hooks.map((h) => h.definition.action))}`);
	}
	const hook = hooks[0];

	const targets: Record<Variant, Target> = {
		trigger: { variant: 'trigger', workflowId: triggerWf.id, url: triggerUrl, itemsNode: TRIGGER_NODE, acceptedStatus: 200, rejectedStatus: 401 },
		webhook: { variant: 'webhook', workflowId: webhookWf.id, url: n8n.webhookUrl(WEBHOOK_PATH), itemsNode: CODE_NODE, acceptedStatus: 200, rejectedStatus: 403 },
	};
	const accepted: Record<Variant, number> = { trigger: 0, webhook: 0 };
	let lastId = 0;

	// The real path once: the emulator delivers a block to the trigger it registered.
	const [report] = await emu.injectBlock({
		height: 500,
		transactions: [1, 2, 3].map((i) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount: i })),
	});
	if (report?.status !== 200) problems.push(`the emulator's own delivery was answered ${report?.status} (${report?.error})`);
	accepted.trigger++;
	const [first] = await waitForNew(n8n, triggerWf.id, lastId, 1);
	const [firstWithData] = await executionsAfter(n8n, triggerWf.id, lastId, true);
	if (itemCount(firstWithData, TRIGGER_NODE) !== 3) problems.push(`the emulator's 3-transaction delivery gave ${itemCount(firstWithData, TRIGGER_NODE)} items`);
	lastId = Math.max(lastId, Number(first.id));
	const setupMs = Date.now() - setupStart;
	log(`n8n ready, both workflows active, the emulator's delivery ran (${(setupMs / 1000).toFixed(1)} s of set-up)`);

	const small = delivery(hook.uuid, hook.definition.name, 1001, 1);
	const large = delivery(hook.uuid, hook.definition.name, 1002, opts.largeTx);
	const bodies = { small: Buffer.from(JSON.stringify(small)), large: Buffer.from(JSON.stringify(large)) };
	const txCount = (d: Delivery) => (d.event.apply as Array<{ transactions: unknown[] }>)[0].transactions.length;

	/** One batch: post, wait for every execution, check them; the figures. */
	const batch = async (target: Target, size: 'small' | 'large', n: number): Promise<BatchFigures> => {
		const body = bodies[size];
		const expectedItems = txCount(size === 'small' ? small : large);
		const before = lastId;
		const posted = await blast(n8n, target.url, body, n, opts.concurrency, SECRET);
		const ok = posted.statuses.filter((s) => s === target.acceptedStatus).length;
		accepted[target.variant] += ok;
		if (ok !== n) problems.push(`${target.variant} ${size}: ${n - ok} of ${n} deliveries answered ${[...new Set(posted.statuses)].join('/')}`);
		if (target.variant === 'trigger') {
			const wrong = posted.bodies.filter((b) => b !== JSON.stringify({ received: true, items: expectedItems })).length;
			if (wrong) problems.push(`trigger ${size}: ${wrong} answers were not {received:true, items:${expectedItems}}`);
		}
		const done = await waitForNew(n8n, target.workflowId, before, ok);
		const stoppedAt = Math.max(...done.map((e) => Date.parse(e.stoppedAt!)));
		// Verify each execution's status and item count from its saved data.
		const withData = await executionsAfter(n8n, target.workflowId, before, true, size === 'small' ? 100 : 10);
		if (withData.length !== ok) problems.push(`${target.variant} ${size}: ${ok} deliveries accepted, ${withData.length} executions`);
		for (const execution of withData) {
			const items = itemCount(execution, target.itemsNode);
			if (execution.status !== 'success' || items !== expectedItems) {
				problems.push(`${target.variant} ${size}: execution ${execution.id} ${execution.status} with ${items} items (expected ${expectedItems})`);
			}
		}
		lastId = Math.max(lastId, ...withData.map((e) => Number(e.id)));
		return {
			n,
			concurrency: opts.concurrency,
			perSecond: ok / ((stoppedAt - posted.startedAt) / 1000),
			answeredPerSecond: n / ((posted.answeredAt - posted.startedAt) / 1000),
			p50: percentile(posted.latencies, 50),
			p99: percentile(posted.latencies, 99),
		};
	};

	/** Rejected deliveries one at a time (the cost of one refusal on an otherwise idle n8n): their median latency. */
	const rejectedBatch = async (target: Target, n = opts.rejectedN): Promise<{ median: number; statuses: number[] }> => {
		const posted = await blast(n8n, target.url, bodies.small, n, 1, WRONG_SECRET);
		const statuses = [...new Set(posted.statuses)];
		if (statuses.length !== 1 || statuses[0] !== target.rejectedStatus) {
			problems.push(`${target.variant} rejected: answered ${statuses.join('/')} (expected ${target.rejectedStatus})`);
		}
		return { median: median(posted.latencies), statuses };
	};

	const figures: DeliveryFigures = {
		rounds: opts.rounds,
		smallTx: txCount(small),
		smallBytes: bodies.small.length,
		largeTx: txCount(large),
		largeBytes: bodies.large.length,
		configs: [],
		correctness: { accepted, executions: { trigger: 0, webhook: 0 }, problems },
		n8nVersion: '2.41.1',
		setupMs,
	};

	for (const [index, config] of opts.configs.entries()) {
		if (index > 0) {
			log(`restarting n8n with ${config.label}`);
			const { port, brokerPort } = n8n;
			await n8n.stop();
			n8n = await start(config.env, port, brokerPort);
		}
		// Warm-up (not reported): compiles the code paths and starts the Code node's task runner.
		log(`${config.label}: warm-up`);
		for (const variant of ['trigger', 'webhook'] as const) {
			await batch(targets[variant], 'small', 10);
			await batch(targets[variant], 'large', 1);
			await rejectedBatch(targets[variant], 5);
		}
		const result: ConfigFigures = {
			id: config.id,
			label: config.label,
			env: config.env,
			small: { trigger: [], webhook: [] },
			large: { trigger: [], webhook: [] },
			rejected: { trigger: [], webhook: [], triggerStatus: [], webhookStatus: [] },
		};
		figures.configs.push(result);
		for (let round = 1; round <= opts.rounds; round++) {
			// A/B, then B/A: neither side always goes first.
			const order: Variant[] = round % 2 ? ['trigger', 'webhook'] : ['webhook', 'trigger'];
			for (const size of ['small', 'large'] as const) {
				const n = size === 'small' ? opts.smallN : opts.largeN;
				for (const variant of order) {
					const t0 = nowMs();
					result[size][variant].push(await batch(targets[variant], size, n));
					log(`${config.label}, round ${round}: ${variant} ${n} × ${txCount(size === 'small' ? small : large)}-tx: ${describe(result[size][variant].at(-1)!)} (${((nowMs() - t0) / 1000).toFixed(1)} s)`);
				}
			}
			for (const variant of order) {
				const rejected = await rejectedBatch(targets[variant]);
				result.rejected[variant].push(rejected.median);
				result.rejected[variant === 'trigger' ? 'triggerStatus' : 'webhookStatus'] = rejected.statuses;
				log(`${config.label}, round ${round}: ${variant} rejected × ${opts.rejectedN}: median ${rejected.median.toFixed(2)} ms`);
			}
		}
	}

	// Nothing more than the accepted deliveries ran (rejected ones started nothing).
	await sleep(1500);
	for (const variant of ['trigger', 'webhook'] as const) {
		const all = await executionsAfter(n8n, targets[variant].workflowId, 0, false);
		figures.correctness.executions[variant] = all.length;
		if (all.length !== accepted[variant]) {
			problems.push(`${variant}: ${accepted[variant]} accepted deliveries but ${all.length} executions`);
		}
	}
	return figures;
}

function describe(b: BatchFigures): string {
	return `${b.perSecond.toFixed(1)}/s done, ${b.answeredPerSecond.toFixed(1)}/s answered, p50 ${b.p50.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms`;
}
