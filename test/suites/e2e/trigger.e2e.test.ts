/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The trigger's whole life inside a real n8n (the selected version, HTTPS, the
 * packed package installed as n8n installs community packages), against the
 * emulator on loopback. The action node runs in examples.e2e.test.ts (its manual examples) and, through
 * `n8n execute`, in the smoke test on 1.x (compat.e2e.test.ts).
 */
import { setTimeout as sleep } from 'timers/promises';

import { addressesOf, listStateOf, watchMarker } from '../../../nodes/shared/watchList/listHook';
import type { Emulator } from '../../emulator';
import { testnetAddress } from '../../support/addresses';
import { loadExample } from '../../support/examples';
import { type Execution, N8nHttpError, type WorkflowJson } from '../../support/n8n/api';
import type { N8nInstance } from '../../support/n8n/instance';
import { type Stack, startStack } from '../../support/n8n/stack';

const API_KEY = 'e2e-api-key';
const SECRET = '5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e7abcd';
const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
const CAROL = 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC';
const WEBHOOK_ID = '0f6c2f4e-8a51-4d7b-b0de-3c1f9e2a7b64';
const TRIGGER = 'n8n-nodes-stacks-hooks.stacksHooksTrigger';

let stack: Stack;
let n8n: N8nInstance;
let emu: Emulator;
let credential: { id: string; name: string };
let height = 1000;
// A real n8n on 2 shared cores: a restart or an `n8n execute` takes 10-20 s.
jest.setTimeout(180_000);

function triggerWorkflow(sender: string, webhookId = WEBHOOK_ID, name = 'STX from a sender'): WorkflowJson {
	return {
		name,
		nodes: [
			{
				id: 'c1d6e7a8-1111-4b2c-9d3e-aaaaaaaaaaaa',
				name: 'Stacks Hooks Trigger',
				type: TRIGGER,
				typeVersion: 1.1,
				position: [0, 0],
				webhookId,
				parameters: { events: { filter: [{ type: 'stx_transfer', sender }] } },
				credentials: { stacksHooksApi: credential },
			},
		],
		connections: {},
	};
}

const transfers = (sender: string, count: number) => ({
	height: ++height,
	transactions: Array.from({ length: count }, (_, i) => ({
		kind: 'stx_transfer' as const,
		sender,
		recipient: BOB,
		amount: 1_000_000 + i,
	})),
});

const productionUrl = () => n8n.webhookUrl(`${WEBHOOK_ID}/webhook`);

const items = (execution: Execution) =>
	execution.data?.resultData?.runData?.['Stacks Hooks Trigger']?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];

async function executionCount(workflowId: string): Promise<number> {
	return (await n8n.api.executions({ workflowId })).length;
}

/** The hooks at the emulator once `done` holds of them, or as they are after 10 s. */
async function hooksOnceSettled(done: (count: number) => boolean) {
	for (let waited = 0; !done(emu.hooks(API_KEY).length) && waited < 10_000; waited += 250) await sleep(250);
	return emu.hooks(API_KEY);
}

/** Nothing new shows up: waits long enough for an execution to have been recorded if one had started. */
async function expectNoNewExecution(workflowId: string, before: number): Promise<void> {
	await sleep(1500);
	expect(await executionCount(workflowId)).toBe(before);
}

/** Every line n8n printed, at debug level: no secret may show in any. */
const logLines: string[] = [];

beforeAll(async () => {
	// The credential holds the API key and network only, as users now set it up.
	stack = await startStack({
		apiKey: API_KEY,
		consumerSecret: SECRET,
		credentialName: 'Stacks Hooks (emulator)',
		n8n: { env: { N8N_LOG_LEVEL: 'debug' }, log: (line) => logLines.push(line) },
	});
	({ n8n, emu, credential } = stack);
}, 15 * 60_000);

afterAll(async () => {
	await stack?.close();
}, 60_000);

describe('Stacks Hooks Trigger in a real n8n', () => {
	let workflowId: string;

	it('registers exactly one enabled hook, to the production webhook URL, on activation', async () => {
		const workflow = await n8n.api.createWorkflow(triggerWorkflow(ALICE));
		workflowId = workflow.id;
		await n8n.api.activate(workflowId);
		const hooks = emu.hooks(API_KEY);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].status.enabled).toBe(true);
		expect(hooks[0].definition.action.url).toBe(productionUrl());
		expect(productionUrl()).toMatch(/^https:\/\//);
		expect(hooks[0].definition.name).toBe(`n8n: STX from a sender (${workflowId})`);
	});

	it('runs once for a matching block, with one item per transaction, and not for others', async () => {
		const block = transfers(ALICE, 3);
		const [report] = await emu.injectBlock(block);
		expect(report.status).toBe(200);
		const [execution] = await n8n.api.waitForExecutions(workflowId, 1);
		expect(execution.status).toBe('success');
		const output = items(execution);
		const delivered = report.payload.event.apply[0];
		expect(output.map((item) => item.txHash)).toEqual(delivered.transactions.map((tx) => tx.transaction_identifier.hash));
		expect(output[0]).toMatchObject({
			direction: 'apply',
			hookUuid: emu.hooks(API_KEY)[0].uuid,
			network: 'testnet',
			blockHeight: block.height,
			blockHash: delivered.block_identifier.hash,
			sender: ALICE,
			txStatus: 'success',
		});

		expect(await emu.injectBlock(transfers(BOB, 2))).toEqual([]);
		await expectNoNewExecution(workflowId, 1);
	});

	it('marks a rolled-back block', async () => {
		await emu.injectRollback(transfers(ALICE, 1));
		const executions = await n8n.api.waitForExecutions(workflowId, 2);
		expect(items(executions[1]).map((item) => item.direction)).toEqual(['rollback']);
	});

	it('answers 401 and starts nothing without the right secret; 200 and runs for each accepted header form', async () => {
		const payload = (await emu.injectBlock(transfers(ALICE, 1)))[0].payload;
		await n8n.api.waitForExecutions(workflowId, 3);
		const post = (headers: Record<string, string>) =>
			n8n.request(productionUrl(), { method: 'POST', headers, body: payload });

		const refused: Array<Record<string, string>> = [
			{},
			{ 'x-hook-consumer-secret': `${SECRET.slice(0, -1)}0` },
			{ 'x-hook-consumer-secret': SECRET.slice(0, 10) },
			{ authorization: `Bearer ${SECRET}x` },
		];
		for (const headers of refused) {
			expect((await post(headers)).status).toBe(401);
		}
		await expectNoNewExecution(workflowId, 3);

		const accepted: Array<Record<string, string>> = [
			{ 'x-hook-consumer-secret': SECRET },
			{ 'x-chainhook-consumer-secret': SECRET },
			{ authorization: `Bearer ${SECRET}` },
		];
		for (const headers of accepted) {
			const answer = await post(headers);
			expect(answer.status).toBe(200);
			expect(answer.json).toEqual({ received: true, items: 1 });
		}
		expect(await n8n.api.waitForExecutions(workflowId, 6)).toHaveLength(6);
	});

	it('keeps exactly one hook across a restart, still delivering', async () => {
		const [before] = emu.hooks(API_KEY);
		await n8n.restart();
		expect(emu.hooks(API_KEY).map((hook) => hook.uuid)).toEqual([before.uuid]);
		const [report] = await emu.injectBlock(transfers(ALICE, 2));
		expect(report.status).toBe(200);
		const executions = await n8n.api.waitForExecutions(workflowId, 7);
		expect(items(executions[6])).toHaveLength(2);
	});

	it('leaves exactly one hook, with the new events, when the events change and it is re-activated', async () => {
		await n8n.api.updateWorkflow(workflowId, triggerWorkflow(BOB));
		await n8n.api.activate(workflowId);
		const hooks = emu.hooks(API_KEY);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].definition.filters.events).toEqual([{ type: 'stx_transfer', sender: BOB }]);
		expect(hooks[0].status.enabled).toBe(true);
		expect(await emu.injectBlock(transfers(BOB, 1))).toEqual([expect.objectContaining({ status: 200 })]);
	});

	it('deletes the hook on deactivation: the service holds none afterwards', async () => {
		await n8n.api.deactivate(workflowId);
		expect(emu.hooks(API_KEY)).toEqual([]);
	});

	it('still deactivates cleanly when the hook was deleted at the service by hand', async () => {
		await n8n.api.activate(workflowId);
		const [hook] = emu.hooks(API_KEY);
		const gone = await fetch(`${emu.url}/me/${hook.uuid}`, { method: 'DELETE', headers: { 'x-api-key': API_KEY } });
		expect(gone.status).toBe(204);
		await n8n.api.deactivate(workflowId);
		expect(emu.hooks(API_KEY)).toEqual([]);
		expect((await n8n.api.getWorkflow(workflowId)).active).toBe(false);
	});
});

describe('Watching a list of addresses', () => {
	const LIST_WEBHOOK_ID = '3e8d1b60-7c2a-4f95-b1d4-9a0c6e5f2b17';
	// A thousand testnet addresses, ALICE and CAROL among them, as c32check writes them.
	const list = [ALICE, ...Array.from({ length: 998 }, (_, i) => testnetAddress(i + 1)), CAROL];

	it('registers one hook with a filter per address and kind, and each item names the listed address and direction', async () => {
		const workflow = triggerWorkflow(ALICE, LIST_WEBHOOK_ID, 'Deposit addresses');
		workflow.nodes[0].parameters = { watch: 'addresses', addresses: list.join('\n'), output: 'event' };
		const { id } = await n8n.api.createWorkflow(workflow);
		await n8n.api.activate(id);
		const [hook] = emu.hooks(API_KEY).filter((candidate) => candidate.definition.action.url === n8n.webhookUrl(`${LIST_WEBHOOK_ID}/webhook`));
		// Transfers in and out of STX, tokens and NFTs: six filters an address.
		expect(hook.definition.filters.events).toHaveLength(6 * list.length);
		expect(hook.status.enabled).toBe(true);

		const [report] = await emu.injectBlock({
			height: ++height,
			transactions: [
				{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 5 },
				{ kind: 'stx_transfer', sender: BOB, recipient: BOB, amount: 6 },
				{ kind: 'ft_transfer', sender: BOB, recipient: CAROL, assetIdentifier: `${BOB}.token::t`, amount: 7 },
			],
		});
		expect(report.status).toBe(200);
		const [execution] = await n8n.api.waitForExecutions(id, 1);
		expect(items(execution).map(({ eventType, amount, watched }) => ({ eventType, amount, watched }))).toEqual([
			{ eventType: 'stx_transfer', amount: '5', watched: [{ address: ALICE, direction: 'out' }] },
			{ eventType: 'ft_transfer', amount: '7', watched: [{ address: CAROL, direction: 'in' }] },
		]);
		await n8n.api.deactivate(id);
		expect(emu.hooks(API_KEY).filter((candidate) => candidate.uuid === hook.uuid)).toEqual([]);
	});

	it('when the service refuses a filter per address as too many, selects transfers of any address and runs only for the listed', async () => {
		emu.configure({ maxFilters: 1_000 });
		try {
			const workflow = triggerWorkflow(ALICE, LIST_WEBHOOK_ID, 'Deposit addresses, matched in n8n');
			workflow.nodes[0].parameters = { watch: 'addresses', addresses: list.join('\n'), output: 'event' };
			const { id } = await n8n.api.createWorkflow(workflow);
			await n8n.api.activate(id);
			const [hook] = emu.hooks(API_KEY).filter((candidate) => candidate.definition.action.url === n8n.webhookUrl(`${LIST_WEBHOOK_ID}/webhook`));
			expect(hook.definition.filters.events).toEqual([{ type: 'ft_transfer' }, { type: 'nft_transfer' }, { type: 'stx_transfer' }]);
			expect(hook.definition.name).toMatch(/ \[addresses \| [0-9a-f]{8} \| matched in n8n\]$/);
			expect(logLines.join('\n')).toMatch(/refused a hook of 6000 filters \(one per address and kind\) as too large/);

			// Delivered by the service (every transfer), answered, and no run: nothing in it is about the list.
			const [unlisted] = await emu.injectBlock({ height: ++height, transactions: [{ kind: 'stx_transfer', sender: BOB, recipient: BOB, amount: 6 }] });
			expect(unlisted.status).toBe(200);
			const [mixed] = await emu.injectBlock({
				height: ++height,
				transactions: [
					{ kind: 'stx_transfer', sender: BOB, recipient: BOB, amount: 6 },
					{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 5 },
				],
			});
			expect(mixed.payload.event.apply[0].transactions).toHaveLength(2);
			const executions = await n8n.api.waitForExecutions(id, 1);
			expect(executions).toHaveLength(1);
			expect(items(executions[0]).map(({ blockHeight, amount, watched }) => ({ blockHeight, amount, watched }))).toEqual([{ blockHeight: height, amount: '5', watched: [{ address: ALICE, direction: 'out' }] }]);
			await n8n.api.deactivate(id);
		} finally {
			emu.configure({ maxFilters: null });
		}
	});
});

describe('A watch list edited live from other workflows', () => {
	const LIVE_WEBHOOK_ID = loadExample('depositTrigger').nodes[0].webhookId;
	const hookUrl = () => n8n.webhookUrl(`${LIVE_WEBHOOK_ID}/webhook`);
	const liveHook = () => emu.hooks(API_KEY).find((hook) => hook.definition.action.url === hookUrl());
	const listHook = () => emu.hooks(API_KEY).find((hook) => hook.definition.name === 'n8n watch list: deposits');
	const addressNo = (n: number) => testnetAddress(n + 0x10000);
	const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => addressNo(from + i));

	/**
	 * The example's signup workflow (a Webhook, one item an address, the Stacks Hooks node's Add), and the same workflow
	 * removing, at a path of its own. Its runs keep no execution data, as a bulk import should not.
	 */
	function editor(operation: 'add' | 'remove' | 'replace'): WorkflowJson {
		const workflow = loadExample('depositSignup', credential);
		if (operation === 'add') return workflow;
		const [webhook, split, stacksHooks] = workflow.nodes as Array<Record<string, unknown> & { parameters: Record<string, unknown> }>;
		const digit = operation === 'remove' ? '0' : '1';
		return {
			...workflow,
			name: `Deposit addresses: ${operation}`,
			nodes: [
				{ ...webhook, id: `e1d2c3b4-${digit}000-4a5b-8c6d-7e8f9a0b1c2d`, webhookId: `9d2e3f4a-5b6c-4d7e-8f90-1a2b3c4d5e6${digit}`, parameters: { ...webhook.parameters, path: `deposit-addresses-${operation}` } },
				{ ...split, id: `e1d2c3b4-${digit}001-4a5b-8c6d-7e8f9a0b1c2d` },
				{ ...stacksHooks, id: `e1d2c3b4-${digit}002-4a5b-8c6d-7e8f9a0b1c2d`, parameters: { ...stacksHooks.parameters, operation } },
			],
		};
	}
	/**
	 * One run of the editor, answered when the list and every trigger watching it have the edit. n8n 2.41 reads each item's
	 * parameters at about 0.9 ms an item here (its `{{ $json.address }}` evaluated in an isolated VM), alone: 10,000 items
	 * answered in 9.7 s, and in 30 s beside another real n8n on two cores. The import is allowed two minutes, not the
	 * helper's 30 s.
	 */
	const editList = async (operation: 'add' | 'remove' | 'replace', addresses: string[]) => {
		const answer = await n8n.request(n8n.webhookUrl(operation === 'add' ? 'deposit-addresses' : `deposit-addresses-${operation}`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: { addresses }, timeoutMs: 120_000 });
		expect(answer.status).toBe(200);
		return answer.json as Record<string, unknown>;
	};
	const transfersTo = (recipients: string[], others = 0) => ({
		height: ++height,
		transactions: [
			...recipients.map((recipient, i) => ({ kind: 'stx_transfer' as const, sender: BOB, recipient, amount: 100 + i })),
			...range(90_000, others).map((recipient) => ({ kind: 'stx_transfer' as const, sender: BOB, recipient, amount: 1 })),
		],
	});
	let triggerId: string;

	beforeAll(async () => {
		for (const operation of ['add', 'remove', 'replace'] as const) await n8n.api.activate((await n8n.api.createWorkflow(editor(operation))).id);
	});

	it('holds 10,000 addresses added by one run, and a trigger activated on it watches them all', async () => {
		expect(await editList('add', range(0, 10_000))).toMatchObject({ list: 'deposits', added: true, listSize: 10_000 });
		expect(listHook()!.definition.filters.events).toHaveLength(10_000);
		expect(listHook()!.status.enabled).toBe(false);
		// The example's trigger: watching the list for STX received, each event one item, a Set node naming the deposit.
		triggerId = (await n8n.api.createWorkflow(loadExample('depositTrigger', credential))).id;
		await n8n.api.activate(triggerId);
		expect(liveHook()!.definition.filters.events).toHaveLength(10_000);
	});

	it('delivers, once each, the transfers to 50 addresses added a moment before the very next block', async () => {
		const before = liveHook()!.uuid;
		const added = range(20_000, 50);
		expect(await editList('add', added)).toMatchObject({ listSize: 10_050, hooksUpdated: [before] });
		expect(liveHook()!.uuid).toBe(before);
		await emu.injectBlock(transfersTo(added, 5));
		const [execution] = await n8n.api.waitForExecutions(triggerId, 1);
		expect(items(execution).map((item) => item.watched)).toEqual(added.map((address) => [{ address, direction: 'in' }]));
		// The example's Deposit node: which customer's address, how much, of what, without a lookup.
		const deposits = execution.data?.resultData?.runData?.Deposit?.[0]?.data?.main?.[0]?.map((item) => item.json);
		expect(deposits).toEqual(added.map((address, i) => ({ depositAddress: address, amount: String(100 + i), asset: 'STX', undone: false, eventId: expect.any(String) })));
	});

	it('loses no edit to a restart of n8n between edits; for 50 addresses removed, runs for nothing after, but undoes what a reorganisation drops', async () => {
		const added = range(30_000, 50);
		const removed = range(20_000, 50);
		await editList('add', added);
		await n8n.restart();
		// A block paying the 50 still listed, then their removal.
		const paid = transfersTo(removed);
		await emu.injectBlock(paid);
		await n8n.api.waitForExecutions(triggerId, 2);
		await editList('remove', removed);
		// Their filters stay (for undos), so the service sends their next transfers; the trigger keeps none: no run.
		const after = transfersTo(removed);
		expect((await emu.injectBlock(after)).map((report) => report.status)).toEqual([200]);
		await expectNoNewExecution(triggerId, 2);
		// A reorganisation undoes both blocks and pays the 50 added: one run, undoing the 50 payments made while listed.
		const replacement = { ...transfersTo(added), height: paid.height, hash: `0x${'e'.repeat(64)}` };
		await emu.injectReorg([after, paid], [replacement]);
		const executions = await n8n.api.waitForExecutions(triggerId, 3);
		expect(items(executions[2]).map((item) => [item.direction, (item.watched as Array<{ address: string }>)[0].address])).toEqual([
			...removed.map((address) => ['rollback', address]),
			...added.map((address) => ['apply', address]),
		]);
		await expectNoNewExecution(triggerId, 3);
	});

	it('becomes exactly the addresses of a Data Table when the example mirroring it runs, the trigger following in place', async () => {
		// The table a user keeps: 50 of the list's addresses and 25 new ones; the list's other 10,000 are not in it.
		const kept = range(30_000, 50);
		const added = range(40_000, 25);
		const table = (await n8n.api.public('POST', '/data-tables', { name: 'Deposit addresses', columns: [{ name: 'address', type: 'string' }] })) as { id: string };
		await n8n.api.public('POST', `/data-tables/${table.id}/rows`, { data: [...kept, ...added].map((address) => ({ address })), returnType: 'count' });
		const before = liveHook()!.uuid;
		const { id } = await n8n.api.createWorkflow(loadExample('depositFromTable', credential));
		await n8n.api.runManually(id, 'Every 5 minutes');
		// The example keeps no data of a successful run (it runs every 5 minutes): the service says when the run is over, the
		// watching hook's filters being the edit's last write.
		const listed = () => (listHook() ? addressesOf(listHook()!) : []);
		const followed = () => liveHook()!.definition.name === `${liveHook()!.definition.name.replace(/ \[watch list: .*$/, '')}${watchMarker('deposits', ['stxReceived'], listStateOf(listHook()!))}`;
		for (const deadline = Date.now() + 60_000; !(listed().length === 75 && followed()) && Date.now() < deadline; ) await sleep(250);
		expect(listed().sort()).toEqual([...kept, ...added].sort());
		expect(followed()).toBe(true);
		expect(liveHook()!.uuid).toBe(before);

		// A block with transfers to an added address, a kept one and one the table dropped: a run for the first two only.
		await emu.injectBlock(transfersTo([added[0], kept[0], addressNo(0)]));
		const executions = await n8n.api.waitForExecutions(triggerId, 4);
		expect(items(executions[3]).map((item) => (item.watched as Array<{ address: string }>)[0].address)).toEqual([added[0], kept[0]]);
	});

	it('delivers, once each, the transfers to 10 addresses added while a block was mined before each request of the edit after its first read of the tip', async () => {
		const added = range(50_000, 10);
		const list = listHook()!.uuid;
		const watcher = liveHook()!.uuid;
		// Each block pays the 10: after the edit read the chain's tip, before it wrote the list, read it back, listed the
		// hooks again, and updated the trigger's hook. The service matches each with the list before the edit; the edit
		// evaluates each again once the hook has the 10.
		const mined: number[] = [];
		const block = () => {
			const transfers = transfersTo(added);
			mined.push(transfers.height);
			return transfers;
		};
		emu.mineAt({ method: 'PATCH', path: list }, 'before', block());
		emu.mineAt({ method: 'GET', path: list }, 'before', block());
		emu.mineAt({ method: 'GET', path: /\/me\/$/, skip: 1 }, 'before', block());
		emu.mineAt({ method: 'PATCH', path: watcher }, 'before', block());
		expect(await editList('add', added)).toMatchObject({ listSize: 85 });
		expect(emu.state().blockHeights).toEqual(expect.arrayContaining(mined));
		const executions = (await n8n.api.waitForExecutions(triggerId, 8)).slice(4);
		const delivered = executions.flatMap(items);
		expect(delivered.map((item) => `${item.blockHeight} ${item.recipient}`).sort()).toEqual(mined.flatMap((at) => added.map((address) => `${at} ${address}`)).sort());
		expect(new Set(delivered.map((item) => item.eventId)).size).toBe(40);
		await expectNoNewExecution(triggerId, 8);
	});

	it('replaces the list by 1,500 new addresses and 60 it held mid-stream; a reorganisation across it undoes what was applied, by its ids, and names the list at each height', async () => {
		const before = addressesOf(listHook()!);
		const kept = before.slice(0, 60);
		const removed = before.slice(60);
		const fresh = range(60_000, 1500);
		// Paid before the replace: a kept address and a removed one (both listed then), and a new one (not yet).
		const paid = transfersTo([kept[0], removed[0], fresh[0]]);
		await emu.injectBlock(paid);
		const [applied] = (await n8n.api.waitForExecutions(triggerId, 9)).slice(8);
		expect(items(applied).map((item) => item.recipient)).toEqual([kept[0], removed[0]]);
		expect(await editList('replace', [...kept, ...fresh])).toMatchObject({ listSize: 1560 });
		// Paid after it: a new address and a removed one (its filters stay, for its undos: the service sends it).
		const after = transfersTo([fresh[1], removed[1]]);
		await emu.injectBlock(after);
		const [next] = (await n8n.api.waitForExecutions(triggerId, 10)).slice(9);
		expect(items(next).map((item) => item.recipient)).toEqual([fresh[1]]);
		// Both undone; the new block at the first one's height pays a removed address (listed at that height) and a new one (not).
		const replacement = { ...transfersTo([removed[2], fresh[2], kept[1]]), height: paid.height, hash: `0x${'f'.repeat(64)}` };
		await emu.injectReorg([after, paid], [replacement]);
		const [reorg] = (await n8n.api.waitForExecutions(triggerId, 11)).slice(10);
		const ids = new Map([...items(applied), ...items(next)].map((item) => [item.recipient, item.eventId]));
		expect(items(reorg).map((item) => [item.direction, item.blockHeight, item.recipient, item.direction === 'rollback' ? item.eventId === ids.get(item.recipient) : 'new'])).toEqual([
			['rollback', after.height, fresh[1], true],
			['rollback', paid.height, kept[0], true],
			['rollback', paid.height, removed[0], true],
			['apply', paid.height, removed[2], 'new'],
			['apply', paid.height, kept[1], 'new'],
		]);
		await expectNoNewExecution(triggerId, 11);
	});

	it('keeps the list when the trigger is deactivated', async () => {
		await n8n.api.deactivate(triggerId);
		expect(liveHook()).toBeUndefined();
		expect(listHook() && addressesOf(listHook()!)).toHaveLength(1560);
	});
});

describe('Listening for a test event in the editor', () => {
	const TEST_WEBHOOK_ID = '7a2d9c41-5e3b-4f6a-8c1d-2b9e0f4a6d35';
	const listen = (id: string) =>
		n8n.api.runManually(id, 'Stacks Hooks Trigger');

	it('registers its own hook for the test URL, and removes it when listening is cancelled', async () => {
		emu.reset();
		const { id } = await n8n.api.createWorkflow(triggerWorkflow(ALICE, TEST_WEBHOOK_ID, 'Test listening'));
		expect(await listen(id)).toMatchObject({ data: { waitingForWebhook: true } });
		const hooks = emu.hooks(API_KEY);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].definition.action.url).toBe(`${n8n.webhookBaseUrl}webhook-test/${TEST_WEBHOOK_ID}/webhook`);
		expect(hooks[0].definition.name).toBe(`n8n: Test listening (${id}) [test]`);
		expect(hooks[0].status.enabled).toBe(true);

		// n8n removes test webhooks in the background once the cancel request is answered.
		await n8n.api.rest('DELETE', `/test-webhook/${id}`);
		expect(await hooksOnceSettled((count) => count === 0)).toEqual([]);
	});

	it('runs once on the first matching delivery, then removes its hook', async () => {
		emu.reset();
		const { id } = await n8n.api.createWorkflow(triggerWorkflow(ALICE, TEST_WEBHOOK_ID, 'Test delivery'));
		await listen(id);
		const [report] = await emu.injectBlock(transfers(ALICE, 2));
		expect(report.status).toBe(200);
		const [execution] = await n8n.api.waitForExecutions(id, 1);
		expect(execution.mode).toBe('manual');
		expect(items(execution)).toHaveLength(2);
		// n8n ends test listening after one call; the trigger's delete then removes the test hook.
		expect(await hooksOnceSettled((count) => count === 0)).toEqual([]);
		expect(evaluations()).toEqual([]);
	});

	/** A block only the Sample Block cases watch (no other workflow's filter names CAROL), stored at the emulator. */
	async function sampleBlock() {
		const block = {
			height: ++height,
			transactions: [
				{ kind: 'stx_transfer' as const, sender: CAROL, recipient: BOB, amount: 7_000_000 },
				{ kind: 'contract_call' as const, sender: CAROL, contractIdentifier: `${BOB}.market`, functionName: 'list-item' },
				{ kind: 'stx_transfer' as const, sender: CAROL, recipient: ALICE, amount: 42, status: 'abort_by_post_condition' as const },
			],
		};
		expect(await emu.injectBlock(block)).toEqual([]); // stored; no hook delivers it
		return block.height;
	}
	const evaluations = () => emu.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/evaluate'));
	function sampleWorkflow(name: string, parameters: Record<string, unknown>): WorkflowJson {
		const workflow = triggerWorkflow(CAROL, TEST_WEBHOOK_ID, name);
		workflow.nodes[0].parameters = { ...(workflow.nodes[0].parameters as object), output: 'event', ...parameters };
		return workflow;
	}

	it('with Sample Block set, runs with that block\'s matching events within seconds, one item per event', async () => {
		emu.reset();
		const block = await sampleBlock();
		const { id } = await n8n.api.createWorkflow(sampleWorkflow('Sample block', { sampleBlock: String(block) }));
		const started = Date.now();
		await listen(id);
		const answered = Date.now();
		const [execution] = await n8n.api.waitForExecutions(id, 1, { timeoutMs: 10_000 });
		// The editor has its answer ("listening") before the test execution starts: the other way round,
		// it would go on showing "Listening for test event" after the output had come.
		expect(Date.parse(execution.startedAt ?? '')).toBeGreaterThan(answered);
		const seconds = (Date.now() - started) / 1000;
		console.log(`Sample Block: listening to test execution in ${seconds.toFixed(1)} s`);
		expect(seconds).toBeLessThan(10);
		expect(execution.mode).toBe('manual');
		// The two transfers of CAROL, the failed one marked; not the contract call in between.
		expect(items(execution)).toEqual([
			expect.objectContaining({ eventType: 'stx_transfer', sender: CAROL, recipient: BOB, amount: '7000000', decimals: 6, blockHeight: block, txSucceeded: true }),
			expect.objectContaining({ eventType: 'stx_transfer', sender: CAROL, recipient: ALICE, amount: '42', txStatus: 'abort_by_post_condition', txSucceeded: false }),
		]);
		expect(evaluations().map((request) => request.body)).toEqual([{ block_height: block }]);
		expect(await hooksOnceSettled((count) => count === 0)).toEqual([]);
	});

	it('with a Sample Block that has no match, stops listening and says why', async () => {
		emu.reset();
		const block = await sampleBlock();
		const workflow = sampleWorkflow('Sample block, no match', { sampleBlock: String(block) });
		workflow.nodes[0].parameters = { ...(workflow.nodes[0].parameters as object), events: { filter: [{ type: 'nft_mint' }] } };
		const { id } = await n8n.api.createWorkflow(workflow);
		const refused = await listen(id).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(refused).toBeInstanceOf(N8nHttpError);
		expect((refused as N8nHttpError).message).toContain(`No event in block ${block} matches this trigger's filters`);
		expect(evaluations()).toHaveLength(1);
		expect(await hooksOnceSettled((count) => count === 0)).toEqual([]);
		expect(await executionCount(id)).toBe(0);
	});

	it('ignores Sample Block on activation: no evaluation, live blocks only', async () => {
		emu.reset();
		const block = await sampleBlock();
		const { id } = await n8n.api.createWorkflow(sampleWorkflow('Sample block, active', { sampleBlock: String(block) }));
		await n8n.api.activate(id);
		expect(evaluations()).toEqual([]);
		expect(await executionCount(id)).toBe(0);
		await n8n.api.deactivate(id);
	});
});

describe('Self-healing hooks', () => {
	const HEAL_WEBHOOK_ID = '5c3e9a70-2b4d-4e1f-9a8b-7d6c5b4a3f21';
	const healUrl = () => n8n.webhookUrl(`${HEAL_WEBHOOK_ID}/webhook`);
	const mine = () => emu.hooks(API_KEY).filter((hook) => hook.definition.action.url === healUrl());
	const api = (path: string, method: string, body?: unknown) =>
		fetch(`${emu.url}${path}`, { method, headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
	/** The hooks posting to the workflow's URL once `done` holds of them, or as they are after `ms`. */
	async function mineOnce(done: (hooks: ReturnType<typeof mine>) => boolean, ms: number) {
		for (let waited = 0; !done(mine()) && waited < ms; waited += 250) await sleep(250);
		return mine();
	}
	const healedLines = () => logLines.filter((line) => line.includes('Stacks Hooks Trigger') && /again|deleted at the service/.test(line));
	let id: string;

	it('delivers again after a restart when the service had disabled the hook', async () => {
		emu.reset();
		({ id } = await n8n.api.createWorkflow(triggerWorkflow(ALICE, HEAL_WEBHOOK_ID, 'Self-healing')));
		await n8n.api.activate(id);
		const [hook] = mine();
		await api(`/me/${hook.uuid}/enabled`, 'PATCH', { enabled: false });
		expect(await emu.injectBlock(transfers(ALICE, 1))).toEqual([]);

		await n8n.restart();
		const [after] = await mineOnce(([found]) => found?.status.enabled === true, 45_000);
		expect(after).toMatchObject({ uuid: hook.uuid, status: { enabled: true } });
		// Left stopped at n8n's start for the first health check (5 s later), which brings it back: the service's status
		// is the record of where it stopped, whatever restart comes before that check. (The line comes through n8n's
		// output after the emulator saw the hook enabled: waited for.)
		const enabledLine = `enabled hook ${hook.uuid} again by the health check: it had been disabled at the service`;
		for (let waited = 0; !healedLines().some((line) => line.includes(enabledLine)) && waited < 5_000; waited += 100) await sleep(100);
		expect(healedLines()).toEqual([expect.stringContaining(enabledLine)]);
		expect(logLines.some((line) => line.includes(`found hook ${hook.uuid} stopped on n8n's start (it had been disabled at the service)`))).toBe(true);
		expect(await emu.injectBlock(transfers(ALICE, 1))).toEqual([expect.objectContaining({ status: 200 })]);
		expect(await n8n.api.waitForExecutions(id, 1)).toHaveLength(1);
	});

	it('while n8n runs, resumes an interrupted hook and registers a deleted one again, logging each once', async () => {
		const workflow = triggerWorkflow(ALICE, HEAL_WEBHOOK_ID, 'Self-healing');
		workflow.nodes[0].parameters = { ...(workflow.nodes[0].parameters as object), options: { healthCheckMinutes: 0.05 } }; // every 3 s
		await n8n.api.updateWorkflow(id, workflow);
		await n8n.api.activate(id);
		const linesBefore = healedLines().length;
		const [hook] = mine();

		emu.interruptHook(hook.uuid);
		expect(await emu.injectBlock(transfers(ALICE, 1))).toEqual([]);
		const [resumed] = await mineOnce(([found]) => found?.status.status === 'streaming', 20_000);
		expect(resumed).toMatchObject({ uuid: hook.uuid, status: { enabled: true, status: 'streaming' } });

		await api(`/me/${hook.uuid}`, 'DELETE');
		// Registered, then enabled: two requests, so wait for both.
		const [again] = await mineOnce((found) => found.length === 1 && found[0].uuid !== hook.uuid && found[0].status.enabled, 20_000);
		expect(again).toMatchObject({ status: { enabled: true }, definition: hook.definition });
		await sleep(7000); // two more checks: nothing more to heal, nothing more logged
		expect(mine().map((found) => found.uuid)).toEqual([again.uuid]);
		expect(healedLines().slice(linesBefore)).toEqual([
			expect.stringContaining(`enabled hook ${hook.uuid} again by the health check: the service had interrupted it after deliveries that did not go through`),
			expect.stringContaining(`hook ${hook.uuid} had been deleted at the service; registered it again as ${again.uuid}`),
		]);
		expect(await emu.injectBlock(transfers(ALICE, 2))).toEqual([expect.objectContaining({ status: 200 })]);
		const executions = await n8n.api.waitForExecutions(id, 2);
		expect(items(executions[1])).toHaveLength(2);
	});

	it('deletes on deactivation the hook the health check registered, though n8n saved only the old UUID', async () => {
		await n8n.api.deactivate(id);
		expect(await mineOnce((found) => found.length === 0, 10_000)).toEqual([]);
	});
});

describe('The consumer secret, with the API key only in the credential', () => {
	const SECRET_WEBHOOK_ID = '4e8b2f17-9c3a-4d5e-8f60-1a2b3c4d5e6f';
	const secretUrl = () => n8n.webhookUrl(`${SECRET_WEBHOOK_ID}/webhook`);
	const seen: string[] = [SECRET];
	let id: string;
	/** When the flood of wrong secrets last made the trigger read the secret: its budget of a read a minute is spent from then on. */
	let lastRead: number;
	/** When the service received each read of the secret (its request log), since the log was last cleared. */
	const secretReadTimes = () => emu.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/me/secret')).map((r) => r.at);
	const secretReads = () => secretReadTimes().length;
	const rotateAtTheService = async () => {
		const answer = await fetch(`${emu.url}/me/secret`, { method: 'POST', headers: { 'x-api-key': API_KEY } });
		const { secret } = (await answer.json()) as { secret: string };
		seen.push(secret);
		return secret;
	};

	it("activates and runs on the account's existing secret, which is unchanged afterwards", async () => {
		emu.reset();
		({ id } = await n8n.api.createWorkflow(triggerWorkflow(ALICE, SECRET_WEBHOOK_ID, 'Secret from the service')));
		await n8n.api.activate(id);
		expect(secretReads()).toBe(1);
		expect(emu.consumerSecret(API_KEY)).toBe(SECRET);
		const [report] = await emu.injectBlock(transfers(ALICE, 1));
		expect(report.status).toBe(200);
		expect(await n8n.api.waitForExecutions(id, 1)).toHaveLength(1);
		expect(emu.consumerSecret(API_KEY)).toBe(SECRET);
	});

	/**
	 * 300 posts, 20 at a time (it was 1,000: 72 s on CI, longer than the minute, so a second read came
	 * and the next test then waited a whole minute from it, 50 s more). The claim is that
	 * refusals do not read the secret again within the minute, however many come and however many at
	 * once: 20 in flight from the first post on is the race that could make several reads, and 300
	 * refusals after the first read each had the chance to make one. The minute does not need the
	 * flood to fill it: the next test rotates the secret within it, its refused deliveries carry on
	 * the minute, and there the read that ends it is checked to come no sooner than a minute after
	 * the flood's, and to be the only one in between.
	 */
	it('answers 300 wrong-secret posts with 401, one read of the secret a minute at most, no execution', async () => {
		emu.clearRequests();
		const wrong: Array<Record<string, string>> = [{}, { 'x-hook-consumer-secret': `${SECRET.slice(0, -1)}0` }, { authorization: 'Bearer nope' }];
		const payload = { chainhook: { uuid: emu.hooks(API_KEY)[0].uuid }, event: { apply: [], rollback: [] } };
		const FLOOD = 300;
		const floodStarted = Date.now();
		const statuses: number[] = [];
		let next = 0;
		await Promise.all(
			Array.from({ length: 20 }, async () => {
				while (next < FLOOD) {
					const headers = wrong[next++ % wrong.length];
					statuses.push((await n8n.request(secretUrl(), { method: 'POST', headers, body: payload })).status);
				}
			}),
		);
		const seconds = (Date.now() - floodStarted) / 1000;
		const reads = secretReadTimes();
		console.log(`${FLOOD} wrong-secret posts in ${seconds.toFixed(1)} s: ${reads.length} GET /me/secret`);
		expect(statuses.filter((status) => status === 401)).toHaveLength(FLOOD);
		// The promise, however long the flood takes on this machine (bench row 1c measures how fast n8n
		// refuses): the first wrong secret makes the trigger read the secret once, and no second read
		// reaches the service within a minute of the one before (the trigger counts the minute from the
		// answer, after the service took the request). A flood within a minute is answered with exactly
		// one read.
		expect(reads.length).toBeGreaterThanOrEqual(1);
		expect(reads.slice(1).map((at, i) => at - reads[i]).filter((gap) => gap < 60_000)).toEqual([]);
		lastRead = reads[reads.length - 1];
		await expectNoNewExecution(id, 1);
	});

	it('runs deliveries with a secret rotated at the service within 60 s, and refuses the old one from then on', async () => {
		// Rotated within the minute the flood's read spent: the new secret is refused until that minute is
		// over, so this test waits out the rest of the flood's minute, not a minute of its own (it did). Measured
		// here: when the trigger takes the new secret, from the flood's last read, which bounds it however
		// soon after a read the rotation comes (the worst case). The service interrupting the hook after the
		// refused deliveries meanwhile is the health check's business (see "Self-healing hooks").
		emu.configure({ interruptAfterFailures: 1000 });
		const rotated = await rotateAtTheService();
		let acceptedAt: number | undefined;
		let refused = 0;
		while (acceptedAt === undefined && Date.now() - lastRead < 75_000) {
			const [report] = await emu.injectBlock(transfers(ALICE, 1));
			if (report.status === 200) acceptedAt = Date.now();
			else {
				expect(report.status).toBe(401);
				refused++;
				await sleep(3000);
			}
		}
		console.log(`rotation picked up ${((acceptedAt! - lastRead) / 1000).toFixed(1)} s after the flood's last read of the secret, ${refused} deliveries with it refused before`);
		// A minute after the flood's last read, give or take one 3 s retry and a loaded machine's delays.
		expect(acceptedAt! - lastRead).toBeLessThan(68_000);
		// The flood's minute, carried on by the refusals of the new secret: they read nothing, and the one
		// read since the flood's, the one that found the new secret, came no sooner than a minute after it
		// (CI once saw 58.2 s, when the minute ran from the read's start and the flood's read was 1.8 s on
		// its way).
		expect(refused).toBeGreaterThan(0);
		const readsSince = secretReadTimes().filter((at) => at > lastRead);
		expect(readsSince).toHaveLength(1);
		expect(readsSince[0] - lastRead).toBeGreaterThanOrEqual(60_000);
		const executions = await n8n.api.waitForExecutions(id, 2);
		expect(executions).toHaveLength(2);

		const before = secretReads();
		const old = await n8n.request(secretUrl(), {
			method: 'POST',
			headers: { 'x-hook-consumer-secret': SECRET },
			body: emu.deliveries.at(-1)!.payload,
		});
		expect(old.status).toBe(401);
		const fresh = await n8n.request(secretUrl(), {
			method: 'POST',
			headers: { 'x-hook-consumer-secret': rotated },
			body: emu.deliveries.at(-1)!.payload,
		});
		expect(fresh.status).toBe(200);
		expect(await n8n.api.waitForExecutions(id, 3)).toHaveLength(3);
		expect(secretReads()).toBe(before);
		await n8n.api.deactivate(id);
		emu.configure({ interruptAfterFailures: 3 });
	});

	it('gives an account without a secret one on activation, and runs on it', async () => {
		emu.reset();
		emu.setConsumerSecret(null, API_KEY);
		await n8n.api.activate(id);
		const created = emu.consumerSecret(API_KEY);
		expect(created).toMatch(/^[0-9a-f]{64}$/);
		seen.push(created!);
		const [report] = await emu.injectBlock(transfers(ALICE, 1));
		expect(report.status).toBe(200);
		expect(await n8n.api.waitForExecutions(id, 4)).toHaveLength(4);
		await n8n.api.deactivate(id);
	});

	it('shows no secret in any execution, the workflow, or any log line of n8n', async () => {
		const everything = JSON.stringify([
			await n8n.api.executions({ includeData: true }),
			await n8n.api.getWorkflow(id),
			await n8n.api.public('GET', '/workflows'),
		]);
		const logs = logLines.join('\n');
		expect(logLines.length).toBeGreaterThan(100);
		expect(logs).toMatch(/Stacks Hooks Trigger: the consumer secret changed/);
		for (const secret of seen) {
			expect(everything).not.toContain(secret);
			expect(logs).not.toContain(secret);
		}
	});
});
