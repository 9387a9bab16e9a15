/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 7, one hook's stream in a real n8n as the service sends it (the next delivery only after the
 * answer to the one before, test/emulator/README.md): the trigger with Respond: When the Workflow
 * Finishes beside the same trigger responding Immediately (row 7a), beside the in-order floor (7af:
 * answered by n8n once the workflow has run, the same items: what the trigger itself costs in that
 * mode), the ledger recipe writing every event into a real PostgreSQL (7b) and into n8n's own Data
 * Table (7d), and Notify Once with 100,000 announcements already recorded against an empty record
 * (7e: the cost of a delivery must not grow with the history).
 */
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { text } from 'stream/consumers';

import { startEmulator } from '../../emulator';
import { loadExample } from '../../support/examples';
import type { WorkflowJson } from '../../support/n8n/api';
import { type N8nInstance, startN8n } from '../../support/n8n/instance';
import { installPackage, packPackage } from '../../support/n8n/package';
import { atExit, groupCpuMs } from '../../support/n8n/process';
import { startPostgres } from '../../support/n8n/servers';
import { REPO_DIR } from '../../support/paths';
import { dataTableRows, findDataTable, LEDGER_DATABASE, startReceiver } from '../../support/record';
import { FLOOR_IN_ORDER_TYPE, packFloor } from './floor/package';
import { executionsAfter, itemCount, waitForNew } from './n8n-delivery';
import { ALICE, API_KEY, delivery, SECRET } from './payloads';
import { fmtMs, median, percentile, type Row, verdict } from './util';

/** Deliveries per round of one stream, and transfers per delivery (7a: 1; 7b: LEDGER_TX events each). */
const STREAM_N = 60;
const LEDGER_N = 30;
const LEDGER_TX = 20;
const FLOOR_SLACK = 1.05;
/** Notify Once (7e): announcements already recorded, deliveries per measurement, events per delivery; the ratio it must stay under. */
const HISTORY = 100_000;
const NOTIFY_N = 30;
const NOTIFY_TX = 5;
const HISTORY_SLACK = 1.2;

const IDS = { immediate: 'e1c2a3b4-0000-4000-8000-0000000000a1', inOrder: 'e1c2a3b4-0000-4000-8000-0000000000a2', floor: 'e1c2a3b4-0000-4000-8000-0000000000a3' };

/** One hook's stream: each POST only after the answer to the one before; each body once. */
async function stream(n8n: N8nInstance, url: string, bodies: Buffer[]): Promise<{ latencies: number[]; statuses: number[]; seconds: number }> {
	const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: n8n.certificate });
	const latencies: number[] = [];
	const statuses: number[] = [];
	const started = performance.now();
	try {
		for (const body of bodies) {
			const t0 = performance.now();
			const status = await new Promise<number>((resolve, reject) => {
				const headers = { 'content-type': 'application/json', 'content-length': String(body.length), 'x-hook-consumer-secret': SECRET };
				const req = https.request(url, { method: 'POST', agent, headers }, (res) => text(res).then(() => resolve(res.statusCode ?? 0), reject));
				req.setTimeout(120_000, () => req.destroy(new Error(`POST ${url}: no answer within 120 s`)));
				req.on('error', reject);
				req.end(body);
			});
			latencies.push(performance.now() - t0);
			statuses.push(status);
		}
	} finally {
		agent.destroy();
	}
	return { latencies, statuses, seconds: (performance.now() - started) / 1000 };
}

const trigger = (name: string, webhookId: string, responseMode: string, output: string, credential: object): WorkflowJson => ({
	name,
	connections: {},
	nodes: [{
		id: `node-${webhookId}`, name: 'Stacks Hooks Trigger', type: 'n8n-nodes-stacks-hooks.stacksHooksTrigger', typeVersion: 1.1, position: [0, 0], webhookId,
		parameters: { events: { filter: [{ type: 'stx_transfer', sender: ALICE }] }, output, responseMode }, credentials: { stacksHooksApi: credential },
	}],
});

export async function recordRows(rounds: number, log: (msg: string) => void): Promise<Row[]> {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-bench-record-'));
	atExit(() => fs.rmSync(userFolder, { recursive: true, force: true, maxRetries: 5 }));
	await installPackage(userFolder, await packPackage(REPO_DIR));
	await installPackage(userFolder, await packFloor());
	const postgres = await startPostgres(LEDGER_DATABASE);
	// A chat's incoming webhook for Notify Once: the record suites' receiver.
	const sink = await startReceiver();
	let n8n: N8nInstance | undefined;
	const emu = await startEmulator({ accounts: [{ apiKey: API_KEY, consumerSecret: SECRET }] });
	try {
		n8n = await startN8n({ userFolder, https: true, readyTimeoutMs: 180_000, provisionLog: (msg) => log(`[n8n host] ${msg}`) });
		const credential = async (name: string, type: string, data: Record<string, unknown>) => {
			const created = await n8n!.api.createCredential({ name, type, data });
			return { id: created.id, name: created.name };
		};
		const stacks = await credential('Stacks Hooks (bench)', 'stacksHooksApi', { apiKey: API_KEY, network: 'testnet', baseUrl: emu.url });
		const pg = await credential('Ledger (bench)', 'postgres', { host: postgres.host, port: postgres.port, database: LEDGER_DATABASE, user: postgres.user, password: 'x', ssl: 'disable', allowUnauthorizedCerts: false, maxConnections: 10, sshTunnel: false });
		// The recipes as users import them (each creates its table on its first delivery), their triggers on the bench's sender.
		const recipe = (key: 'ledger' | 'ledgerDataTable' | 'notify') => {
			const workflow = loadExample(key, stacks);
			for (const node of workflow.nodes) {
				if ((node.credentials as Record<string, unknown> | undefined)?.postgres) node.credentials = { postgres: pg };
				if (node.type === 'n8n-nodes-base.httpRequest') (node.parameters as Record<string, unknown>).url = sink.url;
			}
			return workflow;
		};
		const ledger = recipe('ledger');
		const dataTable = recipe('ledgerDataTable');
		const notify = recipe('notify');
		const webhookOf = (workflow: WorkflowJson) => String(workflow.nodes.find((node) => node.type === 'n8n-nodes-stacks-hooks.stacksHooksTrigger')!.webhookId);
		const workflows: Record<string, WorkflowJson> = {
			immediate: trigger('Bench: trigger, Immediately', IDS.immediate, 'onReceived', 'transaction', stacks),
			inOrder: trigger('Bench: trigger, in order', IDS.inOrder, 'lastNode', 'transaction', stacks),
			floor: {
				name: 'Bench: floor, in order', connections: {},
				nodes: [{ id: 'e1c2a3b4-0000-4000-8000-0000000000f1', name: 'Floor Trigger In Order', type: FLOOR_IN_ORDER_TYPE, typeVersion: 1.1, position: [0, 0], webhookId: IDS.floor, parameters: {}, credentials: { stacksHooksApi: stacks } }],
			},
			ledger,
			dataTable,
			notify,
		};
		const ids: Record<string, string> = {};
		for (const [key, workflow] of Object.entries(workflows)) {
			const { id } = await n8n.api.createWorkflow(workflow);
			await n8n.api.activate(id);
			ids[key] = id;
		}
		const hookOf = (url: string) => emu.hooks(API_KEY).find((hook) => hook.definition.action.url === url)!;
		const urls = {
			immediate: n8n.webhookUrl(`${IDS.immediate}/webhook`),
			inOrder: n8n.webhookUrl(`${IDS.inOrder}/webhook`),
			floor: n8n.webhookUrl(`${IDS.floor}/webhook`),
			ledger: n8n.webhookUrl(`${webhookOf(ledger)}/webhook`),
			dataTable: n8n.webhookUrl(`${webhookOf(dataTable)}/webhook`),
			notify: n8n.webhookUrl(`${webhookOf(notify)}/webhook`),
		};
		const problems: string[] = [];
		let height = 10_000;
		const bodies = (url: string, n: number, tx: number) => {
			const hook = hookOf(url) ?? { uuid: '00000000-0000-4000-8000-000000000000', definition: { name: 'floor' } };
			return Array.from({ length: n }, () => Buffer.from(JSON.stringify(delivery(hook.uuid, hook.definition.name, height++, tx))));
		};

		/** One stream into a workflow, every execution checked from its saved data. */
		const measure = async (key: 'immediate' | 'inOrder' | 'floor', n: number) => {
			const before = Number((await executionsAfter(n8n!, ids[key], 0, false))[0]?.id ?? 0);
			const run = await stream(n8n!, urls[key], bodies(urls[key], n, 1));
			if (run.statuses.some((status) => status !== 200)) problems.push(`${key}: answered ${[...new Set(run.statuses)].join('/')}`);
			await waitForNew(n8n!, ids[key], before, n);
			const done = await executionsAfter(n8n!, ids[key], before, true, 100);
			const node = key === 'floor' ? 'Floor Trigger In Order' : 'Stacks Hooks Trigger';
			const wrong = done.filter((execution) => execution.status !== 'success' || itemCount(execution, node) !== 1);
			if (done.length !== n || wrong.length) problems.push(`${key}: ${done.length} executions for ${n} deliveries, ${wrong.length} wrong`);
			return { perSecond: n / run.seconds, p99: percentile(run.latencies, 99), p50: percentile(run.latencies, 50) };
		};

		log('part 7: warm-up');
		for (const key of ['immediate', 'inOrder', 'floor'] as const) await measure(key, 5);
		const figures: Record<'immediate' | 'inOrder' | 'floor', Array<{ perSecond: number; p99: number; p50: number }>> = { immediate: [], inOrder: [], floor: [] };
		for (let round = 1; round <= rounds; round++) {
			const order = round % 2 ? (['inOrder', 'floor', 'immediate'] as const) : (['immediate', 'floor', 'inOrder'] as const);
			for (const key of order) {
				const figure = await measure(key, STREAM_N);
				figures[key].push(figure);
				log(`part 7, round ${round}: ${key} ${STREAM_N} × 1-tx, one at a time: ${figure.perSecond.toFixed(1)}/s, p99 ${figure.p99.toFixed(1)} ms`);
			}
		}

		// The ledger: LEDGER_N deliveries of LEDGER_TX transfers each, one at a time, into PostgreSQL.
		log('part 7: the ledger recipe');
		const ledgerBodies = bodies(urls.ledger, LEDGER_N, LEDGER_TX);
		await stream(n8n, urls.ledger, ledgerBodies.slice(0, 3));
		await postgres.query('TRUNCATE stacks_events', LEDGER_DATABASE);
		const ledgerRun = await stream(n8n, urls.ledger, ledgerBodies);
		const [[count]] = await postgres.query('SELECT count(*) FROM stacks_events', LEDGER_DATABASE);
		// The warm-up's three deliveries are in the stream again: written again after the table was emptied.
		const events = LEDGER_N * LEDGER_TX;
		if (Number(count) !== events) problems.push(`ledger: ${count} rows, expected ${events}`);
		if (ledgerRun.statuses.some((status) => status !== 200)) problems.push(`ledger: answered ${[...new Set(ledgerRun.statuses)].join('/')}`);
		// The same stream into the in-order trigger alone: what the database part costs.
		const plain = await stream(n8n, urls.inOrder, bodies(urls.inOrder, LEDGER_N, LEDGER_TX));
		const eventsPerSecond = events / ledgerRun.seconds;
		const plainPerSecond = events / plain.seconds;

		// The same stream into the Data Table ledger (a warm-up first: it creates the table).
		log('part 7: the Data Table ledger recipe');
		await stream(n8n, urls.dataTable, bodies(urls.dataTable, 3, LEDGER_TX));
		const tableFrom = height;
		const tableRun = await stream(n8n, urls.dataTable, bodies(urls.dataTable, LEDGER_N, LEDGER_TX));
		const tableRows = (await dataTableRows(n8n, [tableFrom, height - 1])).length;
		if (tableRows !== events) problems.push(`Data Table ledger: ${tableRows} rows, expected ${events}`);
		if (tableRun.statuses.some((status) => status !== 200)) problems.push(`Data Table ledger: answered ${[...new Set(tableRun.statuses)].join('/')}`);
		const tablePerSecond = events / tableRun.seconds;
		// What one event costs of n8n's 50 MiB for all data tables: the table's size as n8n counts it, over its rows (warm-up included).
		const tableBytes = (await findDataTable(n8n))?.sizeBytes ?? NaN;
		const bytesPerEvent = tableBytes / (events + 3 * LEDGER_TX);

		// Notify Once: the same deliveries' cost with an empty record and with HISTORY announcements in it,
		// alternated over the rounds; CPU of n8n and PostgreSQL (their process groups, /proc) per delivery.
		log(`part 7: Notify Once, an empty record against ${HISTORY.toLocaleString('en-US')} announcements`);
		await stream(n8n, urls.notify, bodies(urls.notify, 3, NOTIFY_TX));
		const notifyFigures: Record<'empty' | 'full', Array<{ p50: number; cpuMs: number }>> = { empty: [], full: [] };
		const cpuMs = () => groupCpuMs(n8n!.process.pid) + groupCpuMs(postgres.process.pid);
		for (let round = 1; round <= rounds; round++) {
			for (const history of round % 2 ? (['empty', 'full'] as const) : (['full', 'empty'] as const)) {
				await postgres.query('TRUNCATE stacks_announcements', LEDGER_DATABASE);
				if (history === 'full') {
					await postgres.query(
						`INSERT INTO stacks_announcements (event_id, direction) SELECT '0x' || md5(g::text) || ':0x' || md5((g + 1)::text) || ':0', CASE WHEN g % 10 = 0 THEN 'rollback' ELSE 'apply' END FROM generate_series(1, ${HISTORY}) g`,
						LEDGER_DATABASE,
					);
				}
				// Vacuumed and analysed before either measurement (a statement of its own: VACUUM runs outside a
				// transaction), so PostgreSQL's autovacuum of the fresh rows does not run, and count, during it.
				await postgres.query('VACUUM ANALYZE stacks_announcements', LEDGER_DATABASE);
				const sentBefore = sink.messages.length;
				const cpuBefore = cpuMs();
				const run = await stream(n8n, urls.notify, bodies(urls.notify, NOTIFY_N, NOTIFY_TX));
				const cpu = (cpuMs() - cpuBefore) / NOTIFY_N;
				const sent = sink.messages.length - sentBefore;
				if (sent !== NOTIFY_N * NOTIFY_TX) problems.push(`Notify Once (${history} record): ${sent} messages for ${NOTIFY_N * NOTIFY_TX} new events`);
				if (run.statuses.some((status) => status !== 200)) problems.push(`Notify Once: answered ${[...new Set(run.statuses)].join('/')}`);
				notifyFigures[history].push({ p50: percentile(run.latencies, 50), cpuMs: cpu });
				log(`part 7, round ${round}: Notify Once, ${history} record: p50 ${percentile(run.latencies, 50).toFixed(1)} ms, CPU ${cpu.toFixed(1)} ms a delivery`);
			}
		}
		const [[recorded]] = await postgres.query('SELECT count(*) FROM stacks_announcements', LEDGER_DATABASE);
		const notifyOf = (history: 'empty' | 'full', field: 'p50' | 'cpuMs') => median(notifyFigures[history].map((f) => f[field]));

		const list = (values: number[]) => values.map((v) => v.toFixed(1)).join(', ');
		const of = (key: 'immediate' | 'inOrder' | 'floor', field: 'perSecond' | 'p99' | 'p50') => median(figures[key].map((f) => f[field]));
		const label = `one hook's stream, ${STREAM_N} × 1-tx deliveries, each sent after the answer to the one before`;
		const rows: Row[] = [
			{
				id: '7a.1', what: `n8n (defaults), Respond: When the Workflow Finishes: ${label}: throughput`,
				figure: `${of('inOrder', 'perSecond').toFixed(1)}/s`, reference: `Immediately ${of('immediate', 'perSecond').toFixed(1)}/s`,
				ratio: of('inOrder', 'perSecond') / of('immediate', 'perSecond'), target: 'info', verdict: 'info',
				raw: `deliveries/s over each stream (first POST → last answer), median of ${rounds} rounds: in order ${list(figures.inOrder.map((f) => f.perSecond))}; Immediately ${list(figures.immediate.map((f) => f.perSecond))}. In order, a delivery is answered only after its execution has run, so one hook's stream goes at the pace of its workflow; Immediately answers once the execution is queued`,
			},
			{
				id: '7a.1f', what: `n8n (defaults), Respond: When the Workflow Finishes: ${label}: throughput, against the in-order floor`,
				figure: `${of('inOrder', 'perSecond').toFixed(1)}/s`, reference: `floor ${of('floor', 'perSecond').toFixed(1)}/s`,
				ratio: of('inOrder', 'perSecond') / of('floor', 'perSecond'), target: `within ${FLOOR_SLACK}×`, verdict: verdict(of('inOrder', 'perSecond') * FLOOR_SLACK >= of('floor', 'perSecond')),
				raw: `the in-order floor (floor/FloorTriggerInOrder.node.js): answered by n8n once the workflow has run, no body, the same items; floor ${list(figures.floor.map((f) => f.perSecond))}/s`,
			},
			{
				id: '7a.2', what: `n8n (defaults), Respond: When the Workflow Finishes: ${label}: p99 latency`,
				figure: fmtMs(of('inOrder', 'p99')), reference: `Immediately ${fmtMs(of('immediate', 'p99'))}`,
				ratio: of('inOrder', 'p99') / of('immediate', 'p99'), target: 'info', verdict: 'info',
				raw: `POST → answer, median over rounds of each round's p99: in order ${list(figures.inOrder.map((f) => f.p99))}; Immediately ${list(figures.immediate.map((f) => f.p99))} ms; p50 ${fmtMs(of('inOrder', 'p50'))} vs ${fmtMs(of('immediate', 'p50'))}`,
			},
			{
				id: '7a.2f', what: `n8n (defaults), Respond: When the Workflow Finishes: ${label}: p99 latency, against the in-order floor`,
				figure: fmtMs(of('inOrder', 'p99')), reference: `floor ${fmtMs(of('floor', 'p99'))}`,
				ratio: of('inOrder', 'p99') / of('floor', 'p99'), target: `within ${FLOOR_SLACK}×`, verdict: verdict(of('inOrder', 'p99') <= of('floor', 'p99') * FLOOR_SLACK),
				raw: `floor ${list(figures.floor.map((f) => f.p99))} ms; p50 floor ${fmtMs(of('floor', 'p50'))}`,
			},
			{
				id: '7b', what: `n8n (defaults): the ledger recipe, ${LEDGER_N} deliveries × ${LEDGER_TX} STX transfers, in order, into PostgreSQL: events written per second`,
				figure: `${eventsPerSecond.toFixed(1)}/s`, reference: `trigger alone ${plainPerSecond.toFixed(1)}/s`,
				ratio: eventsPerSecond / plainPerSecond, target: 'info', verdict: problems.length ? 'FAIL' : 'info',
				raw: `test/examples/workflows/ledger-postgres.json (One Item per Event, Postgres node Execute Query, one transaction per delivery, ${LEDGER_TX} statements) on Debian's PostgreSQL (fsync off); the table held exactly the events sent (${count} rows); reference: the same stream into the in-order trigger alone (One Item per Transaction, no database). p99 per delivery ${fmtMs(percentile(ledgerRun.latencies, 99))} vs ${fmtMs(percentile(plain.latencies, 99))}${problems.length ? `. PROBLEMS: ${problems.join('; ')}` : ''}`,
			},
			{
				id: '7d', what: `n8n (defaults): the Data Table ledger recipe, ${LEDGER_N} deliveries × ${LEDGER_TX} STX transfers, in order, into n8n's own Data Table: events written per second`,
				figure: `${tablePerSecond.toFixed(1)}/s`, reference: `PostgreSQL ledger ${eventsPerSecond.toFixed(1)}/s`,
				ratio: tablePerSecond / eventsPerSecond, target: 'info', verdict: problems.length ? 'FAIL' : 'info',
				raw: `test/examples/workflows/ledger-data-table.json (Data Table node: the table ensured once per delivery, then an upsert per event, each its own transaction, in n8n's SQLite database); the table held exactly the events sent (${tableRows} rows at the stream's heights); ${Math.round(bytesPerEvent)} bytes an event as n8n counts a table's size, so n8n's default 50 MiB for all data tables holds about ${Math.round((50 * 1024 * 1024) / bytesPerEvent).toLocaleString('en-US')} events; p99 per delivery ${fmtMs(percentile(tableRun.latencies, 99))} vs PostgreSQL ${fmtMs(percentile(ledgerRun.latencies, 99))}`,
			},
			{
				id: '7e.1', what: `n8n (defaults): Notify Once, ${NOTIFY_N} deliveries × ${NOTIFY_TX} new STX transfers, in order, with ${HISTORY.toLocaleString('en-US')} announcements already recorded: p50 latency`,
				figure: fmtMs(notifyOf('full', 'p50')), reference: `empty record ${fmtMs(notifyOf('empty', 'p50'))}`,
				ratio: notifyOf('full', 'p50') / notifyOf('empty', 'p50'), target: `≤ ${HISTORY_SLACK}×`, verdict: verdict(notifyOf('full', 'p50') <= notifyOf('empty', 'p50') * HISTORY_SLACK),
				raw: `test/examples/workflows/notify-once.json (Postgres node: one INSERT … ON CONFLICT DO NOTHING RETURNING per event on the primary key, then Filter and HTTP Request to a local sink); POST → answer, median over ${rounds} rounds of each round's p50: full ${list(notifyFigures.full.map((f) => f.p50))}; empty ${list(notifyFigures.empty.map((f) => f.p50))} ms; every new event announced once (${recorded} recorded after the last round)`,
			},
			{
				id: '7e.2', what: `n8n (defaults): Notify Once, the same, with ${HISTORY.toLocaleString('en-US')} announcements already recorded: CPU per delivery (n8n and PostgreSQL)`,
				figure: fmtMs(notifyOf('full', 'cpuMs')), reference: `empty record ${fmtMs(notifyOf('empty', 'cpuMs'))}`,
				ratio: notifyOf('full', 'cpuMs') / notifyOf('empty', 'cpuMs'), target: `≤ ${HISTORY_SLACK}×`, verdict: verdict(notifyOf('full', 'cpuMs') <= notifyOf('empty', 'cpuMs') * HISTORY_SLACK),
				raw: `CPU time of n8n's and PostgreSQL's process groups (/proc) over each measured stream, per delivery, median over rounds: full ${list(notifyFigures.full.map((f) => f.cpuMs))}; empty ${list(notifyFigures.empty.map((f) => f.cpuMs))} ms`,
			},
		];
		if (problems.length) rows.push({ id: '7c', what: 'part 7: correctness (every delivery answered 200, one successful execution each with its items)', figure: 'FAIL', reference: '', ratio: NaN, target: 'all', verdict: 'FAIL', raw: problems.slice(0, 10).join('; ') });
		return rows;
	} finally {
		log('part 7: stopping n8n, the emulator and PostgreSQL');
		await emu.close().catch(() => undefined);
		await n8n?.stop();
		await postgres.stop();
		await sink.close();
	}
}
