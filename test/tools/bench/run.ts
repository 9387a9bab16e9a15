/**
 * `npm run bench`: every figure measured in this run beside its reference (measured in the
 * same run), as a ratio, with target and PASS/MISS; printed as one table and written to
 * test/bench/last-run.md. Not a timed test: it fails (exit 1) only when a correctness check
 * fails or a part cannot run, not when a figure misses its target.
 *
 *   1. deliveries inside a real n8n (HTTPS, the packed package installed): Stacks Hooks Trigger
 *      against n8n's Webhook node + a Code node doing the same split      (n8n-delivery.ts)
 *   2. the trigger's webhook() in process, against JSON.parse of the body  (engine.ts)
 *   3. getAll / Return All over 600 hooks at 50 ms per request               (engine.ts)
 *   4. 300 items of enable against a request budget per window              (engine.ts)
 *   5. require() cost of the built package, and the tarball's size          (loading.ts)
 *
 * Environment: BENCH_ROUNDS (rounds of part 1, default 3); BENCH_PARTS=2,3 (only those parts, for a
 * quick look; the default runs all five).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { killAll } from '../../support/n8n/process';
import { REPO_DIR } from '../../support/paths';
import { type DeliveryFigures, type DeliveryOptions, measureDeliveries, type Resources } from './n8n-delivery';
import { measureLoading } from './loading';
import { fmtBytes, fmtMs, fmtRatio, killChildren, lastJson, median, type Row, runChild, verdict } from './util';

const OUT_FILE = path.join(REPO_DIR, 'test', 'tools', 'bench', 'last-run.md');
const ENGINE = path.join(__dirname, 'engine.js');

const started = Date.now();
const log = (msg: string) => console.log(`[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${msg}`);

async function engine<T>(section: string, args: string[] = [], nodeFlags: string[] = []): Promise<T> {
	const result = await runChild(process.execPath, [...nodeFlags, ENGINE, section, ...args], {
		cwd: REPO_DIR,
		timeoutMs: 5 * 60_000,
	});
	return lastJson<T>(result, `bench part "${section}"`);
}

/* -------------------------------------------------------------------------------------------- */
/* Rows                                                                                         */
/* -------------------------------------------------------------------------------------------- */

interface WebhookTime {
	small: { bytes: number; parseMs: number; webhookMs: number; harnessMs: number; calls: number };
	large: { bytes: number; txCount: number; parseMs: number; webhookMs: number; calls: number };
}
interface WebhookMemory {
	bytes: number;
	txCount: number;
	peakBytes: number;
	peakMaxBytes: number;
	retainedBytes: number;
	samples: number;
	disturbed: number;
}
interface GetAll {
	hooks: number;
	latencyMs: number;
	floorMs: number;
	wallMs: number;
	requests: number[];
	statuses: number[];
}
interface Pacing {
	items: number;
	limit: number;
	windowMs: number;
	wallMs: number;
	outputItems: number;
	failed: number;
	enabled: number;
	requests: number;
	tooMany: number;
	windows: number[];
	gapsMs: number[];
	perWindow: number;
	fraction: number;
}

function inProcessRows(time: WebhookTime, memory: WebhookMemory): Row[] {
	const largeRatio = time.large.webhookMs / time.large.parseMs;
	const memRatio = memory.peakBytes / memory.bytes;
	return [
		{
			id: '2a',
			what: `trigger webhook() per call, 1-tx delivery (${fmtBytes(time.small.bytes)}), in process`,
			figure: fmtMs(time.small.webhookMs),
			reference: `JSON.parse ${fmtMs(time.small.parseMs)}`,
			ratio: time.small.webhookMs / time.small.parseMs,
			target: '< 50 µs',
			verdict: verdict(time.small.webhookMs < 0.05),
			raw:
				`median of 15 batches × 2,000 calls on one n8n-core WebhookContext built once by the engine harness and reused ` +
				`(building it per call, as runWebhook does: ${fmtMs(time.small.harnessMs)} per delivery)`,
		},
		{
			id: '2b',
			what: `trigger webhook() per call, ${time.large.txCount.toLocaleString('en')}-tx block (${fmtBytes(time.large.bytes)})`,
			figure: fmtMs(time.large.webhookMs),
			reference: `JSON.parse ${fmtMs(time.large.parseMs)}`,
			ratio: largeRatio,
			target: '≤ 0.5× JSON.parse',
			verdict: verdict(largeRatio <= 0.5),
			raw: `median of ${time.large.calls} calls each (after 5 warm-up calls)`,
		},
		{
			id: '2c',
			what: `peak extra heap of webhook(), ${memory.txCount.toLocaleString('en')}-tx block`,
			figure: fmtBytes(memory.peakBytes),
			reference: `payload ${fmtBytes(memory.bytes)}`,
			ratio: memRatio,
			target: '≤ 3× payload',
			verdict: verdict(memRatio <= 3),
			raw:
				`heapUsed after the call minus before it (parsed body already held; no GC ran during the ${memory.samples} measured calls, ` +
				`so this is everything the call allocated, an upper bound of its peak; max ${fmtBytes(memory.peakMaxBytes)}); ` +
				`retained after a full GC with the items held: ${fmtBytes(memory.retainedBytes)}`,
		},
	];
}

function getAllRow(g: GetAll): Row[] {
	const ratio = g.wallMs / g.floorMs;
	const exact = g.requests.every((n) => n === 10);
	return [
		{
			id: '3a',
			what: `getAll Return All, ${g.hooks} hooks, +${g.latencyMs} ms per request: requests`,
			figure: g.requests.every((n) => n === g.requests[0]) ? String(g.requests[0]) : g.requests.join('/'),
			reference: `ceil(${g.hooks}/60) = 10`,
			ratio: g.requests[0] / 10,
			target: 'exactly 10',
			verdict: verdict(exact),
			raw: `per run, ${g.requests.length} runs; statuses ${g.statuses.join('/')}`,
		},
		{
			id: '3b',
			what: `getAll Return All, ${g.hooks} hooks: wall time`,
			figure: fmtMs(g.wallMs),
			reference: `1 GET ?limit=60 ${fmtMs(g.floorMs)}`,
			ratio,
			target: '≤ 3× one request',
			verdict: verdict(ratio <= 3),
			raw:
				`median of ${g.requests.length} runs through n8n-core (runNode, after a warm-up run), 600 items out; ` +
				`floor: median of 7 single round trips; the first page must come back before the other 9 go out together, so 2× is the least possible`,
		},
	];
}

function pacingRows(p: Pacing, info: Pacing | undefined): Row[] {
	const bound = (w: number) => w / (w + 1000);
	const rows: Row[] = [
		{
			id: '4',
			what: `enable × ${p.items} items, budget ${p.limit} requests / ${p.windowMs / 1000} s`,
			figure: `${p.perWindow.toFixed(1)} req/window`,
			reference: `R = ${p.limit}`,
			ratio: p.fraction,
			target: '≥ 0.9 R, 0 failed, 0 × 429',
			verdict: p.fraction >= 0.9 && p.failed === 0 && p.tooMany === 0 && p.enabled === p.items ? 'PASS' : 'MISS',
			raw:
				`${p.failed} failed items, ${p.tooMany} × 429, ${p.requests} requests in windows of ${p.windows.join('/')}, ` +
				`gaps after windows ${p.gapsMs.map((g) => `${g} ms`).join(', ')}; whole run ${(p.wallMs / 1000).toFixed(1)} s; ` +
				`${p.enabled}/${p.items} hooks enabled. Rate = requests of all windows but the last / time from the first window's start to the last's`,
		},
	];
	if (info) {
		rows.push({
			id: '4i',
			what: `same, budget ${info.limit} / ${info.windowMs / 1000} s (whole-second reset granularity)`,
			figure: `${info.perWindow.toFixed(1)} req/window`,
			reference: `R = ${info.limit}`,
			ratio: info.fraction,
			target: `info (steady state ≤ ${bound(info.windowMs).toFixed(2)} R)`,
			verdict: info.failed === 0 && info.tooMany === 0 ? 'info' : 'FAIL',
			raw:
				`${info.failed} failed, ${info.tooMany} × 429, windows ${info.windows.join('/')}, gaps ${info.gapsMs.map((g) => `${g} ms`).join(', ')}. ` +
				`ratelimit-reset is a Unix time in whole seconds (the contract), so a client that never earns a 429 waits up to 1 s past a window's real end; ` +
				`a window opened by the first request after that wait ends just after a second boundary again, so the loss settles at ~1 s per window: ` +
				`W/(W+1 s) = ${bound(info.windowMs).toFixed(2)} at ${info.windowMs / 1000} s, ${bound(p.windowMs).toFixed(2)} at ${p.windowMs / 1000} s, ${bound(60_000).toFixed(2)} at the service's per-minute windows`,
		});
	}
	return rows;
}

function loadingRows(l: Awaited<ReturnType<typeof measureLoading>>): Row[] {
	return [
		{
			id: '5a',
			what: `require() of the ${l.entries.length} built entry points (n8n section), fresh Node`,
			figure: fmtMs(l.packageMs),
			reference: `n8n-workflow ${fmtMs(l.workflowMs)}`,
			ratio: l.packageMs / l.workflowMs,
			target: '≤ 50 ms',
			verdict: verdict(l.packageMs <= 50),
			raw:
				`median of ${l.spawns} spawns, n8n-workflow required first as inside n8n (it loads zod itself: ${l.zodLoadedByWorkflow ? 'yes' : 'no'}); ` +
				`everything from cold ${fmtMs(l.coldMs)}; zod alone, cold ${fmtMs(l.zodMs)}: ` +
				(l.zodLoadedByWorkflow
					? `zod does not dominate — inside n8n it is already loaded, and even cold it is ${fmtRatio(l.zodMs / l.packageMs)} the package's own time`
					: 'zod is loaded by the package'),
		},
		{
			id: '5b',
			what: 'packed tarball (npm pack)',
			figure: fmtBytes(l.tarballBytes),
			reference: 'limit 80 KB',
			ratio: l.tarballBytes / (80 * 1024),
			target: '≤ 80 KB',
			verdict: verdict(l.tarballBytes <= 80 * 1024),
			raw: `${l.files} files, ${fmtBytes(l.unpackedBytes)} unpacked`,
		},
	];
}

function deliveryRows(d: DeliveryFigures, opts: { smallN: number; largeN: number; concurrency: number; rejectedN: number }): Row[] {
	type Key = 'perSecond' | 'p50' | 'p99' | 'answeredPerSecond';
	const med = (list: Array<Record<Key, number>>, key: Key) => median(list.map((b) => b[key]));
	const rows: Row[] = [];
	for (const config of d.configs) {
		const prefix = `1${config.id}`;
		const where = `n8n (${config.label})`;
		for (const size of ['small', 'large'] as const) {
			const s = config[size];
			const n = size === 'small' ? opts.smallN : opts.largeN;
			const tx = size === 'small' ? d.smallTx : d.largeTx;
			const bytes = size === 'small' ? d.smallBytes : d.largeBytes;
			const label = `${n} × ${tx}-tx deliveries (${fmtBytes(bytes)}), concurrency ${opts.concurrency}`;
			const tput = { t: med(s.trigger, 'perSecond'), w: med(s.webhook, 'perSecond') };
			const answered = { t: med(s.trigger, 'answeredPerSecond'), w: med(s.webhook, 'answeredPerSecond') };
			const p50 = { t: med(s.trigger, 'p50'), w: med(s.webhook, 'p50') };
			const p99 = { t: med(s.trigger, 'p99'), w: med(s.webhook, 'p99') };
			const id = `${prefix}${size === 'small' ? 'a' : 'b'}`;
			rows.push({
				id: `${id}.1`,
				what: `${where}: ${label}: throughput`,
				figure: `${tput.t.toFixed(1)}/s`,
				reference: `Webhook+Code ${tput.w.toFixed(1)}/s`,
				ratio: tput.t / tput.w,
				target: '≥ 1.0×',
				verdict: verdict(tput.t >= tput.w),
				raw:
					`completed deliveries/s (first POST → last of their executions stopped), median of ${d.rounds} rounds: ` +
					`trigger ${s.trigger.map((b) => b.perSecond.toFixed(1)).join(', ')}; Webhook+Code ${s.webhook.map((b) => b.perSecond.toFixed(1)).join(', ')}. ` +
					`Answered/s (first POST → last answer): ${answered.t.toFixed(1)} vs ${answered.w.toFixed(1)}`,
			});
			rows.push({
				id: `${id}.2`,
				what: `${where}: ${label}: p99 latency`,
				figure: fmtMs(p99.t),
				reference: `Webhook+Code ${fmtMs(p99.w)}`,
				ratio: p99.t / p99.w,
				target: '≤ 1.0×',
				verdict: verdict(p99.t <= p99.w),
				raw:
					`POST → answer, median over rounds of each round's p99 (trigger ${s.trigger.map((b) => b.p99.toFixed(1)).join(', ')}; ` +
					`Webhook+Code ${s.webhook.map((b) => b.p99.toFixed(1)).join(', ')} ms); p50 ${fmtMs(p50.t)} vs ${fmtMs(p50.w)}`,
			});
		}
		const rej = { t: median(config.rejected.trigger), w: median(config.rejected.webhook) };
		rows.push({
			id: `${prefix}c`,
			what: `${where}: rejected delivery (wrong secret), one at a time`,
			figure: fmtMs(rej.t),
			reference: `Webhook+Code ${fmtMs(rej.w)}`,
			ratio: rej.t / rej.w,
			target: '≤ 1.0×',
			verdict: verdict(rej.t <= rej.w),
			raw:
				`median latency of ${opts.rejectedN} sequential POSTs per round, median of ${d.rounds} rounds ` +
				`(trigger ${config.rejected.trigger.map((v) => v.toFixed(2)).join(', ')}; Webhook+Code ${config.rejected.webhook.map((v) => v.toFixed(2)).join(', ')} ms); ` +
				`answered ${config.rejected.triggerStatus.join('/')} vs ${config.rejected.webhookStatus.join('/')}`,
		});
	}
	const c = d.correctness;
	rows.push({
		id: '1d',
		what: 'n8n: correctness — one successful execution per accepted delivery, right item count',
		figure: `${c.executions.trigger}/${c.accepted.trigger}`,
		reference: `Webhook+Code ${c.executions.webhook}/${c.accepted.webhook}`,
		ratio: NaN,
		target: 'all, exactly',
		verdict: c.problems.length === 0 ? 'PASS' : 'FAIL',
		raw:
			(c.problems.length === 0
				? `all ${d.configs.length > 1 ? 'configurations, warm-ups and rounds' : 'warm-ups and rounds'}: every execution checked from its saved data (status success; trigger output / Code node output = transactions in the delivery), every trigger answer {received: true, items: n}; rejected deliveries started none`
				: `PROBLEMS: ${c.problems.slice(0, 10).join('; ')}`) +
			`. n8n's default execution saving stays on for both (needed to check every count, and the same work on both sides)`,
	});
	return rows;
}

/* -------------------------------------------------------------------------------------------- */
/* Output                                                                                       */
/* -------------------------------------------------------------------------------------------- */

/** How part 1 is run: printed under the table, whatever the outcome. */
const METHOD = [
	'Part 1 posts the same deliveries (keep-alive HTTPS, concurrency 10) to two workflows in one n8n 2.41.1: the Stacks Hooks Trigger ' +
		'(typeVersion 1.1, as n8n adds it now) alone, and n8n\'s Webhook node (POST, respond on received, header auth with the consumer ' +
		'secret) followed by a Code node that splits the delivery into the same per-transaction items; A/B then B/A over the rounds, medians ' +
		'reported. n8n keeps its default of saving every execution, and every execution is checked.',
	'It runs twice on the same user folder: with n8n\'s defaults, then with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true. With its defaults ' +
		'n8n 2.41 sets up a fresh sandboxed expression isolate (a pool of one) for every webhook request to any node but its own Webhook ' +
		'node, which it exempts, and again to load a credential and to start an execution; with the setting, only when an expression needs one.',
];

function machine(): string[] {
	const cpus = os.cpus();
	return [
		`Machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB RAM, ${os.type()} ${os.release()} ${os.arch()}`,
		`Node ${process.version} (bench, in-process parts); n8n 2.41.1 on Node 24 (test/support/n8n/host)`,
		`Date: ${new Date().toISOString()}`,
	];
}

function textTable(rows: Row[]): string {
	const header = ['#', 'Measure', 'Figure', 'Reference', 'Ratio', 'Target', 'Result'];
	const cells = rows.map((r) => [r.id, r.what, r.figure, r.reference, fmtRatio(r.ratio), r.target, r.verdict]);
	const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
	const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i])).join(' │ ');
	const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
	const notes = rows.map((r) => `  ${r.id}: ${r.raw}`);
	const method = rows.some((r) => r.id.startsWith('1')) ? ['', 'Method of part 1:', ...METHOD.map((m) => `  ${m}`)] : [];
	return [line(header), rule, ...cells.map(line), '', 'Raw numbers and method:', ...notes, ...method].join('\n');
}

function markdown(rows: Row[], head: string[], footer: string[]): string {
	const esc = (s: string) => s.replace(/\|/g, '\\|');
	return [
		'# Benchmark: last run',
		'',
		'`npm run bench` — every figure measured in the same run as its reference.',
		'',
		...head.map((h) => `- ${h}`),
		'',
		'| # | Measure | Figure | Reference | Ratio | Target | Result |',
		'|---|---|---|---|---|---|---|',
		...rows.map((r) => `| ${[r.id, r.what, r.figure, r.reference, fmtRatio(r.ratio), r.target, `**${r.verdict}**`].map(esc).join(' | ')} |`),
		'',
		'## Raw numbers and method',
		'',
		...rows.map((r) => `- **${r.id}** ${esc(r.raw)}`),
		'',
		...(rows.some((r) => r.id.startsWith('1')) ? ['### Method of part 1', '', ...METHOD.flatMap((m) => [m, ''])] : []),
		...footer.map((f) => `${f}`),
		'',
	].join('\n');
}

/* -------------------------------------------------------------------------------------------- */

async function main(): Promise<number> {
	const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
	const only = (process.env.BENCH_PARTS ?? '1,2,3,4,5').split(',').map((p) => p.trim());
	const skipped = ['1', '2', '3', '4', '5'].filter((p) => !only.includes(p));
	const deliveryOpts: DeliveryOptions = {
		repoDir: REPO_DIR,
		configs: [
			{ id: '', label: 'defaults', env: {} },
			// n8n 2.41 takes a fresh expression isolate for every webhook request to any node but its own
			// Webhook node, whether or not an expression needs one; this setting takes one only when needed.
			{ id: 'L', label: 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true', env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } },
		],
		rounds,
		smallN: 120,
		largeN: 20,
		largeTx: 500,
		concurrency: 10,
		rejectedN: 30,
		log,
	};
	const rows: Row[] = [];
	const errors: string[] = [];
	const resources: Resources = { dirs: [] };

	const part = async (name: string, fn: () => Promise<Row[]>) => {
		if (!only.includes(name.split(' ')[0])) return;
		log(`${name}…`);
		try {
			rows.push(...(await fn()));
		} catch (error) {
			const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
			errors.push(`${name}: ${message}`);
			console.error(`[bench] ${name} failed:\n${message}`);
		}
	};

	// Interrupted: n8n's process tree and this run's children are killed by their 'exit' handlers.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			console.error(`[bench] ${signal}: stopping everything this run started`);
			killChildren();
			killAll();
			for (const dir of resources.dirs) {
				try {
					fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
				} catch {
					console.error(`[bench] could not remove ${dir}`);
				}
			}
			process.exit(130);
		});
	}

	try {
		await part('5 loading cost', async () => loadingRows(await measureLoading(REPO_DIR)));
		await part('2 webhook() in process', async () =>
			inProcessRows(
				await engine<WebhookTime>('webhook-time'),
				await engine<WebhookMemory>('webhook-memory', [], ['--expose-gc', '--min-semi-space-size=128', '--max-semi-space-size=128']),
			),
		);
		await part('3 getAll over 600 hooks', async () => getAllRow(await engine<GetAll>('getall')));
		await part('4 pacing', async () =>
			pacingRows(await engine<Pacing>('pacing', ['10000']), await engine<Pacing>('pacing', ['2000'])),
		);
		await part('1 deliveries in n8n', async () => deliveryRows(await measureDeliveries(deliveryOpts, resources), deliveryOpts));
	} finally {
		log('stopping everything this run started');
		await resources.n8n?.stop().catch((e: unknown) => errors.push(`stopping n8n: ${String(e)}`));
		await resources.emulator?.close().catch(() => undefined);
		killChildren();
		for (const dir of resources.dirs) fs.rmSync(dir, { recursive: true, force: true });
	}

	const order = (id: string) => id;
	rows.sort((a, b) => order(a.id).localeCompare(order(b.id), 'en', { numeric: true }));
	const head = machine();
	const footer = [
		`Whole run: ${((Date.now() - started) / 1000).toFixed(0)} s.`,
		...(skipped.length ? [`Parts skipped (BENCH_PARTS): ${skipped.join(', ')}.`] : []),
		...errors.map((e) => `ERROR ${e.split('\n')[0]}`),
	];
	console.log(`\n${head.join('\n')}\n\n${textTable(rows)}\n\n${footer.join('\n')}`);
	fs.writeFileSync(OUT_FILE, markdown(rows, head, footer));
	console.log(`\nWritten to ${path.relative(process.cwd(), OUT_FILE) || OUT_FILE}`);
	const failed = errors.length > 0 || rows.some((r) => r.verdict === 'FAIL');
	return failed ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		killChildren();
		process.exit(1);
	},
);
