/**
 * Part 6, queue mode against regular mode: the same deliveries (DELIVERIES of one transaction,
 * CONCURRENCY in flight over keep-alive HTTPS, the consumer secret checked) posted to the Stacks
 * Hooks Trigger's production URL of
 *   R:  a single n8n (regular mode, SQLite; stack.ts),
 *   Q1: queue mode (queue.ts: Redis, PostgreSQL, main, 2 webhook processes, 2 workers at n8n's
 *       default concurrency of 10), every delivery to webhook process 1,
 *   Q2: the same queue-mode stack, half the deliveries (and half the connections) to each webhook
 *       process, posted directly: a load balancer in this process would charge its own CPU to the figures,
 * in the order R Q1 Q2 Q2 Q1 R (medians of the two rounds). Figures: deliveries answered per
 * second, executions completed per second (from the first post to the last execution's stop,
 * read from n8n), and the p99 answer time. Every delivery must be answered 200 and give one
 * successful execution with one item (row 6g fails otherwise).
 *
 * Each process's CPU time over the queue-mode rounds (from /proc, its whole process group: task
 * runners and PostgreSQL's backends included) gives the CPU each delivery costs per role, from
 * which the paper estimate of how the figures grow with cores is made.
 */
import type { Execution, WorkflowJson } from '../../support/n8n/api';
import { groupCpuMs } from '../../support/n8n/process';
import { startQueueStack } from '../../support/n8n/queue';
import { startStack } from '../../support/n8n/stack';
import { blast, executionsAfter, itemCount, waitForNew } from './n8n-delivery';
import { ALICE, API_KEY, delivery, SECRET } from './payloads';
import { fmtMs, median, percentile, type Row } from './util';

const DELIVERIES = 200;
const CONCURRENCY = 10;
const TRIGGER_NODE = 'Stacks Hooks Trigger';
const WEBHOOK_ID = '8f3b2a1c-6d5e-4f70-9a8b-1c2d3e4f5a6b';

type Mode = 'R' | 'Q1' | 'Q2';
const LABEL: Record<Mode, string> = { R: 'regular mode', Q1: 'queue mode, 1 webhook process', Q2: 'queue mode, 2 webhook processes' };

interface Figures {
	answeredPerSecond: number;
	completedPerSecond: number;
	p99: number;
}

const triggerWorkflow = (credential: { id: string; name: string }): WorkflowJson => ({
	name: 'Bench: queue mode',
	connections: {},
	nodes: [
		{
			id: 'b1a2c3d4-0000-4000-8000-000000000061',
			name: TRIGGER_NODE,
			type: 'n8n-nodes-stacks-hooks.stacksHooksTrigger',
			typeVersion: 1.1,
			position: [0, 0],
			webhookId: WEBHOOK_ID,
			parameters: { events: { filter: [{ type: 'stx_transfer', sender: ALICE }] } },
			credentials: { stacksHooksApi: credential },
		},
	],
});

export async function queueRows(log: (msg: string) => void): Promise<Row[]> {
	const problems: string[] = [];
	const regular = await startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks (bench, regular)' });
	log('part 6: regular-mode n8n up; starting the queue-mode stack');
	const queue = await startQueueStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks (bench, queue)' }).catch(async (error: unknown) => {
		await regular.close();
		throw error;
	});
	try {
		const setUp = async (api: typeof regular.n8n.api, credential: { id: string; name: string }, emu: typeof regular.emu) => {
			const { id } = await api.createWorkflow(triggerWorkflow(credential));
			await api.activate(id);
			const [hook] = emu.hooks(API_KEY);
			if (!hook) throw new Error('activation registered no hook');
			return { workflowId: id, body: Buffer.from(JSON.stringify(delivery(hook.uuid, hook.definition.name, 7001, 1))) };
		};
		const r = await setUp(regular.n8n.api, regular.credential, regular.emu);
		const q = await setUp(queue.main.api, queue.credential, queue.emu);
		const path = `webhook/${WEBHOOK_ID}/webhook`;
		const targets: Record<Mode, { urls: string[]; ca: string | undefined; api: typeof regular.n8n; workflowId: string; body: Buffer }> = {
			R: { urls: [`${regular.n8n.webhookBaseUrl}${path}`], ca: regular.n8n.certificate, api: regular.n8n, ...r },
			Q1: { urls: [`${queue.webhooks[0].baseUrl}/${path}`], ca: queue.main.certificate, api: queue.main, ...q },
			Q2: { urls: queue.webhooks.map((proc) => `${proc.baseUrl}/${path}`), ca: queue.main.certificate, api: queue.main, ...q },
		};
		const lastId: Record<Mode, number> = { R: 0, Q1: 0, Q2: 0 };
		const processes = {
			main: [queue.main],
			webhook: queue.webhooks,
			worker: queue.workers,
		};
		const cpu = () => ({
			main: processes.main.reduce((sum, p) => sum + groupCpuMs(p.process.pid), 0),
			webhook: processes.webhook.reduce((sum, p) => sum + groupCpuMs(p.process.pid), 0),
			worker: processes.worker.reduce((sum, p) => sum + groupCpuMs(p.process.pid), 0),
			postgres: groupCpuMs(queue.postgres.process.pid),
			redis: groupCpuMs(queue.redis.process.pid),
		});
		const queueCpu = { main: 0, webhook: 0, worker: 0, postgres: 0, redis: 0 };
		let queueDeliveries = 0;

		const round = async (mode: Mode): Promise<Figures> => {
			const target = targets[mode];
			const before = mode === 'R' ? lastId.R : Math.max(lastId.Q1, lastId.Q2);
			const cpuBefore = cpu();
			const share = target.urls.length;
			const parts = await Promise.all(target.urls.map((url) => blast({ certificate: target.ca }, url, target.body, DELIVERIES / share, CONCURRENCY / share, SECRET)));
			const posted = {
				latencies: parts.flatMap((part) => part.latencies),
				statuses: parts.flatMap((part) => part.statuses),
				startedAt: Math.min(...parts.map((part) => part.startedAt)),
				answeredAt: Math.max(...parts.map((part) => part.answeredAt)),
			};
			const ok = posted.statuses.filter((status) => status === 200).length;
			if (ok !== DELIVERIES) problems.push(`${mode}: ${DELIVERIES - ok} of ${DELIVERIES} deliveries answered ${[...new Set(posted.statuses)].join('/')}`);
			const done = await waitForNew(target.api, target.workflowId, before, ok);
			if (mode !== 'R') {
				const cpuAfter = cpu();
				for (const role of Object.keys(queueCpu) as Array<keyof typeof queueCpu>) queueCpu[role] += cpuAfter[role] - cpuBefore[role];
				queueDeliveries += ok;
			}
			const stoppedAt = Math.max(...done.map((execution) => Date.parse(execution.stoppedAt!)));
			const withData: Execution[] = await executionsAfter(target.api, target.workflowId, before, true, 100);
			if (withData.length !== ok) problems.push(`${mode}: ${ok} deliveries accepted, ${withData.length} executions`);
			const wrong = withData.filter((execution) => execution.status !== 'success' || itemCount(execution, TRIGGER_NODE) !== 1);
			if (wrong.length) problems.push(`${mode}: ${wrong.length} executions not successful with 1 item (e.g. ${wrong[0].id}: ${wrong[0].status})`);
			const newest = Math.max(before, ...withData.map((execution) => Number(execution.id)));
			if (mode === 'R') lastId.R = newest;
			else lastId.Q1 = lastId.Q2 = newest;
			const figures = {
				answeredPerSecond: DELIVERIES / ((posted.answeredAt - posted.startedAt) / 1000),
				completedPerSecond: ok / ((stoppedAt - posted.startedAt) / 1000),
				p99: percentile(posted.latencies, 99),
			};
			log(`part 6: ${LABEL[mode]}: ${figures.answeredPerSecond.toFixed(1)} answered/s, ${figures.completedPerSecond.toFixed(1)} completed/s, p99 ${fmtMs(figures.p99)}`);
			return figures;
		};

		const results: Record<Mode, Figures[]> = { R: [], Q1: [], Q2: [] };
		for (const mode of ['R', 'Q1', 'Q2', 'Q2', 'Q1', 'R'] as Mode[]) results[mode].push(await round(mode));
		const med = (mode: Mode, key: keyof Figures) => median(results[mode].map((figures) => figures[key]));

		const perDelivery = Object.fromEntries(Object.entries(queueCpu).map(([role, ms]) => [role, ms / queueDeliveries])) as typeof queueCpu;
		const totalCpu = Object.values(perDelivery).reduce((sum, ms) => sum + ms, 0);
		const ceiling = (cores: number) => (1000 * cores) / totalCpu;
		const cpuNote =
			`CPU per delivery over the queue-mode rounds (${queueDeliveries} deliveries, /proc): ` +
			Object.entries(perDelivery).map(([role, ms]) => `${role} ${ms.toFixed(2)} ms`).join(', ') +
			`; ${totalCpu.toFixed(2)} ms in all. Paper estimate, if every role scales out and nothing else limits: ` +
			`${ceiling(2).toFixed(0)}/s on 2 cores (measured ${Math.max(med('Q1', 'completedPerSecond'), med('Q2', 'completedPerSecond')).toFixed(0)}/s), ` +
			`${ceiling(8).toFixed(0)}/s on 8, ${ceiling(32).toFixed(0)}/s on 32; PostgreSQL alone (one writer per execution) caps at about ` +
			`${(1000 / Math.max(perDelivery.postgres, 0.01)).toFixed(0)}/s per core it gets.`;

		const rows: Row[] = [];
		const row = (id: string, what: string, mode: Mode, ref: Mode, key: keyof Figures): Row => {
			const figure = med(mode, key);
			const reference = med(ref, key);
			const fmt = key === 'p99' ? fmtMs : (value: number) => `${value.toFixed(1)}/s`;
			return {
				id,
				what: `${what}, ${LABEL[mode]} (ref: ${LABEL[ref]})`,
				figure: fmt(figure),
				reference: fmt(reference),
				ratio: figure / reference,
				target: 'measured (2 cores)',
				verdict: 'info',
				raw: `${LABEL[mode]}: ${results[mode].map((f) => fmt(f[key])).join(', ')}; ${LABEL[ref]}: ${results[ref].map((f) => fmt(f[key])).join(', ')} ` +
					`(${DELIVERIES} deliveries of 1 transaction per round, ${CONCURRENCY} in flight).`,
			};
		};
		rows.push(
			row('6a', 'Deliveries answered per second', 'Q1', 'R', 'answeredPerSecond'),
			row('6b', 'Deliveries answered per second', 'Q2', 'Q1', 'answeredPerSecond'),
			row('6c', 'Executions completed per second', 'Q1', 'R', 'completedPerSecond'),
			row('6d', 'Executions completed per second', 'Q2', 'Q1', 'completedPerSecond'),
			row('6e', 'p99 answer time', 'Q1', 'R', 'p99'),
			row('6f', 'p99 answer time', 'Q2', 'Q1', 'p99'),
		);
		rows[3].raw += ` ${cpuNote}`;
		rows.push({
			id: '6g',
			what: 'Queue and regular mode: every delivery answered 200, one successful execution of one item each',
			figure: problems.length ? `${problems.length} problem(s)` : `${6 * DELIVERIES} deliveries, all right`,
			reference: '–',
			ratio: NaN,
			target: 'no problem',
			verdict: problems.length ? 'FAIL' : 'PASS',
			raw: problems.length ? problems.join('; ') : `${6 * DELIVERIES} deliveries and executions checked (statuses from n8n's saved executions).`,
		});
		return rows;
	} finally {
		await queue.close();
		await regular.close();
	}
}
