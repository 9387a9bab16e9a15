/**
 * The Stacks Hooks action node, every operation, run through n8n's real
 * execution engine (n8n-core WorkflowExecute) against the emulator over HTTP.
 */
import {
	BulkEnableChainhooksRequestSchema,
	EnableChainhookRequestSchema,
	EvaluateChainhookRequestSchema,
	UpdateChainhookRequestSchema,
} from '@hirosystems/chainhooks-client/schemas';
import { Value } from '@sinclair/typebox/value';
import type { IDataObject } from 'n8n-workflow';

import { checkDefinition } from '../../emulator';
import { testCredential } from '../../support/engine/harness';
import {
	ALICE,
	API_KEY,
	BOB,
	CONSUMER_SECRET,
	credentialTypes,
	emu,
	hookById,
	listSearch,
	registerThroughNode,
	runAction,
	stxTransferFrom,
	useEmulator,
	WEBHOOK,
} from '../../support/engine/fixtures';

useEmulator();
beforeEach(() => {
	emu.configure({ rateLimit: { limit: 1000, windowMs: 60_000 }, retryAfterSeconds: undefined });
});

const apiRequests = (method?: string) => emu.requests.filter((request) => !method || request.method === method);

describe('hook: create (Register)', () => {
	it('registers the definition built from the fields, disabled and new, and outputs the hook', async () => {
		const { items, error } = await runAction(emu, {
			resource: 'hook',
			operation: 'create',
			name: 'Treasury outflows',
			webhookUrl: WEBHOOK,
			events: {
				filter: [
					{ type: 'stx_transfer', sender: ALICE, receiver: '' },
					{ type: 'contract_call', contractIdentifier: `${BOB}.pool`, functionName: 'stake' },
					{ type: 'nft_transfer', assetIdentifier: `${BOB}.art::piece`, value: '7' },
				],
			},
			options: { decodeClarityValues: true, expireAfterOccurrences: 5 },
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const hook = items[0].json as IDataObject & { status: IDataObject; definition: IDataObject };
		expect(hook.uuid).toMatch(/^[0-9a-f-]{36}$/);
		expect(hook.status).toMatchObject({ status: 'new', enabled: false });

		const [stored] = emu.hooks(API_KEY);
		expect(stored.uuid).toBe(hook.uuid);
		expect(stored.definition).toEqual({
			name: 'Treasury outflows',
			version: '1',
			chain: 'stacks',
			network: 'testnet',
			filters: {
				events: [
					{ type: 'stx_transfer', sender: ALICE },
					{ type: 'contract_call', contract_identifier: `${BOB}.pool`, function_name: 'stake' },
					{ type: 'nft_transfer', asset_identifier: `${BOB}.art::piece`, value: 7 },
				],
			},
			options: { decode_clarity_values: true, expire_after_occurrences: 5 },
			action: { type: 'http_post', url: WEBHOOK },
		});
		const [sent] = apiRequests('POST');
		expect(sent.headers['x-api-key']).toBe(API_KEY);
		expect(checkDefinition(sent.body)).toEqual({ ok: true, errors: [] });
	});

	it('registers a pasted JSON definition, filling version, chain and the credential\'s network', async () => {
		const { items, error } = await runAction(emu, {
			resource: 'hook',
			operation: 'create',
			specifyBy: 'json',
			definitionJson: JSON.stringify({
				name: 'from json',
				filters: { events: [{ type: 'coinbase' }, { type: 'tenure_change', cause: 'extended' }] },
				action: { type: 'http_post', url: WEBHOOK },
			}),
		});
		expect(error).toBeUndefined();
		expect((items[0].json.definition as IDataObject).network).toBe('testnet');
		expect(checkDefinition(apiRequests('POST')[0].body).ok).toBe(true);
	});

	it('offers every event type of the service and validates each one against the published schema', async () => {
		const events = {
			filter: [
				{ type: 'stx_transfer', sender: ALICE, receiver: BOB },
				{ type: 'stx_mint', receiver: BOB },
				{ type: 'stx_burn', sender: ALICE },
				{ type: 'stx_event' },
				{ type: 'ft_transfer', assetIdentifier: `${BOB}.tok::coin`, sender: ALICE, receiver: BOB },
				{ type: 'ft_mint', assetIdentifier: `${BOB}.tok::coin`, receiver: BOB },
				{ type: 'ft_burn', assetIdentifier: `${BOB}.tok::coin`, sender: ALICE },
				{ type: 'ft_event', assetIdentifier: `${BOB}.tok::coin` },
				{ type: 'nft_transfer', assetIdentifier: `${BOB}.art::piece`, value: '1', sender: ALICE, receiver: BOB },
				{ type: 'nft_mint', assetIdentifier: `${BOB}.art::piece`, value: '2', receiver: BOB },
				{ type: 'nft_burn', assetIdentifier: `${BOB}.art::piece`, value: '3', sender: ALICE },
				{ type: 'nft_event', assetIdentifier: `${BOB}.art::piece` },
				{ type: 'contract_deploy', contractIdentifier: `${BOB}.pool`, sender: BOB },
				{ type: 'contract_call', contractIdentifier: `${BOB}.pool`, functionName: 'stake', sender: ALICE },
				{ type: 'contract_log', contractIdentifier: `${BOB}.pool`, sender: ALICE },
				{ type: 'coinbase' },
				{ type: 'tenure_change', cause: 'block_found' },
				{ type: 'balance_change', principal: ALICE },
			],
		};
		const { error } = await runAction(emu, {
			resource: 'hook',
			operation: 'create',
			name: 'all types',
			webhookUrl: WEBHOOK,
			events,
		});
		expect(error).toBeUndefined();
		const body = apiRequests('POST')[0].body as { filters: { events: IDataObject[] } };
		expect(body.filters.events.map((event) => event.type)).toEqual(events.filter.map((event) => event.type));
		expect(checkDefinition(body)).toEqual({ ok: true, errors: [] });
	});

	it('refuses an http:// webhook URL before sending anything', async () => {
		const { error } = await runAction(emu, {
			resource: 'hook',
			operation: 'create',
			name: 'insecure',
			webhookUrl: 'http://n8n.example.com/webhook/x',
			events: stxTransferFrom(ALICE),
		});
		expect(error?.message).toMatch(/action\.url must use https/);
		expect(emu.requests).toHaveLength(0);
	});

	it('refuses a malformed address, naming the field, before sending anything', async () => {
		const { error } = await runAction(emu, {
			resource: 'hook',
			operation: 'create',
			name: 'typo',
			webhookUrl: WEBHOOK,
			events: stxTransferFrom('not-an-address'),
		});
		expect(error?.message).toMatch(/filters\.events\.0\.sender must be a Stacks address/);
		expect(emu.requests).toHaveLength(0);
	});

	it('says filters.events is required when a pasted definition has no events, before sending', async () => {
		const { error } = await runAction(emu, {
			resource: 'hook',
			operation: 'create',
			specifyBy: 'json',
			definitionJson: JSON.stringify({ name: 'no events', action: { type: 'http_post', url: WEBHOOK } }),
		});
		expect(error?.message).toContain('filters.events is required');
		expect(emu.requests).toHaveLength(0);
	});

	it("shows the service's own 400 details when the service refuses the hook", async () => {
		emu.configure({ maxHooksPerAccount: 1 });
		try {
			await registerThroughNode(emu, 'first');
			const { error } = await runAction(emu, {
				resource: 'hook',
				operation: 'create',
				name: 'second',
				webhookUrl: WEBHOOK,
				events: stxTransferFrom(ALICE),
			});
			expect(error?.message).toMatch(/refused the request \(400\): Bad Request: Hook limit reached/);
		} finally {
			emu.configure({ maxHooksPerAccount: 1000 });
		}
	});

	it('refuses a pasted definition for the other network', async () => {
		const { error } = await runAction(emu, {
			resource: 'hook',
			operation: 'create',
			specifyBy: 'json',
			definitionJson: JSON.stringify({
				name: 'mainnet one',
				network: 'mainnet',
				filters: { events: [{ type: 'coinbase' }] },
				action: { type: 'http_post', url: WEBHOOK },
			}),
		});
		expect(error?.message).toMatch(/for mainnet, but the credential is for testnet/);
		expect(emu.requests).toHaveLength(0);
	});
});

describe('hook: get, delete, enable, disable, update, evaluate', () => {
	it('gets a hook by UUID', async () => {
		const created = await registerThroughNode(emu, 'to get');
		const { items, error } = await runAction(emu, { resource: 'hook', operation: 'get', hookId: hookById(created.uuid as string) });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ uuid: created.uuid, definition: { name: 'to get' } });
	});

	it('names the hook in a 404', async () => {
		const unknown = '0b9d6f1e-8f7a-4a8e-9d2c-5e4f3a2b1c0d';
		const { error } = await runAction(emu, { resource: 'hook', operation: 'get', hookId: hookById(unknown) });
		expect(error?.message).toBe(`Hook ${unknown} was not found (404)`);
	});

	it('refuses an ID that is not a UUID without sending a request', async () => {
		// Typed in by hand: n8n itself refuses the workflow, from the locator's validation.
		await expect(
			runAction(emu, { resource: 'hook', operation: 'delete', hookId: hookById('hook-42') }),
		).rejects.toThrow(/Not a hook UUID/);
		// Computed by an expression: the node refuses it.
		const computed = await runAction(emu, {
			resource: 'hook',
			operation: 'delete',
			hookId: hookById('={{ "hook-" + 42 }}'),
		});
		expect(computed.error?.message).toBe('"hook-42" is not a hook ID: hook IDs are UUIDs');
		expect(emu.requests).toHaveLength(0);
	});

	it('deletes a hook and says so', async () => {
		const created = await registerThroughNode(emu, 'to delete');
		const { items, error } = await runAction(emu, { resource: 'hook', operation: 'delete', hookId: hookById(created.uuid as string) });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([{ uuid: created.uuid, deleted: true }]);
		expect(emu.hooks(API_KEY)).toHaveLength(0);
	});

	it('enables and disables a hook', async () => {
		const created = await registerThroughNode(emu, 'switch');
		const enable = await runAction(emu, { resource: 'hook', operation: 'enable', hookId: hookById(created.uuid as string) });
		expect(enable.items.map((item) => item.json)).toEqual([{ uuid: created.uuid, enabled: true }]);
		expect(emu.hooks(API_KEY)[0].status).toMatchObject({ enabled: true, status: 'streaming' });

		const disable = await runAction(emu, { resource: 'hook', operation: 'disable', hookId: hookById(created.uuid as string) });
		expect(disable.items.map((item) => item.json)).toEqual([{ uuid: created.uuid, enabled: false }]);
		expect(emu.hooks(API_KEY)[0].status.enabled).toBe(false);
		for (const request of apiRequests('PATCH')) {
			expect(Value.Check(EnableChainhookRequestSchema, request.body)).toBe(true);
		}
	});

	it('updates parts of a definition and outputs the hook as it now is', async () => {
		const created = await registerThroughNode(emu, 'old name');
		const { items, error } = await runAction(emu, {
			resource: 'hook',
			operation: 'update',
			hookId: hookById(created.uuid as string),
			updateFields: { name: 'new name', events: { filter: [{ type: 'stx_transfer', sender: BOB }] } },
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			uuid: created.uuid,
			definition: { name: 'new name', filters: { events: [{ type: 'stx_transfer', sender: BOB }] }, action: { url: WEBHOOK } },
		});
		const patch = apiRequests('PATCH')[0];
		expect(patch.body).toEqual({ name: 'new name', filters: { events: [{ type: 'stx_transfer', sender: BOB }] } });
		expect(Value.Check(UpdateChainhookRequestSchema, patch.body)).toBe(true);
	});

	it('refuses an update with nothing to change', async () => {
		const created = await registerThroughNode(emu, 'unchanged');
		emu.clearRequests();
		const { error } = await runAction(emu, {
			resource: 'hook',
			operation: 'update',
			hookId: hookById(created.uuid as string),
			updateFields: {},
		});
		expect(error?.message).toMatch(/choose at least one field to update/);
		expect(emu.requests).toHaveLength(0);
	});

	it('evaluates a hook against a block height, by height or by index block hash', async () => {
		const created = await registerThroughNode(emu, 'evaluate me');
		// A stored block the hook does not match (its filter is transfers from ALICE): evaluated, nothing delivered.
		await emu.injectBlock({ height: 1234, transactions: [{ kind: 'stx_transfer', sender: BOB, recipient: ALICE, amount: 5 }] });
		const byHeight = await runAction(emu, {
			resource: 'hook',
			operation: 'evaluate',
			hookId: hookById(created.uuid as string),
			blockHeight: 1234,
		});
		expect(byHeight.error).toBeUndefined();
		expect(byHeight.items[0].json).toEqual({ uuid: created.uuid, evaluated: true, block_height: 1234 });

		const byHash = await runAction(emu, {
			resource: 'hook',
			operation: 'evaluate',
			hookId: hookById(created.uuid as string),
			blockHeight: 0,
			options: { indexBlockHash: '0xabc123' },
		});
		expect(byHash.items[0].json).toEqual({ uuid: created.uuid, evaluated: true, index_block_hash: '0xabc123' });
		await emu.settled();
		expect(emu.hooks(API_KEY)[0].status).toMatchObject({ evaluated_block_count: 1, last_evaluated_block_height: 1234 });
		expect(emu.deliveries).toHaveLength(0);
		for (const request of apiRequests('POST').filter((r) => r.path.endsWith('/evaluate'))) {
			expect(Value.Check(EvaluateChainhookRequestSchema, request.body)).toBe(true);
		}
	});
});

describe('hook: getAll (Get Many)', () => {
	async function seed(count: number) {
		const { error } = await runAction(emu, {
			resource: 'hook',
			operation: 'create',
			name: '={{ "hook " + $json.n }}',
			webhookUrl: WEBHOOK,
			events: stxTransferFrom(ALICE),
		}, { items: Array.from({ length: count }, (_, n) => ({ n })) });
		expect(error).toBeUndefined();
		emu.clearRequests();
	}

	it('returns all 150 hooks in 3 pages of at most 60, in order', async () => {
		await seed(150);
		const { items, error } = await runAction(emu, { resource: 'hook', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(150);
		expect(items.map((item) => (item.json.definition as IDataObject).name)).toEqual(
			Array.from({ length: 150 }, (_, n) => `hook ${n}`),
		);
		const pages = apiRequests('GET').map((request) => request.query);
		expect(pages).toHaveLength(3);
		expect(pages).toEqual(
			expect.arrayContaining([
				{ limit: '60', offset: '0' },
				{ limit: '60', offset: '60' },
				{ limit: '30', offset: '120' },
			]),
		);
	});

	it('honours limit and offset', async () => {
		await seed(8);
		const { items } = await runAction(emu, {
			resource: 'hook',
			operation: 'getAll',
			returnAll: false,
			limit: 3,
			options: { offset: 2 },
		});
		expect(items.map((item) => (item.json.definition as IDataObject).name)).toEqual(['hook 2', 'hook 3', 'hook 4']);
		expect(apiRequests('GET').map((request) => request.query)).toEqual([{ limit: '3', offset: '2' }]);
	});

	it('finds hooks by name for the Hook picker', async () => {
		await seed(3);
		await registerThroughNode(emu, 'Treasury watcher');
		const result = await listSearch(emu, 'treasury');
		expect(result.results).toEqual([
			{ name: 'Treasury watcher (disabled, new)', value: emu.hooks(API_KEY)[3].uuid },
		]);
	});
});

describe('hook: enableMany, disableMany', () => {
	it('switches every hook matching the filters and lists them', async () => {
		const a = await registerThroughNode(emu, 'a');
		const b = await registerThroughNode(emu, 'b');
		const { items, error } = await runAction(emu, {
			resource: 'hook',
			operation: 'enableMany',
			filters: { webhookUrl: WEBHOOK, statuses: ['new'] },
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({ enabled: true, updated_uuids: [a.uuid, b.uuid], updated_count: 2 });
		expect(emu.hooks(API_KEY).every((hook) => hook.status.enabled)).toBe(true);

		const off = await runAction(emu, { resource: 'hook', operation: 'disableMany', filters: { uuids: `${a.uuid}, ${a.uuid}` } });
		expect(off.items[0].json).toEqual({ enabled: false, updated_uuids: [a.uuid], updated_count: 1 });
		for (const request of apiRequests('PATCH')) {
			expect(Value.Check(BulkEnableChainhooksRequestSchema, request.body)).toBe(true);
		}
	});

	it('refuses to send with no filter at all', async () => {
		const { error } = await runAction(emu, { resource: 'hook', operation: 'disableMany', filters: {} });
		expect(error?.message).toMatch(/set at least one filter/);
		expect(emu.requests).toHaveLength(0);
	});
});

describe('secret: get, rotate, delete', () => {
	afterEach(() => emu.setConsumerSecret(CONSUMER_SECRET, API_KEY));

	it('gets the current consumer secret without changing it, and null when the account has none', async () => {
		const { items, error } = await runAction(emu, { resource: 'secret', operation: 'get' });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([{ secret: CONSUMER_SECRET }]);
		expect(emu.consumerSecret(API_KEY)).toBe(CONSUMER_SECRET);
		expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /hooks/v1/me/secret']);

		emu.setConsumerSecret(null, API_KEY);
		const none = await runAction(emu, { resource: 'secret', operation: 'get' });
		expect(none.items.map((item) => item.json)).toEqual([{ secret: null }]);
	});

	it('rotates: returns the new consumer secret, which the service then uses, and says what it does to deliveries', async () => {
		const { items, error, hints } = await runAction(emu, { resource: 'secret', operation: 'rotate' });
		expect(error).toBeUndefined();
		const { secret } = items[0].json as { secret: string };
		expect(secret).toMatch(/^[0-9a-f]{64}$/);
		expect(secret).not.toBe(CONSUMER_SECRET);
		expect(emu.consumerSecret(API_KEY)).toBe(secret);
		expect(hints.map((hint) => hint.message)).toEqual([expect.stringMatching(/every hook of the account at once/)]);
	});

	it('deletes the consumer secret, says what it does to deliveries, and Get then answers null', async () => {
		const { items, error, hints } = await runAction(emu, { resource: 'secret', operation: 'delete' });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([{ deleted: true }]);
		expect(emu.consumerSecret(API_KEY)).toBeNull();
		expect(hints.map((hint) => hint.message)).toEqual([expect.stringMatching(/deliveries without one/)]);
		const after = await runAction(emu, { resource: 'secret', operation: 'get' });
		expect(after.items[0].json).toEqual({ secret: null });
	});

	it('names no secret in an error', async () => {
		emu.failNext(1, 500, { match: { method: 'GET' } });
		const { error } = await runAction(emu, { resource: 'secret', operation: 'get' });
		expect(error?.message).toMatch(/500/);
		expect(JSON.stringify(error)).not.toContain(CONSUMER_SECRET);
	});
});

describe('service: Get API Status', () => {
	it("outputs the service's status and version, from its base address", async () => {
		const { items, error } = await runAction(emu, { resource: 'service', operation: 'getStatus' });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([{ status: 'ready', server_version: 'stacks-hooks-emulator' }]);
		expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /hooks/v1']);
	});
});

describe('errors, retries and items', () => {
	it('reports a wrong API key as a clear 401 without showing the key', async () => {
		const { error } = await runAction(emu, { resource: 'hook', operation: 'getAll', returnAll: true }, {
			credentials: { apiKey: 'wrong-key-123' },
		});
		expect(error?.message).toMatch(/rejected the API key \(401/);
		expect(JSON.stringify(error)).not.toContain('wrong-key-123');
		expect(String((error as { description?: string }).description)).toMatch(/Check the API key/);
	});

	it('waits out a 429 storm as retry-after says, then succeeds', async () => {
		emu.failNext(2, 429, { retryAfter: '1' });
		const started = Date.now();
		const { items, error } = await runAction(emu, { resource: 'hook', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(0);
		expect(apiRequests('GET')).toHaveLength(3);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
	});

	it('gives up after 3 attempts with a clear rate-limit error', async () => {
		emu.failNext(5, 429, { retryAfter: '1' });
		const { error } = await runAction(emu, { resource: 'hook', operation: 'getAll', returnAll: true });
		expect(error?.message).toBe('Rate limit exceeded: the service still answered 429 after 3 attempt(s)');
		expect(apiRequests('GET')).toHaveLength(3);
	});

	it('backs off 2^i seconds when a 429 carries no retry-after', async () => {
		emu.failNext(1, 429, { retryAfter: null });
		const started = Date.now();
		const { error } = await runAction(emu, { resource: 'hook', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
	});

	it('with continueOnFail, turns a failing item into an error item and still runs the next ones', async () => {
		const created = await registerThroughNode(emu, 'kept');
		const missing = '0b9d6f1e-8f7a-4a8e-9d2c-5e4f3a2b1c0d';
		const { items, error } = await runAction(
			emu,
			{ resource: 'hook', operation: 'get', hookId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			{ items: [{ id: missing }, { id: 'nonsense' }, { id: created.uuid as string }], continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[0].json.error).toBe(`Hook ${missing} was not found (404)`);
		expect(items[1].json.error).toMatch(/not a hook ID/);
		expect(items[2].json).toMatchObject({ uuid: created.uuid });
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('reports an answer that is not what the service promises as a clear error', async () => {
		emu.failNext(1, 200, { body: { unexpected: true } });
		const { error } = await runAction(emu, { resource: 'hook', operation: 'getAll', returnAll: true });
		expect(error?.message).toMatch(/sent an answer this node does not understand \(GET \/me\/\)/);
	});
});

describe('credential test', () => {
	it('passes with the right key and fails with a wrong one', async () => {
		const [credentialType] = credentialTypes;
		const good = await testCredential({ credentialType, data: { apiKey: API_KEY, network: 'testnet', baseUrl: `${emu.url}/`, consumerSecret: CONSUMER_SECRET } });
		expect(good.status).toBe('OK');
		const bad = await testCredential({ credentialType, data: { apiKey: 'nope', network: 'testnet', baseUrl: emu.url } });
		expect(bad.status).toBe('Error');
		expect(emu.requests.at(-1)).toMatchObject({ method: 'GET', query: { limit: '1' }, status: 401 });
	});
});
