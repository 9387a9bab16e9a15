/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 10: n8n's memory over a long life, read inside n8n's process through its inspector
 * (test/support/n8n/inspector.ts).
 *
 * One workflow takes 10,000 deliveries, each of a block of its own, 10 at a time. Beside them, a second
 * workflow is activated and deactivated 200 times: it watches a typed address list and checks its health
 * every 3 seconds. The cycles come at one pace from the start, one each 50 deliveries, so the first 1,000
 * deliveries hold 20 of them. The reference is n8n's memory after those first 1,000 deliveries; the figure
 * is its memory after all of them and the 200 cycles. Each reading is the JavaScript heap right after a
 * full collection, and the resident set size. A leak of the trigger's per-node memory, or of what it keeps
 * per delivery, would show as growth.
 *
 * The reference has seen every kind of work once, so that growth is what piles up, not what one kind of
 * work takes the first time: the native memory of the first HTTPS calls to the service, for example. A
 * third reading, halfway, is in the raw lines: memory that still grows in the second half is a leak.
 *
 * The trigger keeps at most 5,000 deliveries per node for the health check (channel/received.ts), so some
 * growth after the first 1,000 is by design. Row 10c is a correctness check: after the cycles, the trigger
 * keeps entries for the one workflow still active, and none for the one deactivated 200 times.
 *
 * Row 10d sets 10b beside n8n itself: n8n's own Webhook node, in an n8n of its own, goes through the same
 * schedule with the same bodies. The RSS holds memory V8 reserved and does not give back, and native memory
 * (TLS, the database); each side's figures of both are in the raw lines.
 */
import { randomUUID } from 'crypto';
import { setTimeout as sleep } from 'timers/promises';

import type { Execution, WorkflowJson } from '../../support/n8n/api';
import { type HeapFigures, Inspector } from '../../support/n8n/inspector';
import type { N8nInstance } from '../../support/n8n/instance';
import { type Stack, startStack } from '../../support/n8n/stack';
import { freePort } from '../../support/ports';
import { blast } from './n8n-delivery';
import { ALICE, API_KEY, BOB, delivery, SECRET } from './payloads';
import { fmtBytes, type Row, verdict } from './util';

const DELIVERIES = 10_000;
const FIRST = 1_000;
const CYCLES = 200;
/** Deliveries between two activation cycles. */
const PER_CYCLE = DELIVERIES / CYCLES;
const CONCURRENCY = 10;
const TRIGGER = 'n8n-nodes-stacks-hooks.stacksHooksTrigger';

function triggerWorkflow(name: string, credential: { id: string; name: string }, parameters: Record<string, unknown>): WorkflowJson {
	return {
		name,
		nodes: [{ id: randomUUID(), name: 'Stacks Hooks Trigger', type: TRIGGER, typeVersion: 1.1, position: [0, 0], webhookId: randomUUID(), parameters, credentials: { stacksHooksApi: credential } }],
		connections: {},
	};
}

/** Waits until n8n runs no execution: a reading then holds no execution's data in flight. */
async function settled(api: { public(method: string, path: string): Promise<unknown> }): Promise<void> {
	for (const deadline = Date.now() + 300_000; Date.now() < deadline; await sleep(500)) {
		const page = (await api.public('GET', '/executions?status=running&limit=1')) as { data: Execution[] };
		if (page.data.length === 0) return;
	}
	throw new Error('n8n still ran executions after 5 minutes');
}

/** What one n8n went through: its memory after the first deliveries, halfway, and after all of them, and every answer's status. */
interface Life {
	first: HeapFigures;
	halfway: HeapFigures;
	after: HeapFigures;
	statuses: number[];
}

/**
 * The schedule each side goes through: DELIVERIES deliveries to `url`, the workflow `cyclingId` activated and
 * deactivated once each PER_CYCLE of them; a reading after FIRST, halfway, and at the end.
 */
async function live(n8n: N8nInstance, inspector: Inspector, url: string, body: (height: number) => Buffer, cyclingId: string, log: (msg: string) => void): Promise<Life> {
	let height = 1_000_000;
	let sent = 0;
	const statuses: number[] = [];
	/** Deliveries and cycles up to `until` deliveries in all, then a reading once no execution runs. */
	const upTo = async (until: number): Promise<HeapFigures> => {
		log(`part 10: deliveries ${sent + 1} to ${until}, with ${(until - sent) / PER_CYCLE} activation cycles`);
		for (; sent < until; sent += PER_CYCLE) {
			await n8n.api.activate(cyclingId);
			const bodies = Array.from({ length: PER_CYCLE }, () => body(++height));
			statuses.push(...(await blast(n8n, url, bodies, PER_CYCLE, CONCURRENCY, SECRET)).statuses);
			await n8n.api.deactivate(cyclingId);
		}
		await settled(n8n.api);
		return await inspector.heap();
	};
	const first = await upTo(FIRST);
	const halfway = await upTo(DELIVERIES / 2);
	return { first, halfway, after: await upTo(DELIVERIES), statuses };
}

/** An n8n with its inspector, for `work`, stopped afterwards. */
async function withN8n<T>(work: (stack: Stack, inspector: Inspector) => Promise<T>): Promise<T> {
	const stack = await startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks API', n8n: { inspectorPort: await freePort() } });
	const inspector = await Inspector.connect(stack.n8n.inspectorPort!);
	try {
		return await work(stack, inspector);
	} finally {
		inspector.close();
		await stack.close();
	}
}

/** The trigger's side: one workflow takes the deliveries, the other, watching a typed list and checking its health, cycles. */
async function triggerLife(log: (msg: string) => void): Promise<Life & { kept: { active: number; deactivated: number; nodes: string } }> {
	return await withN8n(async ({ n8n, emu, credential }, inspector) => {
		const delivering = triggerWorkflow('Bench memory: deliveries', credential, { events: { filter: [{ type: 'stx_transfer', sender: ALICE }] }, options: { healthCheckMinutes: 0 } });
		const { id: deliveringId } = await n8n.api.createWorkflow(delivering);
		await n8n.api.activate(deliveringId);
		const hook = emu.hooks(API_KEY)[0];
		const url = n8n.webhookUrl(`${delivering.nodes[0].webhookId}/webhook`);
		const cycling = triggerWorkflow('Bench memory: activation cycles', credential, {
			watch: 'addresses',
			addresses: `${ALICE}\n${BOB}`,
			watchFor: ['stxSent', 'stxReceived'],
			output: 'event',
			options: { healthCheckMinutes: 0.05 },
		});
		const { id: cyclingId } = await n8n.api.createWorkflow(cycling);
		const life = await live(n8n, inspector, url, (height) => Buffer.from(JSON.stringify(delivery(hook.uuid, hook.definition.name, height, 1))), cyclingId, log);
		const kept = await inspector.triggerMemory(n8n.userFolder);
		const keptFor = (workflowId: string) => Object.keys(kept.nodes).filter((key) => key.startsWith(`${workflowId}\u0000`)).length;
		return { ...life, kept: { active: keptFor(deliveringId), deactivated: keptFor(cyclingId), nodes: JSON.stringify(kept.nodes) } };
	});
}

/** n8n's own Webhook node, in an n8n of its own, through the same schedule with the same bodies: how much n8n grows by itself. */
async function webhookLife(log: (msg: string) => void): Promise<Life> {
	return await withN8n(async ({ n8n }, inspector) => {
		const webhook = (name: string, path: string): WorkflowJson => ({
			name,
			nodes: [{ id: randomUUID(), name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID(), parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} } }],
			connections: {},
		});
		const { id: deliveringId } = await n8n.api.createWorkflow(webhook('Bench memory: Webhook deliveries', 'bench-memory'));
		await n8n.api.activate(deliveringId);
		const { id: cyclingId } = await n8n.api.createWorkflow(webhook('Bench memory: Webhook cycles', 'bench-memory-cycles'));
		const body = (height: number) => Buffer.from(JSON.stringify(delivery(randomUUID(), 'bench', height, 1)));
		return await live(n8n, inspector, n8n.webhookUrl('bench-memory'), body, cyclingId, (msg) => log(`${msg} (n8n's Webhook node)`));
	});
}

/** One figure at the three readings: after FIRST deliveries, halfway, and at the end. */
const threeReadings = (life: Life, figure: keyof HeapFigures) => [life.first, life.halfway, life.after].map((reading) => fmtBytes(reading[figure])).join(', ');

const figures = (life: Life) =>
	`after ${FIRST}, ${DELIVERIES / 2} and ${DELIVERIES} deliveries: heap after a collection ${threeReadings(life, 'heapUsed')}; RSS ${threeReadings(life, 'rss')}; ` +
	`V8's heap reserved ${threeReadings(life, 'heapTotal')}; external ${threeReadings(life, 'external')}`;

export async function memoryRows(log: (msg: string) => void): Promise<Row[]> {
	const trigger = await triggerLife(log);
	const webhook = await webhookLife(log);
	const answered = trigger.statuses.filter((status) => status === 200).length;
	const webhookAnswered = webhook.statuses.filter((status) => status === 200).length;
	const heapRatio = trigger.after.heapUsed / trigger.first.heapUsed;
	const rssRatio = trigger.after.rss / trigger.first.rss;
	const webhookRss = webhook.after.rss / webhook.first.rss;
	const raw = `${answered} of ${trigger.statuses.length} deliveries answered 200; ${figures(trigger)}`;
	const { kept } = trigger;
	const correct = answered === DELIVERIES && kept.active === 1 && kept.deactivated === 0;
	return [
		{ id: '10a', what: `n8n's heap after ${DELIVERIES.toLocaleString('en')} deliveries and ${CYCLES} activation cycles`, figure: fmtBytes(trigger.after.heapUsed), reference: `${fmtBytes(trigger.first.heapUsed)} after ${FIRST.toLocaleString('en')}`, ratio: heapRatio, target: '≤ 1.10×', verdict: verdict(heapRatio <= 1.1), raw },
		{ id: '10b', what: `n8n's RSS after ${DELIVERIES.toLocaleString('en')} deliveries and ${CYCLES} activation cycles`, figure: fmtBytes(trigger.after.rss), reference: `${fmtBytes(trigger.first.rss)} after ${FIRST.toLocaleString('en')}`, ratio: rssRatio, target: '≤ 1.10×', verdict: verdict(rssRatio <= 1.1), raw },
		{
			id: '10c',
			what: 'the trigger keeps memory for active workflows only',
			figure: `${kept.active} active, ${kept.deactivated} deactivated`,
			reference: '1 active, 0 deactivated',
			ratio: NaN,
			target: 'exact',
			verdict: correct ? 'PASS' : 'FAIL',
			raw: `${raw}; nodes kept: ${kept.nodes}`,
		},
		{
			id: '10d',
			what: `10b's RSS growth against n8n's own Webhook node's, the same schedule in an n8n of its own`,
			figure: `${rssRatio.toFixed(2)}×`,
			reference: `${webhookRss.toFixed(2)}× (${fmtBytes(webhook.first.rss)}, then ${fmtBytes(webhook.after.rss)})`,
			ratio: rssRatio / webhookRss,
			target: '≤ 1.10×',
			verdict: verdict(rssRatio / webhookRss <= 1.1 && webhookAnswered === DELIVERIES),
			raw: `n8n's Webhook node: ${webhookAnswered} of ${webhook.statuses.length} answered 200; ${figures(webhook)}`,
		},
	];
}
