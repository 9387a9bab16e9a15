/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Parts 2-4, in process, each in a child process of its own (so the rest of the run does not
 * disturb its figures, and memory is measured with the V8 flags it needs). Prints its table
 * rows as one JSON line, last:
 *
 *   node .build/test/tools/bench/engine.js webhook-time                    2a, 2b, 2d, 2f
 *   node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 \
 *        .build/test/tools/bench/engine.js webhook-memory                  2c, 2e
 *   node .build/test/tools/bench/engine.js getall                          3a, 3b
 *   node .build/test/tools/bench/engine.js pacing | pacing-2s              4 | 4i
 *   node .build/test/tools/bench/engine.js watch-list                      9a-9d
 */
import * as http from 'http';
import { PerformanceObserver, performance } from 'perf_hooks';
import { json } from 'stream/consumers';

import type { IWebhookResponseData } from 'n8n-workflow';

import { type Emulator, startEmulator } from '../../emulator';
import { runNode } from '../../support/engine/harness';
import { API_KEY, DEFI_BLOCK, DEFI_EVENTS, DEFI_FILTERS, defiDelivery, delivery, SECRET } from './payloads';
import { fmtBytes, fmtMs, median, type Row, verdict } from './util';
import { watchListRows } from './watchList';
import { action, check, credentials, credentialTypes, fmtCount, HOOK_UUID, prepare, timePerCall } from './webhookCalls';

/** The 2,000-transaction block of 2b-2e: a DeFi hook's busy block (payloads.ts, defiDelivery). */
const BUSY_TX = 2000;
const busy = defiDelivery(HOOK_UUID, 'bench', 1000, BUSY_TX);
/** The same block to a hook with no option set: Clarity values as hex alone (the service's default), no block metadata. */
const busyHex = defiDelivery(HOOK_UUID, 'bench', 1000, BUSY_TX, 'hex');

/** The trigger's parameters of each delivery the rows post: its output, and the filters of its hook. */
const SMALL = { body: delivery(HOOK_UUID, 'bench', 1000, 1), parameters: { events: { filter: [{ type: 'stx_transfer' }] } }, items: 1 };
const LARGE = { body: busy.body, parameters: { events: { filter: DEFI_FILTERS } }, items: BUSY_TX };
const LARGE_EVENTS = { body: busy.body, parameters: { events: { filter: DEFI_FILTERS }, output: 'event' }, items: busy.events };
const LARGE_EVENTS_HEX = { body: busyHex.body, parameters: { events: { filter: DEFI_FILTERS }, output: 'event' }, items: busyHex.events };

async function webhookTime(): Promise<Row[]> {
	const small = await prepare(SMALL);
	const large = await prepare(LARGE);
	const events = await prepare(LARGE_EVENTS);
	const eventsHex = await prepare(LARGE_EVENTS_HEX);
	check(await small.call(), small.items, 'webhook() small');
	check(await large.call(), large.items, 'webhook() large');
	check(await events.call(), events.items, 'webhook() large, One Item per Event');
	check(await eventsHex.call(), eventsHex.items, 'webhook() large, One Item per Event, values as hex alone');
	const smallPlan = { warmup: 5000, batches: 15, perBatch: 2000 };
	const largePlan = { warmup: 5, batches: 21, perBatch: 1 };
	const parseSmall = await timePerCall(() => JSON.parse(small.text), smallPlan);
	const webhookSmall = await timePerCall(small.call, smallPlan);
	const harnessSmall = await timePerCall(small.callThroughHarness, { warmup: 50, batches: 7, perBatch: 50 });
	const parseLarge = await timePerCall(() => JSON.parse(large.text), largePlan);
	const webhookLarge = await timePerCall(large.call, largePlan);
	const webhookEvents = await timePerCall(events.call, largePlan);
	const webhookEventsHex = await timePerCall(eventsHex.call, largePlan);
	return [
		{
			id: '2a', what: `trigger webhook() per call, 1-tx delivery (${fmtBytes(small.bytes)}), in process`,
			figure: fmtMs(webhookSmall), reference: `JSON.parse ${fmtMs(parseSmall)}`, ratio: webhookSmall / parseSmall,
			target: '< 50 µs', verdict: verdict(webhookSmall < 0.05),
			raw:
				`median of 15 batches × 2,000 calls on one n8n-core WebhookContext built once by the engine harness and reused ` +
				`(building it per call, as runWebhook does: ${fmtMs(harnessSmall)} per delivery)`,
		}, {
			id: '2b', what: `trigger webhook() per call, 2,000-tx block (${fmtBytes(large.bytes)})`,
			figure: fmtMs(webhookLarge), reference: `JSON.parse ${fmtMs(parseLarge)}`, ratio: webhookLarge / parseLarge,
			target: '≤ 0.5× JSON.parse', verdict: verdict(webhookLarge / parseLarge <= 0.5),
			raw: `median of ${largePlan.batches} calls each (after 5 warm-up calls); the block: ${DEFI_BLOCK}`,
		}, {
			id: '2d', what: `trigger webhook() per call, One Item per Event, 2,000-tx block (${fmtBytes(events.bytes)}): ${fmtCount(events.items)} items`,
			figure: fmtMs(webhookEvents), reference: `JSON.parse ${fmtMs(parseLarge)}`, ratio: webhookEvents / parseLarge,
			target: '≤ 0.5× JSON.parse', verdict: verdict(webhookEvents / parseLarge <= 0.5),
			raw:
				`median of ${largePlan.batches} calls (after 5 warm-up calls), the block and JSON.parse of 2b; output 'event', ` +
				`the hook's filters select ${fmtCount(events.items)} of its events: ${DEFI_EVENTS}`,
		}, {
			id: '2f', what: `trigger webhook() per call, One Item per Event, the block of 2d with values as hex alone (${fmtBytes(eventsHex.bytes)})`,
			figure: fmtMs(webhookEventsHex), reference: `2d (values decoded) ${fmtMs(webhookEvents)}`, ratio: webhookEventsHex / webhookEvents,
			target: 'info (the hex read where no repr came)', verdict: 'info',
			raw:
				`median of ${largePlan.batches} calls (after 5 warm-up calls); the block of 2d to a hook with no option set, the service's default: ` +
				`every print's value, result and argument as hex alone, read by the trigger itself (nodes/shared/clarity/binary.ts), no block metadata`,
		},
	];
}

/**
 * Heap used by one webhook() call on the 2,000-transaction delivery, the parsed body (which n8n
 * holds before it calls the node) already in the baseline. With a young generation larger than
 * what one call allocates, no collection runs during the call (checked with a GC observer), so
 * heapUsed right after the call counts everything it allocated: an upper bound of its peak.
 * After a full collection, with the result still referenced, what stays is what it retains.
 */
async function heapOfCall(large: Awaited<ReturnType<typeof prepare>>, what: string) {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run with --expose-gc');
	for (let i = 0; i < 5; i++) check(await large.call(), large.items, what);
	const gcs: number[] = [];
	const observer = new PerformanceObserver((list) => gcs.push(...list.getEntries().map((entry) => entry.startTime)));
	observer.observe({ entryTypes: ['gc'] });
	const peaks: number[] = [];
	const retained: number[] = [];
	const tick = () => new Promise((resolve) => setImmediate(resolve));
	// Held outside the loop and dropped before each baseline, so no earlier result is in it.
	let result: IWebhookResponseData | undefined;
	for (let i = 0; i < 9; i++) {
		result = undefined;
		gc();
		gc();
		await tick();
		const before = process.memoryUsage().heapUsed;
		const from = performance.now();
		result = await large.call();
		const after = process.memoryUsage().heapUsed;
		const to = performance.now();
		gc();
		const kept = process.memoryUsage().heapUsed;
		check(result, large.items, what);
		await tick();
		if (gcs.some((at) => at >= from && at <= to)) continue; // a collection ran during the call
		peaks.push(after - before);
		retained.push(kept - before);
	}
	observer.disconnect();
	if (peaks.length === 0) throw new Error(`${what}: a garbage collection ran during every measured call`);
	const peak = median(peaks);
	return {
		figure: fmtBytes(peak), reference: `payload ${fmtBytes(large.bytes)}`, ratio: peak / large.bytes,
		target: '≤ 3× payload', verdict: verdict(peak / large.bytes <= 3),
		raw:
			`heapUsed after the call minus before it (parsed body already held; no GC ran during the ${peaks.length} measured calls, ` +
			`so this is everything the call allocated, an upper bound of its peak; max ${fmtBytes(Math.max(...peaks))}); ` +
			`retained after a full GC with the items held: ${fmtBytes(median(retained))}`,
	};
}

async function webhookMemory(): Promise<Row[]> {
	const large = await prepare(LARGE);
	const events = await prepare(LARGE_EVENTS);
	const heapLarge = await heapOfCall(large, 'webhook() large');
	const heapEvents = await heapOfCall(events, 'webhook() large, One Item per Event');
	return [
		{ id: '2c', what: 'peak extra heap of webhook(), 2,000-tx block', ...heapLarge },
		{
			id: '2e', what: `peak extra heap of webhook(), One Item per Event, 2,000-tx block: ${fmtCount(events.items)} items`, ...heapEvents,
			raw: `${heapEvents.raw}; the block and filters of 2d`,
		},
	];
}

/* The action node against the emulator ---------------------------------------------------------- */

async function emulatorWithHooks(count: number): Promise<{ emu: Emulator; uuids: string[] }> {
	const emu = await startEmulator({ accounts: [{ apiKey: API_KEY, consumerSecret: SECRET }], rateLimit: null });
	const uuids: string[] = [];
	for (let i = 0; i < count; i++) {
		const res = await fetch(`${emu.url}/me/`, {
			method: 'POST',
			headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
			body: JSON.stringify({
				name: `bench hook ${String(i).padStart(4, '0')}`, version: '1', chain: 'stacks', network: 'testnet',
				filters: { events: [{ type: 'stx_transfer' }] }, action: { type: 'http_post', url: `https://127.0.0.1:9/webhook/bench-${i}` },
			}),
		});
		if (res.status !== 200) throw new Error(`seeding hook ${i}: ${res.status} ${await res.text()}`);
		uuids.push(((await res.json()) as { uuid: string }).uuid);
	}
	return { emu, uuids };
}

/** One GET on a new connection (as each of the node's requests), its JSON answer. fetch keeps connections alive. */
const getJson = (url: string, headers: Record<string, string>) =>
	new Promise<unknown>((resolve, reject) => http.get(url, { headers, agent: false }, (res) => json(res).then(resolve, reject)).on('error', reject));

/** getAll with Return All over 600 hooks, 50 ms added to every answer. */
async function getAll(): Promise<Row[]> {
	const { emu } = await emulatorWithHooks(600);
	try {
		emu.configure({ latencyMs: 50, rateLimit: { limit: 1000, windowMs: 60_000 } });
		const floors: number[] = []; // one round trip of the first page
		for (let i = 0; i < 7; i++) {
			const start = performance.now();
			const page = (await getJson(`${emu.url}/me/?limit=60`, { 'x-api-key': API_KEY })) as { results: unknown[] };
			floors.push(performance.now() - start);
			if (page.results.length !== 60) throw new Error(`floor request returned ${page.results.length} hooks`);
		}
		const runGetAll = async () => {
			emu.clearRequests();
			const start = performance.now();
			const parameters = { resource: 'hook', operation: 'getAll', returnAll: true };
			const result = await runNode({ nodeType: action, credentialTypes, credentials: credentials(emu.url), parameters });
			const wall = performance.now() - start;
			if (result.error) throw result.error;
			const uuids = new Set(result.items.map((item) => item.json.uuid));
			if (result.items.length !== 600 || uuids.size !== 600) throw new Error(`getAll returned ${result.items.length} items (${uuids.size} distinct), expected 600`);
			return { wall, requests: emu.requests.length, statuses: emu.requests.map((r) => r.status) };
		};
		await runGetAll(); // warm-up: loads and compiles the code paths
		const runs = [];
		for (let i = 0; i < 7; i++) runs.push(await runGetAll());
		const requests = runs.map((r) => r.requests);
		const [wallMs, floorMs] = [median(runs.map((r) => r.wall)), median(floors)];
		return [
			{
				id: '3a', what: 'getAll Return All, 600 hooks, +50 ms per request: requests',
				figure: requests.every((n) => n === requests[0]) ? String(requests[0]) : requests.join('/'), reference: 'ceil(600/60) = 10', ratio: requests[0] / 10,
				target: 'exactly 10', verdict: verdict(requests.every((n) => n === 10)),
				raw: `per run, ${runs.length} runs; statuses ${[...new Set(runs.flatMap((r) => r.statuses))].join('/')}`,
			}, {
				id: '3b', what: 'getAll Return All, 600 hooks: wall time',
				figure: fmtMs(wallMs), reference: `1 GET ?limit=60 ${fmtMs(floorMs)}`, ratio: wallMs / floorMs,
				target: '≤ 3× one request', verdict: verdict(wallMs / floorMs <= 3),
				raw:
					`median of ${runs.length} runs through n8n-core (runNode, after a warm-up run), 600 items out; ` +
					`floor: median of 7 single round trips; the first page must come back before the other 9 go out together, so 2× is the least possible`,
			},
		];
	} finally {
		await emu.close();
	}
}

/**
 * 300 items of `enable` against a budget of 100 requests per window. The emulator's window
 * opens at the first request after the previous one ended; the pacer only learns its end from
 * ratelimit-reset, a Unix timestamp in whole seconds (the contract).
 */
async function pacing(windowMs: number): Promise<Row[]> {
	const { emu, uuids } = await emulatorWithHooks(300);
	try {
		emu.clearRequests();
		emu.configure({ rateLimit: { limit: 100, windowMs } });
		const start = performance.now();
		const result = await runNode({
			nodeType: action,
			credentialTypes,
			credentials: credentials(emu.url),
			parameters: { resource: 'hook', operation: 'enable', hookId: { __rl: true, mode: 'id', value: '={{ $json.uuid }}' } },
			items: uuids.map((uuid) => ({ uuid })),
			continueOnFail: true,
		});
		const wallMs = performance.now() - start;
		if (result.error) throw result.error;
		const requests = emu.requests;
		// The emulator's windows, rebuilt from the arrival times (latency 0: arrival = counting time).
		const windows: Array<{ start: number; count: number }> = [];
		for (const r of requests) {
			const last = windows.at(-1);
			if (!last || r.at >= last.start + windowMs) windows.push({ start: r.at, count: 1 });
			else last.count++;
		}
		// Sustained rate: requests of every window but the last, over the time from the first
		// window's opening to the last one's (each window plus the gap the client left after it).
		const last = windows.at(-1)!;
		const perWindow = windows.length > 1 ? ((requests.length - last.count) / (last.start - windows[0].start)) * windowMs : NaN;
		const failed = result.items.filter((item) => item.json.error !== undefined).length;
		const enabled = emu.hooks(API_KEY).filter((hook) => hook.status.enabled).length;
		const tooMany = requests.filter((r) => r.status === 429).length;
		const counts = windows.map((w) => w.count).join('/');
		const gaps = windows.slice(1).map((w, i) => `${w.start - (windows[i].start + windowMs)} ms`).join(', ');
		const figures = { figure: `${perWindow.toFixed(1)} req/window`, reference: 'R = 100', ratio: perWindow / 100 };
		/** The least loss a client that never earns a 429 settles at: ~1 s per window of W. */
		const bound = (w: number) => (w / (w + 1000)).toFixed(2);
		if (windowMs === 10_000) {
			return [{
				id: '4', what: 'enable × 300 items, budget 100 requests / 10 s', ...figures,
				target: '≥ 0.9 R, 0 failed, 0 × 429', verdict: verdict(figures.ratio >= 0.9 && failed === 0 && tooMany === 0 && enabled === 300),
				raw:
					`${failed} failed items, ${tooMany} × 429, ${requests.length} requests in windows of ${counts}, gaps after windows ${gaps}; ` +
					`whole run ${(wallMs / 1000).toFixed(1)} s; ${enabled}/300 hooks enabled. ` +
					`Rate = requests of all windows but the last / time from the first window's start to the last's`,
			}];
		}
		return [{
			id: '4i', what: `same, budget 100 / ${windowMs / 1000} s (whole-second reset granularity)`, ...figures,
			target: `info (steady state ≤ ${bound(windowMs)} R)`, verdict: failed === 0 && tooMany === 0 ? 'info' : 'FAIL',
			raw:
				`${failed} failed, ${tooMany} × 429, windows ${counts}, gaps ${gaps}. ` +
				`ratelimit-reset is a Unix time in whole seconds (the contract), so a client that never earns a 429 waits up to 1 s past a window's real end; ` +
				`a window opened by the first request after that wait ends just after a second boundary again, so the loss settles at ~1 s per window: ` +
				`W/(W+1 s) = ${bound(windowMs)} at ${windowMs / 1000} s, ${bound(10_000)} at 10 s, ${bound(60_000)} at the service's per-minute windows`,
		}];
	} finally {
		await emu.close();
	}
}

const sections: Record<string, () => Promise<Row[]>> = {
	'webhook-time': webhookTime,
	'webhook-memory': webhookMemory,
	getall: getAll,
	pacing: () => pacing(10_000),
	'pacing-2s': () => pacing(2000),
	'watch-list': watchListRows,
};

const section = sections[process.argv[2]];
(section ? section() : Promise.reject(new Error(`unknown section ${process.argv[2]}`))).then(
	(rows) => {
		process.stdout.write(`${JSON.stringify(rows)}\n`);
		process.exit(0);
	},
	(error: unknown) => {
		console.error(error instanceof Error ? (error.stack ?? error.message) : error);
		process.exit(1);
	},
);
