/**
 * The in-process parts of the benchmark, each run in a child process of its own (so the
 * figures are not disturbed by the rest of the run, and memory can be measured with the V8
 * flags it needs):
 *
 *   node .build/test/tools/bench/engine.js webhook-time
 *   node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 .build/test/tools/bench/engine.js webhook-memory
 *   node .build/test/tools/bench/engine.js getall
 *   node .build/test/tools/bench/engine.js pacing [windowMs]
 *
 * Each prints its figures as one JSON line, last.
 */
import * as http from 'http';
import { PerformanceObserver, performance } from 'perf_hooks';

import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { StacksHooksApi } from '../../../credentials/StacksHooksApi.credentials';
import { StacksHooks } from '../../../nodes/StacksHooks/StacksHooks.node';
import { StacksHooksTrigger } from '../../../nodes/StacksHooksTrigger/StacksHooksTrigger.node';
import { type Emulator, startEmulator } from '../../emulator';
import { type CredentialsMap, runNode, runWebhook } from '../../support/engine/harness';
import { API_KEY, delivery, SECRET } from './payloads';
import { median, nowMs } from './util';

const credentialTypes = [new StacksHooksApi()];
const trigger = new StacksHooksTrigger();
const action = new StacksHooks();

const HOOK_UUID = '7c1f3a52-5b8e-4c1a-9a59-0b3f9cf1a0d7';
const TRIGGER_PARAMETERS = { events: { filter: [{ type: 'stx_transfer' }] } };

function credentials(baseUrl: string): CredentialsMap {
	return { stacksHooksApi: { apiKey: API_KEY, network: 'testnet', baseUrl, consumerSecret: SECRET } };
}

/* -------------------------------------------------------------------------------------------- */
/* webhook(): the trigger's own work per delivery                                               */
/* -------------------------------------------------------------------------------------------- */

interface Prepared {
	text: string;
	body: unknown;
	bytes: number;
	txCount: number;
	/** A real n8n-core WebhookContext for this delivery, built once by the engine harness. */
	context: IWebhookFunctions;
	/** The node's webhook() on that context. */
	call: () => Promise<IWebhookResponseData>;
	/** The harness's whole runWebhook (builds Workflow, additional data and context, then calls webhook()). */
	callThroughHarness: () => Promise<IWebhookResponseData>;
}

/**
 * Builds the context through the engine harness's runWebhook: the node type handed to it is
 * the real trigger behind a wrapper whose webhook() remembers the context it was called on.
 */
async function prepare(txCount: number): Promise<Prepared> {
	const payload = delivery(HOOK_UUID, 'bench', 1000, txCount);
	const text = JSON.stringify(payload);
	const body = JSON.parse(text) as unknown;
	let context: IWebhookFunctions | undefined;
	const spy = Object.create(trigger) as StacksHooksTrigger;
	spy.webhook = async function (this: IWebhookFunctions) {
		context = this;
		return await trigger.webhook.call(this);
	};
	const options = {
		credentialTypes,
		credentials: credentials('http://127.0.0.1:9/hooks/v1'),
		parameters: TRIGGER_PARAMETERS,
		headers: { 'content-type': 'application/json', 'x-hook-consumer-secret': SECRET },
		body,
		rawBody: text,
	};
	const first = await runWebhook({ ...options, nodeType: spy });
	check(first.response, txCount, 'runWebhook');
	const answer = first.sentBody as IDataObject | undefined;
	if (first.status !== 200 || answer?.received !== true || answer?.items !== txCount) {
		throw new Error(`runWebhook: answered ${first.status} ${JSON.stringify(answer)}, expected 200 {received: true, items: ${txCount}}`);
	}
	const ctx = context!;
	return {
		text,
		body,
		bytes: Buffer.byteLength(text),
		txCount,
		context: ctx,
		call: async () => await trigger.webhook.call(ctx),
		callThroughHarness: async () => (await runWebhook({ ...options, nodeType: trigger })).response,
	};
}

function check(response: IWebhookResponseData, txCount: number, what: string): void {
	const items = response.workflowData?.[0]?.length;
	if (items !== txCount) throw new Error(`${what}: expected ${txCount} items, got ${items}`);
}

/** Median time per call (ms) over `batches` batches of `perBatch` calls, after `warmup` calls. */
async function timePerCall(
	fn: () => unknown,
	{ warmup, batches, perBatch }: { warmup: number; batches: number; perBatch: number },
): Promise<{ median: number; samples: number[] }> {
	for (let i = 0; i < warmup; i++) await fn();
	const samples: number[] = [];
	for (let b = 0; b < batches; b++) {
		const start = nowMs();
		for (let i = 0; i < perBatch; i++) await fn();
		samples.push((nowMs() - start) / perBatch);
	}
	return { median: median(samples), samples };
}

async function webhookTime() {
	const small = await prepare(1);
	const large = await prepare(2000);
	check(await small.call(), 1, 'webhook() small');
	check(await large.call(), 2000, 'webhook() large');

	const smallPlan = { warmup: 5000, batches: 15, perBatch: 2000 };
	const largePlan = { warmup: 5, batches: 21, perBatch: 1 };
	const parseSmall = await timePerCall(() => JSON.parse(small.text), smallPlan);
	const webhookSmall = await timePerCall(small.call, smallPlan);
	const harnessSmall = await timePerCall(small.callThroughHarness, { warmup: 50, batches: 7, perBatch: 50 });
	const parseLarge = await timePerCall(() => JSON.parse(large.text), largePlan);
	const webhookLarge = await timePerCall(large.call, largePlan);
	return {
		small: {
			bytes: small.bytes,
			parseMs: parseSmall.median,
			webhookMs: webhookSmall.median,
			harnessMs: harnessSmall.median,
			calls: smallPlan.batches * smallPlan.perBatch,
		},
		large: {
			bytes: large.bytes,
			txCount: large.txCount,
			parseMs: parseLarge.median,
			webhookMs: webhookLarge.median,
			calls: largePlan.batches,
		},
	};
}

/**
 * Heap used by one webhook() call on the 2,000-transaction delivery, the parsed body (which n8n
 * holds before it calls the node) already in the baseline. With a young generation larger than
 * what one call allocates, no collection runs during the call (checked with a GC observer), so
 * heapUsed right after the call counts everything it allocated: an upper bound of its peak.
 * After a full collection, with the result still referenced, what stays is what it retains.
 */
async function webhookMemory() {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run with --expose-gc');
	const large = await prepare(2000);
	for (let i = 0; i < 5; i++) check(await large.call(), 2000, 'webhook() large');

	const gcs: number[] = [];
	const observer = new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) gcs.push(entry.startTime);
	});
	observer.observe({ entryTypes: ['gc'] });

	const peaks: number[] = [];
	const retained: number[] = [];
	let disturbed = 0;
	// Held outside the loop and dropped before each baseline, so no earlier result is in it.
	let result: IWebhookResponseData | undefined;
	for (let i = 0; i < 9; i++) {
		result = undefined;
		gc();
		gc();
		await new Promise((resolve) => setImmediate(resolve));
		const before = process.memoryUsage().heapUsed;
		const from = performance.now();
		result = await large.call();
		const after = process.memoryUsage().heapUsed;
		const to = performance.now();
		gc();
		const kept = process.memoryUsage().heapUsed;
		check(result, 2000, 'webhook() large');
		await new Promise((resolve) => setImmediate(resolve));
		if (gcs.some((at) => at >= from && at <= to)) {
			disturbed++;
			continue;
		}
		peaks.push(after - before);
		retained.push(kept - before);
	}
	observer.disconnect();
	if (peaks.length === 0) throw new Error('a garbage collection ran during every measured call');
	return {
		bytes: large.bytes,
		txCount: large.txCount,
		peakBytes: median(peaks),
		peakMaxBytes: Math.max(...peaks),
		retainedBytes: median(retained),
		samples: peaks.length,
		disturbed,
	};
}

/* -------------------------------------------------------------------------------------------- */
/* The action node against the emulator                                                         */
/* -------------------------------------------------------------------------------------------- */

async function seedHooks(emu: Emulator, count: number): Promise<string[]> {
	const uuids: string[] = [];
	let next = 0;
	const worker = async () => {
		while (next < count) {
			const i = next++;
			const res = await fetch(`${emu.url}/me/`, {
				method: 'POST',
				headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
				body: JSON.stringify({
					name: `bench hook ${String(i).padStart(4, '0')}`,
					version: '1',
					chain: 'stacks',
					network: 'testnet',
					filters: { events: [{ type: 'stx_transfer' }] },
					action: { type: 'http_post', url: `https://127.0.0.1:9/webhook/bench-${i}` },
				}),
			});
			if (res.status !== 200) throw new Error(`seeding hook ${i}: ${res.status} ${await res.text()}`);
			uuids.push(((await res.json()) as { uuid: string }).uuid);
		}
	};
	await Promise.all(Array.from({ length: 20 }, worker));
	return uuids;
}

/** One GET on a new connection; the parsed JSON answer. */
function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
	return new Promise((resolve, reject) => {
		const req = http.get(url, { headers, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () => {
				try {
					resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
				} catch (error) {
					reject(error);
				}
			});
			res.on('error', reject);
		});
		req.on('error', reject);
	});
}

/** getAll with Return All over 600 hooks, 50 ms added to every answer. */
async function getAll() {
	const HOOKS = 600;
	const LATENCY = 50;
	const emu = await startEmulator({ accounts: [{ apiKey: API_KEY, consumerSecret: SECRET }], rateLimit: null });
	try {
		await seedHooks(emu, HOOKS);
		emu.configure({ latencyMs: LATENCY, rateLimit: { limit: 1000, windowMs: 60_000 } });

		// The floor: one round trip of the first page (fresh connection each time, as the node's requests).
		const floors: number[] = [];
		for (let i = 0; i < 7; i++) {
			const start = nowMs();
			const page = (await getJson(`${emu.url}/me/?limit=60`, { 'x-api-key': API_KEY })) as { results: unknown[] };
			floors.push(nowMs() - start);
			if (page.results.length !== 60) throw new Error(`floor request returned ${page.results.length} hooks`);
		}

		const run = async () => {
			emu.clearRequests();
			const start = nowMs();
			const result = await runNode({
				nodeType: action,
				credentialTypes,
				credentials: credentials(emu.url),
				parameters: { resource: 'hook', operation: 'getAll', returnAll: true },
			});
			const wall = nowMs() - start;
			if (result.error) throw result.error;
			const uuids = new Set(result.items.map((item) => item.json.uuid));
			if (result.items.length !== HOOKS || uuids.size !== HOOKS) {
				throw new Error(`getAll returned ${result.items.length} items (${uuids.size} distinct), expected ${HOOKS}`);
			}
			const requests = emu.requests.filter((r) => r.method === 'GET');
			return { wall, requests: emu.requests.length, gets: requests.length, statuses: [...new Set(emu.requests.map((r) => r.status))] };
		};
		await run(); // warm-up: loads and compiles the code paths
		const runs = [];
		for (let i = 0; i < 7; i++) runs.push(await run());
		return {
			hooks: HOOKS,
			latencyMs: LATENCY,
			floorMs: median(floors),
			wallMs: median(runs.map((r) => r.wall)),
			requests: runs.map((r) => r.requests),
			statuses: [...new Set(runs.flatMap((r) => r.statuses))],
		};
	} finally {
		await emu.close();
	}
}

/**
 * 300 items of `enable` against a budget of `limit` requests per window. The emulator's window
 * opens at the first request after the previous one ended; the pacer only learns its end from
 * ratelimit-reset, a Unix timestamp in whole seconds (the contract).
 */
async function pacing(windowMs: number) {
	const ITEMS = 300;
	const LIMIT = 100;
	const emu = await startEmulator({ accounts: [{ apiKey: API_KEY, consumerSecret: SECRET }], rateLimit: null });
	try {
		const uuids = await seedHooks(emu, ITEMS);
		emu.clearRequests();
		emu.configure({ rateLimit: { limit: LIMIT, windowMs } });
		const start = nowMs();
		const result = await runNode({
			nodeType: action,
			credentialTypes,
			credentials: credentials(emu.url),
			parameters: { resource: 'hook', operation: 'enable', hookId: { __rl: true, mode: 'id', value: '={{ $json.uuid }}' } },
			items: uuids.map((uuid) => ({ uuid })),
			continueOnFail: true,
		});
		const wall = nowMs() - start;
		if (result.error) throw result.error;
		const failed = result.items.filter((item) => item.json.error !== undefined).length;
		const enabled = emu.hooks(API_KEY).filter((hook) => hook.status.enabled).length;
		const requests = emu.requests;
		const tooMany = requests.filter((r) => r.status === 429).length;

		// The emulator's windows, rebuilt from the arrival times (latency 0: arrival = counting time).
		const windows: Array<{ start: number; count: number }> = [];
		for (const r of requests) {
			const last = windows[windows.length - 1];
			if (!last || r.at >= last.start + windowMs) windows.push({ start: r.at, count: 1 });
			else last.count++;
		}
		// Sustained rate: requests of every window but the last, over the time from the first
		// window's opening to the last one's (each window plus the gap the client left after it).
		const span = windows.length > 1 ? windows[windows.length - 1].start - windows[0].start : NaN;
		const sustained = windows.length > 1 ? requests.length - windows[windows.length - 1].count : NaN;
		const perWindow = (sustained / span) * windowMs;
		const gaps = windows.slice(1).map((w, i) => w.start - (windows[i].start + windowMs));
		return {
			items: ITEMS,
			limit: LIMIT,
			windowMs,
			wallMs: wall,
			outputItems: result.items.length,
			failed,
			enabled,
			requests: requests.length,
			tooMany,
			windows: windows.map((w) => w.count),
			gapsMs: gaps,
			perWindow,
			fraction: perWindow / LIMIT,
		};
	} finally {
		await emu.close();
	}
}

async function main(): Promise<void> {
	const [section, arg] = process.argv.slice(2);
	let out: unknown;
	switch (section) {
		case 'webhook-time':
			out = await webhookTime();
			break;
		case 'webhook-memory':
			out = await webhookMemory();
			break;
		case 'getall':
			out = await getAll();
			break;
		case 'pacing':
			out = await pacing(Number(arg ?? 10_000));
			break;
		default:
			throw new Error(`unknown section ${section}`);
	}
	process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error instanceof Error ? (error.stack ?? error.message) : error);
		process.exit(1);
	},
);
