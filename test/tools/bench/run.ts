/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * `npm run bench`: every figure measured in this run beside its reference (measured in the
 * same run), as a ratio, with target and PASS/MISS; printed as one table and written to
 * test/tools/bench/last-run.md. Not a timed test: it fails (exit 1) only when a correctness
 * check fails (a FAIL row) or a part cannot run, not when a figure misses its target.
 *
 *   1. deliveries inside a real n8n (HTTPS, the packed package installed): Stacks Hooks Trigger
 *      against n8n's Webhook node + a Code node doing the same split, and against the floor, the
 *      cheapest community trigger n8n allows                               (n8n-delivery.ts, floor/)
 *   2. the trigger's webhook() in process, against JSON.parse of the body  (engine.ts)
 *   3. getAll / Return All over 600 hooks at 50 ms per request               (engine.ts)
 *   4. 300 items of enable against a request budget per window              (engine.ts)
 *   5. require() cost of the built package, and the tarball's size          (loading.ts)
 *   6. queue mode (Redis, PostgreSQL, 2 webhook processes, 2 workers) against regular mode:
 *      deliveries answered and executions completed per second, p99, CPU per role  (queue.ts)
 *   7. one hook's stream answered when the workflow finishes, against Immediately and the in-order
 *      floor, and the ledger recipe's events per second into PostgreSQL          (record.ts)
 *   8. the health check's and the catch-up's requests: an idle hook, a steady stream, a pause of 100
 *      blocks, against one GET a check and the free tier's rate limit          (catchup.ts); an idle
 *      and a streaming hook in regular and queue mode, n8n's public address reachable from inside or
 *      not, with and without the Internal Webhook Address, and the alerts raised   (topologies.ts); ten
 *      triggers of one account through a restart of n8n, against the rate limit's floor         (fleet.ts)
 *   9. a 10,000-address watch list: in process (watchList.ts); in n8n, against a broad hook + Filter node (watchListN8n.ts)
 *  10. n8n's memory after 10,000 deliveries and 200 activation cycles, against after the first 1,000 (memory.ts)
 *
 * Environment: BENCH_ROUNDS (rounds of part 1, default 3); BENCH_PARTS=2,3 (only those parts, for a
 * quick look; the default runs them all). Interrupted, support's process handling kills every
 * process this run started and removes its folders.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { selectedN8n } from '../../support/n8n/hosts/versions';
import { run, runError } from '../../support/n8n/process';
import { REPO_DIR } from '../../support/paths';
import { catchupRows } from './catchup';
import { loadingRows } from './loading';
import { memoryRows } from './memory';
import { fleetRows } from './fleet';
import { restartRows } from './restart';
import { deliveryRows } from './n8n-delivery';
import { queueRows } from './queue';
import { recordRows } from './record';
import { topologyRows } from './topologies';
import { watchListN8nRows } from './watchListN8n';
import { fmtRatio, type Row } from './util';

const OUT_FILE = path.join(REPO_DIR, 'test', 'tools', 'bench', 'last-run.md');
const started = Date.now();
const log = (msg: string) => console.log(`[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${msg}`);

/** The rows one section of engine.ts prints (its last line), run in a Node of its own. */
async function engine(section: string, nodeFlags: string[] = []): Promise<Row[]> {
	const result = await run(process.execPath, [...nodeFlags, path.join(__dirname, 'engine.js'), section], { cwd: REPO_DIR, timeoutMs: 5 * 60_000 });
	if (result.code !== 0) throw runError(`bench part "${section}"`, result, 'See the error above.');
	return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Row[];
}

/** How part 1 is run: printed under the table, whatever the outcome. */
const METHOD = [
	`Part 1 posts the same deliveries (keep-alive HTTPS, concurrency 10, each a block of its own) to three workflows in one n8n ${selectedN8n()}: the Stacks Hooks Trigger ` +
		'(typeVersion 1.1, as n8n adds it now) alone; n8n\'s Webhook node (POST, respond on received, header auth with the consumer ' +
		'secret) followed by a Code node that splits the delivery into the same per-transaction items; and the floor, alone. ' +
		'In each round the batches run A B C C B A, and each side\'s figure for the round is the mean of its two batches (one early, one ' +
		'late: a drift within the round reaches every side alike); medians over the rounds are reported. Rejected deliveries (rows …c) and ' +
		'accepted 1-tx deliveries posted one at a time (rows …e) go to the sides in turn, one delivery each, so every side meets the same ' +
		'n8n (with n8n\'s defaults each after 100 ms of quiet: its pool of one expression isolate is refilled after each request). n8n keeps its default of saving every execution, and every execution is checked. ' +
		'The Stacks credential holds no consumer secret: the trigger reads the account\'s from the emulator at activation.',
	'The floor is the cheapest community trigger n8n 2.41 allows that does the same job: a package of its own (plain JS, no dependencies, ' +
		'test/tools/bench/floor/) packed and installed like the Stacks package, one node of typeVersion 1.1 with one POST webhook, the ' +
		'trigger\'s credential (attached, never loaded: n8n checks the credentials of a workflow\'s nodes before every execution, two SELECTs, ' +
		'as it does the trigger\'s and the Webhook node\'s) and no parameter; webhook() compares the x-hook-consumer-secret header with a ' +
		'constant (401 otherwise), splits the delivery into the ' +
		'same per-transaction items as the trigger (no checks of the body) and returns {received: true, items: n} for n8n to answer once the ' +
		'execution is queued, as the trigger does. What it costs is what n8n charges any community trigger per delivery; rows …f hold the ' +
		'Stacks Hooks Trigger within 1.05× of it, and their raw numbers give the floor beside Webhook+Code. A fourth workflow, the floor ' +
		'under the trigger\'s whole description (its parameters, credential and webhook description, run with the trigger\'s parameters; ' +
		'floor/FloorTriggerDescribed.node.js), joins the one-at-a-time deliveries: rows …p give what n8n charges for the trigger\'s ' +
		'description alone, and their raw numbers the trigger against it, its own code.',
	'It runs twice on the same user folder: with n8n\'s defaults, then with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true. With its defaults ' +
		'n8n 2.41 sets up a fresh sandboxed expression isolate (a pool of one) for every webhook request to any node but its own Webhook ' +
		'node, which it exempts, and again to load a credential and to start an execution; with the setting, only when an expression needs one.',
];

const cells = (r: Row) => [r.id, r.what, r.figure, r.reference, fmtRatio(r.ratio), r.target, r.verdict];
const HEADER = ['#', 'Measure', 'Figure', 'Reference', 'Ratio', 'Target', 'Result'];

function textTable(rows: Row[]): string {
	const table = rows.map(cells);
	const widths = HEADER.map((h, i) => Math.max(h.length, ...table.map((c) => c[i].length)));
	const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i])).join(' │ ');
	const method = rows.some((r) => r.id.startsWith('1')) ? ['', 'Method of part 1:', ...METHOD.map((m) => `  ${m}`)] : [];
	const notes = rows.map((r) => `  ${r.id}: ${r.raw}`);
	return [line(HEADER), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...table.map(line), '', 'Raw numbers and method:', ...notes, ...method].join('\n');
}

function markdown(rows: Row[], head: string[], footer: string[]): string {
	const esc = (s: string) => s.replace(/\|/g, '\\|');
	const method = rows.some((r) => r.id.startsWith('1')) ? ['### Method of part 1', '', ...METHOD.flatMap((m) => [m, ''])] : [];
	return [
		'# Benchmark: last run',
		'',
		'`npm run bench` — every figure measured in the same run as its reference.',
		'',
		...head.map((h) => `- ${h}`),
		'',
		`| ${HEADER.join(' | ')} |`,
		`|${'---|'.repeat(HEADER.length)}`,
		...rows.map((r) => `| ${cells(r).map((c, i) => esc(i === 6 ? `**${c}**` : c)).join(' | ')} |`),
		'',
		'## Raw numbers and method',
		'',
		...rows.map((r) => `- **${r.id}** ${esc(r.raw)}`),
		'',
		...method,
		...footer,
		'',
	].join('\n');
}

async function main(): Promise<number> {
	const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
	const only = (process.env.BENCH_PARTS ?? '1,2,3,4,5,6,7,8,9,10').split(',').map((p) => p.trim());
	const rows: Row[] = [];
	const errors: string[] = [];
	const parts: Array<[string, () => Promise<Row[]>]> = [
		['5 loading cost', () => loadingRows(REPO_DIR)],
		['2 webhook() in process', async () => [
			...(await engine('webhook-time')),
			...(await engine('webhook-memory', ['--expose-gc', '--min-semi-space-size=128', '--max-semi-space-size=128'])),
		]],
		['3 getAll over 600 hooks', () => engine('getall')],
		['4 pacing', async () => [...(await engine('pacing')), ...(await engine('pacing-2s'))]],
		['9 a 10,000-address watch list', () => engine('watch-list')],
		['9 a 10,000-address watch list in n8n', () => watchListN8nRows(log)],
		['1 deliveries in n8n', () => deliveryRows(rounds, log)],
		['6 queue mode', () => queueRows(log)],
		['7 one hook in order, and the ledger', () => recordRows(rounds, log)],
		['8 health check and catch-up', () => catchupRows(log)],
		['8 health check per topology', () => topologyRows(log)],
		['8 a fleet of triggers through a restart', () => fleetRows(log)],
		['8 a restart, n8n\'s address unreachable', () => restartRows(log)],
		['10 memory over a long life', () => memoryRows(log)],
	];
	for (const [name, measure] of parts.filter(([name]) => only.includes(name.split(' ')[0]))) {
		log(`${name}…`);
		try {
			rows.push(...(await measure()));
		} catch (error) {
			const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
			errors.push(`${name}: ${message}`);
			console.error(`[bench] ${name} failed:\n${message}`);
		}
	}

	rows.sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
	const cpus = os.cpus();
	const head = [
		`Machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB RAM, ${os.type()} ${os.release()} ${os.arch()}`,
		`Node ${process.version} (bench, in-process parts); n8n ${selectedN8n()} (test/support/n8n/hosts); part 6 with Debian's Redis and PostgreSQL`,
		`Date: ${new Date().toISOString()}`,
	];
	const skipped = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'].filter((p) => !only.includes(p));
	const footer = [
		`Whole run: ${((Date.now() - started) / 1000).toFixed(0)} s.`,
		...(skipped.length ? [`Parts skipped (BENCH_PARTS): ${skipped.join(', ')}.`] : []),
		...errors.map((e) => `ERROR ${e.split('\n')[0]}`),
	];
	console.log(`\n${head.join('\n')}\n\n${textTable(rows)}\n\n${footer.join('\n')}`);
	fs.writeFileSync(OUT_FILE, markdown(rows, head, footer));
	console.log(`\nWritten to ${path.relative(process.cwd(), OUT_FILE) || OUT_FILE}`);
	return errors.length > 0 || rows.some((r) => r.verdict === 'FAIL') ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
