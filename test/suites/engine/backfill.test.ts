/* eslint-disable no-console -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Hook → Backfill through n8n-core's engine against the emulator: one evaluation per height, in
 * order, paced within the rate limit; everything checked before the first one; a clean stop that
 * says how far it got on 401 and 404; a property over ranges.
 */
import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import { MAX_BACKFILL_BLOCKS } from '../../../nodes/shared/constants';
import { ALICE, BOB, emu, hookById, registerThroughNode, runAction, stxTransferFrom, useEmulator, WEBHOOK } from '../../support/engine/fixtures';
import { propertyParameters, replayHint } from '../../support/properties';

/** An account of its own for the pacing test: the nodes keep each account's rate-limit window in the process. */
const PACED_KEY = 'backfill-paced-key';
useEmulator([{ apiKey: PACED_KEY }]);

beforeEach(() => {
	emu.configure({ rateLimit: { limit: 1000, windowMs: 60_000 }, retryAfterSeconds: undefined });
});

const evaluations = () => emu.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/evaluate'));
const evaluatedHeights = () => evaluations().map((request) => (request.body as { block_height: number }).block_height);

async function hookUuid(): Promise<string> {
	const created = await registerThroughNode(emu, 'backfill me');
	emu.clearRequests();
	return created.uuid as string;
}

const backfill = (uuid: string, fromHeight: unknown, toHeight: unknown, continueOnFail = false) =>
	runAction(emu, { resource: 'hook', operation: 'backfill', hookId: hookById(uuid), fromHeight, toHeight } as INodeParameters, { continueOnFail });

describe('hook: backfill', () => {
	it('replays each height of the range once, in order, and the service delivers the matching blocks', async () => {
		const uuid = await hookUuid();
		for (const height of [100, 101, 102, 103, 104]) {
			const sender = height === 102 ? BOB : ALICE;
			await emu.injectBlock({ height, transactions: [{ kind: 'stx_transfer', sender, recipient: BOB, amount: height }] });
		}
		emu.clearRequests();
		const { items, error } = await backfill(uuid, 100, 104);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([{ uuid, fromHeight: 100, toHeight: 104, replayed: 5 }]);
		expect(evaluatedHeights()).toEqual([100, 101, 102, 103, 104]);
		expect(evaluations().map((request) => Object.keys(request.body as object))).toEqual(Array.from({ length: 5 }, () => ['block_height']));
		// The hook's filter is transfers from ALICE: every block but 102 is posted to its webhook (the
		// fixtures' webhook does not answer; the emulator's reports show what it posted).
		await emu.settled();
		expect(emu.deliveries.filter((report) => report.hookUuid === uuid).map((report) => report.blockHeight)).toEqual([100, 101, 103, 104]);
	});

	it('keeps within the rate limit over a range larger than one window', async () => {
		// The budget set before the account's first request, so that every window is one of these.
		emu.configure({ rateLimit: { limit: 5, windowMs: 1000 } });
		const credentials = { apiKey: PACED_KEY };
		const created = await runAction(emu, { resource: 'hook', operation: 'create', name: 'paced', webhookUrl: WEBHOOK, events: stxTransferFrom(ALICE) }, { credentials });
		const uuid = created.items[0].json.uuid as string;
		emu.clearRequests();
		const started = Date.now();
		const { items, error } = await runAction(emu, { resource: 'hook', operation: 'backfill', hookId: hookById(uuid), fromHeight: 0, toHeight: 11 }, { credentials });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ replayed: 12 });
		expect(evaluatedHeights()).toEqual(Array.from({ length: 12 }, (_, i) => i));
		expect(emu.requests.filter((request) => request.status === 429)).toEqual([]);
		// 13 requests (the hook read first) at 5 a second: at least two window changes.
		expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
	}, 60_000);

	it.each([
		['From above To', 12, 10, "'From Block Height' (12) is above 'To Block Height' (10)"],
		['a negative height', -1, 10, "'From Block Height' must be a whole number of 0 or more, not -1"],
		['a fraction', 1.5, 10, "'From Block Height' must be a whole number of 0 or more, not 1.5"],
		['text', 5, '={{ "ten" }}', '\'To Block Height\' must be a whole number of 0 or more, not "ten"'],
		['a range over the bound', 0, MAX_BACKFILL_BLOCKS, `Backfill replays at most ${MAX_BACKFILL_BLOCKS} blocks per item, not ${MAX_BACKFILL_BLOCKS + 1} (0–${MAX_BACKFILL_BLOCKS})`],
	])('refuses %s with a clear error, and sends nothing', async (_label, from, to, message) => {
		const uuid = await hookUuid();
		const { error } = await backfill(uuid, from, to);
		expect(error?.message).toBe(message);
		expect(emu.requests).toEqual([]);
	});

	it('says how to split a range over the bound', async () => {
		const uuid = await hookUuid();
		const { error } = await backfill(uuid, 5000, 7499);
		expect((error as { description?: string }).description).toBe('Split 5000–7499 into 3 items of at most 1000 heights, e.g. 5000–5999, then 6000–6999.');
	});

	it('refuses an unknown hook after one read, replaying nothing', async () => {
		const unknown = '0b9d6f1e-8f7a-4a8e-9d2c-5e4f3a2b1c0d';
		const { error } = await backfill(unknown, 1, 3);
		expect(error?.message).toBe(`Hook ${unknown} was not found (404)`);
		expect(emu.requests.map((request) => request.method)).toEqual(['GET']);
	});

	it.each([
		[401, 'The Stacks Hooks service rejected the API key (401'],
		[404, 'was not found (404)'],
	])('stops at once on a %i in the middle, saying how far it got', async (status, said) => {
		const uuid = await hookUuid();
		emu.failNext(1, status, { match: { path: /\/evaluate$/ }, skip: 3 });
		const { error } = await backfill(uuid, 10, 19);
		expect(error?.message).toMatch(new RegExp(`^Backfill stopped at height 13 after replaying 10–12 \\(3 of 10 blocks\\): `));
		expect(error?.message).toContain(said);
		// Nothing after the refused one.
		expect(evaluatedHeights()).toEqual([10, 11, 12, 13]);
		expect((error as { httpCode?: string }).httpCode).toBe(String(status));
	});

	it('with Continue On Fail, outputs the error and the progress for that item and goes on with the next', async () => {
		const uuid = await hookUuid();
		emu.failNext(1, 404, { match: { path: /\/evaluate$/ } });
		const { items, error } = await runAction(
			emu,
			{ resource: 'hook', operation: 'backfill', hookId: hookById(uuid), fromHeight: '={{ $json.from }}', toHeight: '={{ $json.to }}' },
			{ continueOnFail: true, items: [{ from: 1, to: 2 }, { from: 3, to: 4 }] },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.error ?? item.json)).toEqual([
			`Backfill stopped at height 1 before replaying any block: Hook ${uuid} was not found (404)`,
			{ uuid, fromHeight: 3, toHeight: 4, replayed: 2 },
		]);
	});

	it('property: the heights evaluated are exactly From–To, ascending, for any valid range', async () => {
		const uuid = await hookUuid();
		let runs = 0;
		await fc.assert(
			fc.asyncProperty(fc.nat({ max: 5_000_000 }), fc.nat({ max: 25 }), async (from, span) => {
				emu.clearRequests();
				const { items, error } = await backfill(uuid, from, from + span);
				expect(error).toBeUndefined();
				expect(items[0].json).toEqual({ uuid, fromHeight: from, toHeight: from + span, replayed: span + 1 });
				expect(evaluatedHeights()).toEqual(Array.from({ length: span + 1 }, (_, i) => from + i));
				runs++;
			}),
			propertyParameters(30),
		);
		console.log(`backfill ranges: ${runs} runs; ${replayHint()}`);
	});
});
