/**
 * The Stacks Hooks Trigger through n8n-core's real hook and webhook contexts:
 * its lifecycle against the emulator, and what it makes of deliveries.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { checkDefinition, checkDelivery, type DeliveryPayload, makeBlock } from '../../emulator';
import {
	ALICE,
	API_KEY,
	BOB,
	CONSUMER_SECRET,
	credentialsFor,
	credentialTypes,
	emu,
	activateTrigger,
	runTriggerHook,
	triggerParameters,
	type TriggerHookOptions,
	runWebhook,
	stxTransferFrom,
	triggerNode,
	useEmulator,
	WEBHOOK,
} from '../../support/engine/fixtures';

useEmulator();

const parameters = triggerParameters;

/** The trigger's webhook methods; `credentials` here are fields overriding the fixture account's. */
type Options = Omit<TriggerHookOptions, 'credentials'> & { credentials?: IDataObject };
const lifecycle = (method: 'checkExists' | 'create' | 'delete', staticData: IDataObject, opts: Options = {}) =>
	runTriggerHook(method, staticData, { ...opts, credentials: credentialsFor(emu, opts.credentials) });
const activate = (staticData: IDataObject, opts: Options = {}) =>
	activateTrigger(staticData, { ...opts, credentials: credentialsFor(emu, opts.credentials) });

describe('activation', () => {
	it('registers one enabled http_post hook to the webhook URL and remembers its UUID', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const hooks = emu.hooks(API_KEY);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].status.enabled).toBe(true);
		expect(hooks[0].definition).toMatchObject({
			name: 'n8n: Payments (wf42)',
			network: 'testnet',
			filters: { events: [{ type: 'stx_transfer', sender: ALICE }] },
			action: { type: 'http_post', url: WEBHOOK },
		});
		expect(staticData.production).toEqual({ hookId: hooks[0].uuid, webhookUrl: WEBHOOK });
		expect(checkDefinition(emu.requests.find((r) => r.method === 'POST')?.body).ok).toBe(true);
	});

	it('refuses a non-HTTPS webhook URL, saying to set WEBHOOK_URL, and registers nothing', async () => {
		const promise = lifecycle('create', {}, { webhookUrl: 'http://127.0.0.1:5678/webhook/abc/webhook' });
		await expect(promise).rejects.toThrow(/webhook URL \(http:\/\/127\.0\.0\.1:5678\/webhook\/abc\/webhook\) is not HTTPS/);
		await expect(promise).rejects.toMatchObject({ description: expect.stringMatching(/Set WEBHOOK_URL/) });
		expect(emu.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('deletes what it registered when enabling fails: no orphan', async () => {
		emu.failNext(1, 500, { match: { method: 'PATCH' } });
		await expect(lifecycle('create', {})).rejects.toThrow(/could not handle the request \(500\)/);
		expect(emu.hooks(API_KEY)).toHaveLength(0);
	});

	it('keeps the hook it has when nothing changed (restart, re-activation)', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const [first] = emu.hooks(API_KEY);
		expect(await lifecycle('checkExists', staticData)).toBe(true);
		expect(emu.hooks(API_KEY).map((hook) => hook.uuid)).toEqual([first.uuid]);
	});

	it('re-enables its hook when the service disabled it', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const [hook] = emu.hooks(API_KEY);
		await fetch(`${emu.url}/me/${hook.uuid}/enabled`, {
			method: 'PATCH',
			headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
			body: JSON.stringify({ enabled: false }),
		});
		expect(await lifecycle('checkExists', staticData)).toBe(true);
		expect(emu.hooks(API_KEY)[0].status.enabled).toBe(true);
	});

	it('replaces its hook when the events change, leaving exactly one with the new events', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const changed = { parameters: parameters({ events: stxTransferFrom(BOB) }) };
		await activate(staticData, changed);
		const hooks = emu.hooks(API_KEY);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].definition.filters.events).toEqual([{ type: 'stx_transfer', sender: BOB }]);
		expect(staticData.production).toMatchObject({ hookId: hooks[0].uuid });
	});

	it('registers anew when its hook was deleted at the service', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const [gone] = emu.hooks(API_KEY);
		await fetch(`${emu.url}/me/${gone.uuid}`, { method: 'DELETE', headers: { 'x-api-key': API_KEY } });
		expect(await lifecycle('checkExists', staticData)).toBe(false);
		expect(staticData.production).toBeUndefined();
		await lifecycle('create', staticData);
		expect(emu.hooks(API_KEY)).toHaveLength(1);
	});

	it('adopts the hook it registered for this URL when its static data was lost, instead of duplicating it', async () => {
		await activate({});
		const [mine] = emu.hooks(API_KEY);
		const fresh: IDataObject = {};
		expect(await lifecycle('checkExists', fresh)).toBe(true);
		expect(fresh.production).toEqual({ hookId: mine.uuid, webhookUrl: WEBHOOK });
		expect(emu.hooks(API_KEY)).toHaveLength(1);
	});

	it('replaces a forgotten hook for this URL whose parameters changed, and clears duplicates', async () => {
		// Two hooks for this node's URL, left by an earlier life whose static data is gone.
		for (const name of ['n8n: Payments (wf42)', 'older copy']) {
			const answer = await fetch(`${emu.url}/me/`, {
				method: 'POST',
				headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
				body: JSON.stringify({
					name,
					version: '1',
					chain: 'stacks',
					network: 'testnet',
					filters: { events: [{ type: 'stx_transfer', sender: BOB }] },
					action: { type: 'http_post', url: WEBHOOK },
				}),
			});
			expect(answer.status).toBe(200);
		}
		const staticData: IDataObject = {};
		await activate(staticData);
		const hooks = emu.hooks(API_KEY);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].definition.filters.events).toEqual([{ type: 'stx_transfer', sender: ALICE }]);
		expect(staticData.production).toMatchObject({ hookId: hooks[0].uuid });
	});

	it('never touches a hook it did not register (another URL), not even on deactivation', async () => {
		const other = 'https://127.0.0.1:9/webhook/someone-else/webhook';
		await activate({}, { webhookUrl: other });
		const [theirs] = emu.hooks(API_KEY);
		const staticData: IDataObject = {};
		await activate(staticData);
		expect(emu.hooks(API_KEY).map((hook) => hook.uuid)).toEqual([theirs.uuid, expect.any(String)]);
		await lifecycle('delete', staticData);
		expect(emu.hooks(API_KEY)).toEqual([expect.objectContaining({ uuid: theirs.uuid, status: expect.objectContaining({ enabled: true }) })]);
	});

	it('keeps test listening and activation apart, each with its own hook', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const testUrl = WEBHOOK.replace('/webhook/', '/webhook-test/');
		await activate(staticData, { mode: 'manual', webhookUrl: testUrl });
		expect(emu.hooks(API_KEY)).toHaveLength(2);
		expect(emu.hooks(API_KEY).map((hook) => hook.definition.name)).toEqual(['n8n: Payments (wf42)', 'n8n: Payments (wf42) [test]']);
		await lifecycle('delete', staticData, { mode: 'manual', webhookUrl: testUrl });
		const left = emu.hooks(API_KEY);
		expect(left).toHaveLength(1);
		expect(left[0].definition.action.url).toBe(WEBHOOK);
		expect(staticData.test).toBeUndefined();
		expect(staticData.production).toMatchObject({ hookId: left[0].uuid });
	});
});

describe('Sample Block, while listening for a test event', () => {
	const testUrl = WEBHOOK.replace('/webhook/', '/webhook-test/');
	const listening = (sampleBlock: unknown, staticData: IDataObject = {}) =>
		activate(staticData, { mode: 'manual', webhookUrl: testUrl, parameters: parameters({ sampleBlock } as INodeParameters) });
	const evaluations = () => emu.requests.filter((request) => request.path.endsWith('/evaluate')).map((request) => request.body);
	const block = makeBlock({ height: 77, transactions: [{ kind: 'coinbase', sender: BOB }] });

	it('refuses a value that is neither a block height nor an index block hash, before registering anything', async () => {
		await expect(listening('last week')).rejects.toThrow(`'Sample Block' must be a block height or an index block hash, not "last week"`);
		expect(emu.hooks(API_KEY)).toEqual([]);
		expect(evaluations()).toEqual([]);
	});

	it('asks the service to evaluate the test hook against the block, by height or by index block hash', async () => {
		await emu.injectBlock(block);
		// Nothing in the block is ALICE's transfer: the service evaluates it and has nothing to deliver.
		await expect(listening(' 77 ')).rejects.toThrow("No event in block 77 matches this trigger's filters");
		const hash = block.block_identifier.hash.slice(2).toUpperCase();
		await expect(listening(hash)).rejects.toThrow(`No event in the block with index block hash ${block.block_identifier.hash} matches`);
		expect(evaluations()).toEqual([{ block_height: 77 }, { index_block_hash: block.block_identifier.hash }]);
	});

	it('says when the service does not evaluate the block (e.g. one that does not exist)', async () => {
		await expect(listening(999_999)).rejects.toThrow('The service did not evaluate block 999999 within 20 seconds');
	}, 40_000);

	it('is never read on activation', async () => {
		await activate({}, { parameters: parameters({ sampleBlock: 'not a block' } as INodeParameters) });
		expect(emu.hooks(API_KEY)).toHaveLength(1);
		expect(evaluations()).toEqual([]);
	});
});

describe('deactivation', () => {
	it('deletes the hook by its UUID and forgets it', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		expect(await lifecycle('delete', staticData)).toBe(true);
		expect(emu.hooks(API_KEY)).toHaveLength(0);
		expect(staticData.production).toBeUndefined();
	});

	it('counts a hook already gone (404) as deleted', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const [hook] = emu.hooks(API_KEY);
		await fetch(`${emu.url}/me/${hook.uuid}`, { method: 'DELETE', headers: { 'x-api-key': API_KEY } });
		expect(await lifecycle('delete', staticData)).toBe(true);
		expect(staticData.production).toBeUndefined();
	});

	it('without a kept UUID (test listening), deletes the hooks posting to its own URL and no others', async () => {
		const testUrl = WEBHOOK.replace('/webhook/', '/webhook-test/');
		await activate({}, { webhookUrl: 'https://127.0.0.1:9/webhook/someone-else/webhook' });
		await activate({}, { mode: 'manual', webhookUrl: testUrl });
		expect(emu.hooks(API_KEY)).toHaveLength(2);
		expect(await lifecycle('delete', {}, { mode: 'manual', webhookUrl: testUrl })).toBe(true);
		expect(emu.hooks(API_KEY).map((hook) => hook.definition.action.url)).toEqual([
			'https://127.0.0.1:9/webhook/someone-else/webhook',
		]);
	});

	it('raises other errors and keeps the UUID so a retry can still delete it', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		emu.failNext(1, 500);
		await expect(lifecycle('delete', staticData)).rejects.toThrow(/could not handle the request \(500\)/);
		expect(staticData.production).toBeDefined();
		expect(emu.hooks(API_KEY)).toHaveLength(1);
	});
});

describe('deliveries', () => {
	const HOOK_UUID = '9a7c1e52-3f0b-4d8e-a1c2-5b6d7e8f9a0b';

	function payload(direction: 'apply' | 'rollback' = 'apply', transfers = 2): DeliveryPayload {
		const block = makeBlock({
			height: 100,
			transactions: Array.from({ length: transfers }, (_, i) => ({
				kind: 'stx_transfer' as const,
				sender: ALICE,
				recipient: BOB,
				amount: 1000 + i,
			})),
		});
		return {
			chainhook: { uuid: HOOK_UUID, name: 'payments' },
			event: {
				chain: 'stacks',
				network: 'testnet',
				apply: direction === 'apply' ? [block] : [],
				rollback: direction === 'rollback' ? [block] : [],
			},
		} as DeliveryPayload;
	}

	// What activation keeps (the digest of the account's secret), as n8n hands it to every delivery.
	let activated: IDataObject;
	beforeAll(async () => {
		activated = {};
		await activate(activated);
	});

	const deliver = (headers: Record<string, string>, body: unknown, overrides: INodeParameters = {}) =>
		runWebhook({
			nodeType: triggerNode,
			credentialTypes,
			credentials: credentialsFor(emu),
			parameters: parameters(overrides),
			headers: { 'content-type': 'application/json', ...headers },
			body,
			staticData: structuredClone(activated),
		});

	it('builds its test payloads in the shape the service publishes', () => {
		expect(checkDelivery(payload())).toEqual({ ok: true, errors: [] });
	});

	it.each([
		['no secret', {}],
		['a wrong secret', { 'x-hook-consumer-secret': 'f'.repeat(CONSUMER_SECRET.length) }],
		['a secret of another length', { 'x-hook-consumer-secret': CONSUMER_SECRET.slice(1) }],
		['a wrong bearer token', { authorization: 'Bearer nope' }],
	])('answers 401 and starts nothing for %s', async (_, headers) => {
		const result = await deliver(headers, payload());
		expect(result.status).toBe(401);
		expect(result.response.workflowData).toBeUndefined();
	});

	it.each([
		['x-hook-consumer-secret', { 'x-hook-consumer-secret': CONSUMER_SECRET }],
		['x-chainhook-consumer-secret', { 'x-chainhook-consumer-secret': CONSUMER_SECRET }],
		['Authorization: Bearer', { authorization: `Bearer ${CONSUMER_SECRET}` }],
	])('accepts the right secret in %s', async (_, headers) => {
		const result = await deliver(headers, payload());
		expect(result.status).toBe(200);
		expect(result.sentBody).toEqual({ received: true, items: 2 });
		expect(result.response.workflowData?.[0]).toHaveLength(2);
	});

	it('answers 400 to a body that is not a delivery and starts nothing', async () => {
		const result = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, { hello: 'world' });
		expect(result.status).toBe(400);
		expect(result.sentBody).toMatchObject({ error: 'Bad Request', details: expect.stringMatching(/^Not a hook delivery: chainhook/) });
		expect(result.response.workflowData).toBeUndefined();
	});

	it('outputs one item per transaction, carrying the hook, network, block and transaction', async () => {
		const body = payload();
		const result = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, body);
		const items = result.response.workflowData![0].map((item) => item.json);
		const [block] = body.event.apply;
		expect(items).toHaveLength(2);
		items.forEach((item, i) => {
			const tx = block.transactions[i];
			expect(item).toMatchObject({
				direction: 'apply',
				hookUuid: HOOK_UUID,
				hookName: 'payments',
				network: 'testnet',
				blockHeight: 100,
				blockHash: block.block_identifier.hash,
				txHash: tx.transaction_identifier.hash,
				txType: tx.metadata.type,
				txStatus: 'success',
				sender: ALICE,
				operations: tx.operations,
			});
		});
		expect(result.sentBody).toEqual({ received: true, items: 2 });
	});

	it('outputs one flat item per event its filters select, failed transactions marked, prints decoded', async () => {
		const MARKET = `${BOB}.market`;
		const GOLD = `${BOB}.gold::gold`;
		const block = makeBlock({
			height: 101,
			transactions: [
				{ kind: 'ft_transfer', sender: ALICE, recipient: BOB, assetIdentifier: GOLD, amount: '250000000', decimals: 8 },
				{ kind: 'contract_log', sender: ALICE, contractIdentifier: MARKET, value: '(tuple (event "listed") (item u42) (price u1500000))' },
				{ kind: 'contract_log', sender: ALICE, contractIdentifier: `${ALICE}.other`, value: '(tuple (event "noise"))' },
				{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 5, status: 'abort_by_response' },
			],
		});
		const body = { ...payload(), event: { ...payload().event, apply: [block] } };
		const events = { filter: [{ type: 'contract_log', contractIdentifier: MARKET }, { type: 'ft_transfer', assetIdentifier: GOLD }, { type: 'stx_transfer' }] };
		const result = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, body, { output: 'event', events });
		const items = result.response.workflowData![0].map((item) => item.json);
		const [ft, print, , failed] = block.transactions;
		const common = { direction: 'apply', hookUuid: HOOK_UUID, network: 'testnet', blockHeight: 101, blockHash: block.block_identifier.hash };
		expect(items).toEqual([
			expect.objectContaining({
				...common,
				txHash: ft.transaction_identifier.hash,
				txSucceeded: true,
				eventType: 'ft_transfer',
				assetIdentifier: GOLD,
				sender: ALICE,
				recipient: BOB,
				amount: '250000000',
				decimals: 8,
				operationIndex: 2, // after the fee and the call
				value: null,
			}),
			expect.objectContaining({
				...common,
				txHash: print.transaction_identifier.hash,
				eventType: 'contract_log',
				contractIdentifier: MARKET,
				sender: ALICE,
				topic: 'print',
				value: { event: 'listed', item: '42', price: '1500000' },
				valueRepr: '(tuple (event "listed") (item u42) (price u1500000))',
				amount: null,
			}),
			expect.objectContaining({ ...common, txHash: failed.transaction_identifier.hash, eventType: 'stx_transfer', txStatus: 'abort_by_response', txSucceeded: false, amount: '5' }),
		]);
		expect(result.sentBody).toEqual({ received: true, items: 3 });
	});

	it('outputs one item per block, or the whole delivery as one item', async () => {
		const body = payload('apply', 3);
		const perBlock = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, body, { output: 'block' });
		expect(perBlock.response.workflowData![0].map((item) => item.json)).toEqual([
			expect.objectContaining({ direction: 'apply', blockHeight: 100, transactionCount: 3, hookUuid: HOOK_UUID }),
		]);
		const whole = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, body, { output: 'delivery' });
		const [item] = whole.response.workflowData![0];
		expect(item.json).toMatchObject({ hookUuid: HOOK_UUID, network: 'testnet', blockHeight: 100, event: body.event });
	});

	it('marks rolled-back blocks, or leaves them out and starts nothing when told to ignore them', async () => {
		const undone = payload('rollback');
		const marked = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, undone);
		expect(marked.response.workflowData![0].map((item) => item.json.direction)).toEqual(['rollback', 'rollback']);

		const ignored = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, undone, { rollbacks: 'ignore' });
		expect(ignored.response.workflowData).toBeUndefined();
		expect(ignored.status).toBe(200);
		expect(ignored.sentBody).toEqual({ received: true, items: 0 });
	});

	it('evaluates Output and Rollbacks given as expressions, for each delivery', async () => {
		const undone = payload('rollback');
		const ignored = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, undone, { rollbacks: '={{ "ign" + "ore" }}' });
		expect(ignored.sentBody).toEqual({ received: true, items: 0 });
		const perBlock = await deliver({ 'x-hook-consumer-secret': CONSUMER_SECRET }, payload('apply', 3), { output: '={{ ["block"][0] }}' });
		expect(perBlock.response.workflowData![0].map((item) => item.json)).toEqual([expect.objectContaining({ direction: 'apply', blockHeight: 100, transactionCount: 3 })]);
	});
});
