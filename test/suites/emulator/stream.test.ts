/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Each hook's deliveries as a stream (test/emulator/README.md): in order, one at a time, the next
 * only once the one before is answered or given up; failed attempts retried after the back-off; a
 * lost answer sent again; an interrupted hook's queue dropped; a reorganisation as one payload.
 * A property: whatever the receiver answers, it sees each hook's payloads in the order they were
 * injected once consecutive repeats (retries) are removed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import fc from 'fast-check';

import { type BlockInput, checkDelivery, type DeliveryPayload, type Emulator, type HookRecord, startEmulator } from '../../emulator/index';
import { propertyParameters, replayHint } from '../../support/properties';
import { ALICE, apiClient, type ApiCall, BOB, definition, events } from './helpers';

/** A receiver whose answer to each request is decided by `answer` (status, and how long it takes). */
interface ScriptedReceiver {
	url: string;
	/** Every request, in arrival order, with when it arrived and when it was answered. */
	log: Array<{ body: DeliveryPayload; at: number; answeredAt?: number }>;
	/** The answer to a request: its status, after `delayMs` or once `after` settles (a gate the test opens). */
	answer: (body: DeliveryPayload, index: number) => { status: number; delayMs?: number; after?: Promise<unknown> };
	close(): Promise<void>;
}

async function startScriptedReceiver(): Promise<ScriptedReceiver> {
	const receiver: ScriptedReceiver = { url: '', log: [], answer: () => ({ status: 200 }), close: async () => undefined };
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const entry: ScriptedReceiver['log'][number] = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as DeliveryPayload, at: Date.now() };
			receiver.log.push(entry);
			const { status, delayMs = 0, after } = receiver.answer(entry.body, receiver.log.length - 1);
			const send = () => {
				entry.answeredAt = Date.now();
				response.writeHead(status).end();
			};
			if (after) void after.then(send, send);
			else setTimeout(send, delayMs);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
	receiver.close = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
	return receiver;
}

let emulator: Emulator;
let receiver: ScriptedReceiver;
let api: ApiCall;

beforeAll(async () => {
	[emulator, receiver] = await Promise.all([startEmulator({ allowHttpWebhooks: true }), startScriptedReceiver()]);
	api = apiClient(emulator);
});
afterAll(() => Promise.all([emulator.close(), receiver.close()]));
beforeEach(() => {
	emulator.reset();
	emulator.configure({ retryDelaysMs: [], interruptAfterFailures: 3, deliveryTimeoutMs: 10_000 });
	receiver.log.length = 0;
	receiver.answer = () => ({ status: 200 });
});

async function hook(name = 'stream', url = receiver.url): Promise<HookRecord> {
	const answer = await api<HookRecord>('POST', '/me/', {
		...definition({ name, filters: events({ type: 'stx_transfer' }), action: { type: 'http_post', url } }),
		options: { enable_on_registration: true },
	});
	expect(answer.status).toBe(200);
	return answer.body;
}

const transfer = (amount: number) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount });
const block = (height: number, hash?: string): BlockInput => ({ height, ...(hash ? { hash } : {}), transactions: [transfer(height)] });
const heightsSeen = (uuid?: string) =>
	receiver.log.filter((entry) => uuid === undefined || entry.body.chainhook.uuid === uuid).map((entry) => entry.body.event.apply.map((b) => b.block_identifier.index).join('+'));

describe('a hook\'s stream', () => {
	it('sends the next block only once the one before is answered; another hook does not wait', async () => {
		const slow = await hook('slow');
		const other = await startScriptedReceiver();
		// The slow receiver answers only once the test opens this gate, however long the machine takes to deliver the rest.
		let open!: () => void;
		const gate = new Promise<void>((resolve) => (open = resolve));
		const sent: Array<Promise<unknown>> = [];
		try {
			const fast = await hook('fast', other.url);
			receiver.answer = () => ({ status: 200, after: gate });
			sent.push(emulator.injectBlock(block(1)), emulator.injectBlock(block(2)));
			for (const deadline = Date.now() + 10_000; other.log.length < 2 && Date.now() < deadline; ) await sleep(10);
			// The other hook has both; the first is still unanswered at the slow receiver, and the second waits for it.
			expect(other.log.map((entry) => entry.body.event.apply[0].block_identifier.index)).toEqual([1, 2]);
			expect(heightsSeen(slow.uuid)).toEqual(['1']);
			open();
			await Promise.all(sent);
			expect(heightsSeen(slow.uuid)).toEqual(['1', '2']);
			expect(receiver.log[1].at).toBeGreaterThanOrEqual(receiver.log[0].answeredAt!);
			expect(fast.uuid).not.toBe(slow.uuid);
		} finally {
			// Nothing of this test is left in flight for the next one's receiver log.
			open();
			await Promise.allSettled(sent);
			await other.close();
		}
	});

	it('retries a failed attempt after each back-off, before the next block', async () => {
		await hook();
		emulator.configure({ retryDelaysMs: [60, 120, 240] });
		receiver.answer = (_body, index) => ({ status: index < 2 ? 500 : 200 });
		const [reports] = await Promise.all([emulator.injectBlock(block(1)), emulator.injectBlock(block(2))]);
		expect(heightsSeen()).toEqual(['1', '1', '1', '2']);
		expect(receiver.log[1].at - receiver.log[0].answeredAt!).toBeGreaterThanOrEqual(55);
		expect(receiver.log[2].at - receiver.log[1].answeredAt!).toBeGreaterThanOrEqual(115);
		expect(reports.map((report) => [report.attempt, report.status])).toEqual([[3, 200]]);
		expect(emulator.deliveries.map((report) => [report.blockHeight, report.attempt, report.status])).toEqual([
			[1, 1, 500],
			[1, 2, 500],
			[1, 3, 200],
			[2, 1, 200],
		]);
	});

	it('retries an attempt that got no answer within the delivery timeout', async () => {
		await hook();
		// undici checks its time-outs about once a second: a 200 ms limit ends within about 1 s, before the 3 s answer.
		emulator.configure({ retryDelaysMs: [20], deliveryTimeoutMs: 200 });
		receiver.answer = (_body, index) => ({ status: 200, delayMs: index === 0 ? 3000 : 0 });
		const [report] = await emulator.injectBlock(block(1));
		expect(emulator.deliveries[0].error).toBe('No answer within 200 ms');
		expect([report.attempt, report.status]).toEqual([2, 200]);
	});

	it('gives up when the hook is interrupted: what it had queued is dropped, nothing more is posted, enabling resumes with new blocks', async () => {
		const target = await hook();
		emulator.configure({ retryDelaysMs: [10, 10, 10, 10], interruptAfterFailures: 3 });
		receiver.answer = () => ({ status: 503 });
		const sent = [emulator.injectBlock(block(1)), emulator.injectBlock(block(2)), emulator.injectBlock(block(3))];
		const finals = (await Promise.all(sent)).map(([report]) => report);
		// Three failed attempts in a row interrupt the hook: the first block's retries stop, the two queued ones are dropped.
		expect(heightsSeen()).toEqual(['1', '1', '1']);
		expect(finals.map((report) => [report.blockHeight, report.dropped ?? false])).toEqual([
			[1, false],
			[2, true],
			[3, true],
		]);
		expect(emulator.hooks()[0].status.status).toBe('interrupted');
		expect(await emulator.injectBlock(block(4))).toEqual([]);

		receiver.answer = () => ({ status: 200 });
		expect((await api('PATCH', `/me/${target.uuid}/enabled`, { enabled: true })).status).toBe(204);
		await emulator.injectBlock(block(5));
		expect(heightsSeen()).toEqual(['1', '1', '1', '5']);
	});

	it('sends a delivery whose answer was lost again: the receiver sees it twice, then the next one', async () => {
		const target = await hook();
		emulator.configure({ retryDelaysMs: [10] });
		emulator.loseNextAnswers(1, { hookUuid: target.uuid });
		await Promise.all([emulator.injectBlock(block(1)), emulator.injectBlock(block(2))]);
		expect(heightsSeen()).toEqual(['1', '1', '2']);
		expect(receiver.log[0].body).toEqual(receiver.log[1].body);
		expect(emulator.deliveries.map((report) => [report.attempt, report.answerLost ?? false, report.error === undefined])).toEqual([
			[1, true, false],
			[2, false, true],
			[1, false, true],
		]);
	});

	it('drops a delivery without a word: counted in the status of the hook, never posted, not retried, and the stream goes on', async () => {
		const target = await hook();
		emulator.configure({ retryDelaysMs: [10, 10] });
		emulator.dropNextDeliveries(1, { hookUuid: target.uuid });
		const [[first], [second]] = await Promise.all([emulator.injectBlock(block(1)), emulator.injectBlock(block(2))]);
		expect(heightsSeen()).toEqual(['2']);
		expect(first).toMatchObject({ blockHeight: 1, dropped: true, silent: true, attempt: 1 });
		expect(second).toMatchObject({ blockHeight: 2, status: 200 });
		expect(emulator.deliveries.filter((report) => report.blockHeight === 1)).toHaveLength(1);
		// The status shows both matches: what the receiver got is one fewer.
		expect(emulator.hooks()[0].status).toMatchObject({ status: 'streaming', enabled: true, occurrence_count: 2, last_occurrence_block_height: 2, evaluated_block_count: 2 });
		const viaControl = await fetch(`${emulator.origin}/_emulator/faults/deliveries`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dropDeliveries: 1 }) });
		expect(viaControl.status).toBe(204);
		await emulator.injectBlock(block(3));
		expect(heightsSeen()).toEqual(['2']);
	});

	it('gives up on a delivery after its retries and interrupts the hook: its later blocks are not evaluated, not sent, and not sent after enabling either', async () => {
		const target = await hook();
		emulator.configure({ retryDelaysMs: [10, 10], interruptAfterFailures: 3 });
		receiver.answer = () => ({ status: 503 });
		await emulator.injectBlock(block(1));
		expect(emulator.hooks()[0].status).toMatchObject({ status: 'interrupted', last_evaluated_block_height: 1, occurrence_count: 1 });
		await emulator.injectBlock(block(2));
		// Not evaluated while interrupted: the height and counts stand still.
		expect(emulator.hooks()[0].status).toMatchObject({ last_evaluated_block_height: 1, evaluated_block_count: 1, occurrence_count: 1 });
		receiver.answer = () => ({ status: 200 });
		await api('PATCH', `/me/${target.uuid}/enabled`, { enabled: true });
		await emulator.injectBlock(block(3));
		expect(heightsSeen()).toEqual(['1', '1', '1', '3']);
	});

	it('queues evaluations on the same stream, after what was injected before', async () => {
		const target = await hook();
		await emulator.injectBlock(block(7));
		receiver.log.length = 0;
		receiver.answer = () => ({ status: 200, delayMs: 150 });
		const injected = emulator.injectBlock(block(8));
		expect((await api('POST', `/me/${target.uuid}/evaluate`, { block_height: 7 })).status).toBe(204);
		await injected;
		await emulator.settled();
		expect(heightsSeen()).toEqual(['8', '7']);
	});
});

describe('a reorganisation', () => {
	it('is one payload, rollback (tip first) and apply, each cut to the hook\'s matches, valid by the official schema', async () => {
		await hook();
		const old = [block(10, `0x${'a1'.repeat(32)}`), block(11, `0x${'a2'.repeat(32)}`)];
		const fresh = [block(10, `0x${'b1'.repeat(32)}`), { height: 11, hash: `0x${'b2'.repeat(32)}`, transactions: [{ kind: 'coinbase' as const, sender: BOB }] }, block(12, `0x${'b3'.repeat(32)}`)];
		for (const b of old) await emulator.injectBlock(b);
		receiver.log.length = 0;
		const [report] = await emulator.injectReorg([...old].reverse(), fresh);
		expect(report.direction).toBe('reorg');
		expect(receiver.log).toHaveLength(1);
		const { event } = receiver.log[0].body;
		expect(checkDelivery(receiver.log[0].body).errors).toEqual([]);
		expect(event.rollback.map((b) => b.block_identifier.hash)).toEqual([`0x${'a2'.repeat(32)}`, `0x${'a1'.repeat(32)}`]);
		// The fork's block 11 holds no match: left out.
		expect(event.apply.map((b) => b.block_identifier.hash)).toEqual([`0x${'b1'.repeat(32)}`, `0x${'b3'.repeat(32)}`]);
		expect(emulator.state().blockHeights).toEqual([10, 11, 12]);
	});

	it('sends only the side that matches, and nothing when neither does', async () => {
		await hook();
		const coinbase = (height: number, hash: string): BlockInput => ({ height, hash, transactions: [{ kind: 'coinbase', sender: BOB }] });
		await emulator.injectReorg([coinbase(20, `0x${'c1'.repeat(32)}`)], [block(20, `0x${'c2'.repeat(32)}`)]);
		await emulator.injectReorg([block(21, `0x${'c3'.repeat(32)}`)], [coinbase(21, `0x${'c4'.repeat(32)}`)]);
		expect(await emulator.injectReorg([coinbase(22, `0x${'c5'.repeat(32)}`)], [coinbase(22, `0x${'c6'.repeat(32)}`)])).toEqual([]);
		expect(receiver.log.map(({ body: { event } }) => [event.rollback.length, event.apply.length])).toEqual([
			[0, 1],
			[1, 0],
		]);
	});

	it('brings a fork back with the same hashes (a flip-flop)', async () => {
		await hook();
		const a = block(30, `0x${'d1'.repeat(32)}`);
		const b = block(30, `0x${'d2'.repeat(32)}`);
		await emulator.injectBlock(a);
		await emulator.injectReorg([a], [b]);
		await emulator.injectReorg([b], [a]);
		const hashes = receiver.log.map(({ body: { event } }) => [event.rollback.map((x) => x.block_identifier.hash), event.apply.map((x) => x.block_identifier.hash)]);
		expect(hashes).toEqual([
			[[], [a.hash]],
			[[a.hash], [b.hash]],
			[[b.hash], [a.hash]],
		]);
		expect(receiver.log[2].body.event.apply).toEqual(receiver.log[0].body.event.apply);
	});

	it('is accepted by the control endpoint, and a bad body is refused', async () => {
		await hook();
		const post = (body: unknown) => fetch(`${emulator.origin}/_emulator/reorg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		const ok = await post({ rollback: [], apply: [block(40)] });
		expect(ok.status).toBe(200);
		expect(((await ok.json()) as { deliveries: unknown[] }).deliveries).toHaveLength(1);
		expect((await post({ apply: 'nope' })).status).toBe(400);
		expect((await post({ apply: [], extra: 1 })).status).toBe(400);
		const lost = await fetch(`${emulator.origin}/_emulator/faults/deliveries`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ loseAnswers: 1 }) });
		expect(lost.status).toBe(204);
	});
});

describe('property', () => {
	it('each hook sees its payloads in injection order, whatever fails, once repeats are removed', async () => {
		await hook('one');
		await hook('two');
		emulator.configure({ retryDelaysMs: [1, 1, 1, 1, 1, 1], interruptAfterFailures: 1000 });
		let runs = 0;
		let retries = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.record({ reorg: fc.boolean(), loseAnswer: fc.boolean() }), { minLength: 1, maxLength: 12 }),
				fc.array(fc.constantFrom(200, 200, 500, 503), { minLength: 1, maxLength: 30 }),
				async (steps, statuses) => {
					receiver.log.length = 0;
					receiver.answer = (_body, index) => ({ status: statuses[index % statuses.length] === 200 || index % 5 === 4 ? 200 : statuses[index % statuses.length] });
					const expected: string[] = [];
					const sent: Array<Promise<unknown>> = [];
					let height = 1000 * ++runs;
					for (const step of steps) {
						if (step.loseAnswer) emulator.loseNextAnswers(1);
						height++;
						if (step.reorg) {
							sent.push(emulator.injectReorg([block(height - 1, `0x${'e'.repeat(56)}${String(height).padStart(8, '0')}`)], [block(height)]));
							expected.push(`r${height - 1}>${height}`);
						} else {
							sent.push(emulator.injectBlock(block(height)));
							expected.push(`${height}`);
						}
					}
					await Promise.all(sent);
					for (const uuid of emulator.hooks().map((h) => h.uuid)) {
						const seen = receiver.log
							.filter((entry) => entry.body.chainhook.uuid === uuid)
							.map(({ body: { event } }) => (event.rollback.length ? `r${event.rollback[0].block_identifier.index}>` : '') + event.apply.map((b) => b.block_identifier.index).join('+'));
						retries += seen.length - expected.length;
						expect(seen.filter((key, i) => key !== seen[i - 1])).toEqual(expected);
					}
				},
			),
			propertyParameters(40),
		);
		console.log(`stream property: ${runs} runs, ${retries} repeated POSTs (retries and lost answers); ${replayHint()}`);
	});
});
