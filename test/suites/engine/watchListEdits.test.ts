/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Watch lists kept at the service and edited live, through n8n-core's engine against the emulator:
 * the Stacks Hooks node's Watch List operations (all items of a run one edit), and a trigger watching
 * the list, whose hook follows each edit in place and whose items name the addresses.
 */
import { setTimeout as sleep } from 'timers/promises';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { checkDefinition, type DeliveryPayload, makeBlock } from '../../emulator';
import {
	activateTrigger,
	ALICE,
	API_KEY,
	BOB,
	credentialsFor,
	deliverToTrigger,
	emu,
	runAction,
	runTriggerHook,
	triggerParameters,
	useEmulator,
} from '../../support/engine/fixtures';
import { testnetAddress } from '../../support/addresses';
import { editFilters, editsOf, HISTORY_HEIGHTS } from '../../../nodes/shared/watchList/history';
import { principalsOf, watchFilters } from '../../../nodes/shared/watchList/kinds';

useEmulator();

const addressNo = testnetAddress;
const LIST_HOOK = 'n8n watch list: deposits';

const edit = (operation: 'add' | 'remove' | 'replace', addresses: string[], opts: { continueOnFail?: boolean; listName?: string } = {}) =>
	runAction(emu, { resource: 'watchList', operation, listName: opts.listName ?? 'deposits', address: '={{ $json.address }}' }, { items: addresses.map((address) => ({ address })), continueOnFail: opts.continueOnFail });
const getList = async (listName = 'deposits') => (await runAction(emu, { resource: 'watchList', operation: 'get', listName })).items[0].json;

const listHook = () => emu.hooks(API_KEY).find((hook) => hook.definition.name === LIST_HOOK);
const outputs = (result: { items: Array<{ json: IDataObject }> }) => result.items.map((item) => item.json);

const watchingParameters = (overrides: INodeParameters = {}) => triggerParameters({ watch: 'list', listName: 'deposits', watchFor: ['stxReceived', 'stxSent'], output: 'event', ...overrides });
const activate = (staticData: IDataObject = {}, parameters = watchingParameters()) => activateTrigger(staticData, { parameters, credentials: credentialsFor(emu) });
const triggerHook = () => emu.hooks(API_KEY).find((hook) => hook.definition.name.includes('[watch list: deposits |'));

/**
 * Runs `test` with the trigger's hook never interrupted: deliveries to its unreachable URL fail, and the test hands
 * each to webhook() itself. The emulator's setting is put back after (reset() keeps it).
 */
async function handingDeliveriesOver(test: () => Promise<void>): Promise<void> {
	const { interruptAfterFailures } = emu.currentConfig();
	emu.configure({ interruptAfterFailures: 1000 });
	try {
		await test();
	} finally {
		emu.configure({ interruptAfterFailures });
	}
}

function transfer(sender: string, recipient: string, height: number): DeliveryPayload {
	return {
		chainhook: { uuid: triggerHook()!.uuid, name: triggerHook()!.definition.name },
		event: { chain: 'stacks', network: 'testnet', apply: [makeBlock({ height, transactions: [{ kind: 'stx_transfer', sender, recipient, amount: 10 }] })], rollback: [] },
	} as DeliveryPayload;
}

describe('Watch List operations', () => {
	it('add the addresses of all the items of a run in one edit, kept as a list hook that never delivers', async () => {
		const addresses = Array.from({ length: 50 }, (_, i) => addressNo(i + 1));
		const result = await edit('add', addresses);
		expect(outputs(result)).toEqual(addresses.map((address) => ({ list: 'deposits', address, added: true, listSize: 50, hooksUpdated: [] })));
		const hook = listHook()!;
		expect(hook.status.enabled).toBe(false);
		expect(hook.definition.filters.events).toEqual(addresses.map((principal) => ({ type: 'balance_change', principal })));
		expect(checkDefinition(hook.definition).ok).toBe(true);
		// One edit: the hooks listed, the list registered, the hooks listed again; not a request an item.
		expect(emu.requests.map((request) => request.method)).toEqual(['GET', 'POST', 'GET']);
	});

	it('say which addresses were new, and keep each address once', async () => {
		await edit('add', [ALICE]);
		emu.clearRequests();
		const result = await edit('add', [ALICE, BOB, BOB]);
		expect(outputs(result).map(({ address, added, listSize }) => ({ address, added, listSize }))).toEqual([
			{ address: ALICE, added: false, listSize: 2 },
			{ address: BOB, added: true, listSize: 2 },
			{ address: BOB, added: true, listSize: 2 },
		]);
		expect(emu.requests.map((request) => `${request.method} ${request.path.replace(/[0-9a-f-]{36}/, '{uuid}')}`)).toEqual([
			'GET /hooks/v1/me/',
			'PATCH /hooks/v1/me/{uuid}',
			'GET /hooks/v1/me/{uuid}',
			'GET /hooks/v1/me/',
		]);
		expect((await getList()).addresses).toEqual([ALICE, BOB]);
	});

	it('remove addresses, saying which were there', async () => {
		await edit('add', [ALICE, BOB]);
		const result = await edit('remove', [BOB, addressNo(9)]);
		expect(outputs(result).map(({ address, removed, listSize }) => ({ address, removed, listSize }))).toEqual([
			{ address: BOB, removed: true, listSize: 1 },
			{ address: addressNo(9), removed: false, listSize: 1 },
		]);
		expect((await getList()).addresses).toEqual([ALICE]);
	});

	it('fail an item with a bad address alone, naming it, when the node continues on error', async () => {
		const mistyped = `${ALICE.slice(0, -1)}N`;
		const result = await edit('add', [ALICE, mistyped, BOB], { continueOnFail: true });
		expect(outputs(result)).toEqual([
			expect.objectContaining({ address: ALICE, added: true, listSize: 2 }),
			{ error: 'The address is not a testnet Stacks principal', description: expect.stringContaining(`item 2: "${mistyped}" is not a Stacks address: its checksum does not match`) },
			expect.objectContaining({ address: BOB, added: true, listSize: 2 }),
		]);
		const stopped = await edit('add', [mistyped]);
		expect(stopped.error?.message).toBe('The address is not a testnet Stacks principal');
	});

	it('refuse a list name that is not one', async () => {
		const result = await edit('add', [ALICE], { listName: 'no/slashes' });
		expect(result.error?.message).toBe('"no/slashes" is not a watch list name');
		expect(emu.hooks(API_KEY)).toEqual([]);
	});

	it('take turns on one list within a process: runs at once all land, in whatever order they reach the list', async () => {
		await edit('add', [addressNo(4)]);
		await Promise.all([edit('add', [addressNo(1), addressNo(2)]), edit('add', [addressNo(3)]), edit('remove', [addressNo(4)])]);
		expect(new Set((await getList()).addresses as string[])).toEqual(new Set([addressNo(1), addressNo(2), addressNo(3)]));
	});

	it('replace the list with the items of a run (every row of a table kept elsewhere), the watchers following', async () => {
		await edit('add', [ALICE, BOB]);
		await activateTrigger({}, { parameters: watchingParameters(), credentials: credentialsFor(emu) });
		const rows = [BOB, addressNo(1), addressNo(2)];
		const result = await edit('replace', rows);
		expect(outputs(result).map(({ address, added, listSize, removed }) => ({ address, added, listSize, removed }))).toEqual([
			{ address: BOB, added: false, listSize: 3, removed: 1 },
			{ address: addressNo(1), added: true, listSize: 3, removed: 1 },
			{ address: addressNo(2), added: true, listSize: 3, removed: 1 },
		]);
		expect((await getList()).addresses).toEqual(rows);
		expect(triggerHook()!.definition.filters.events.map((filter) => (filter as Record<string, string>).receiver ?? (filter as Record<string, string>).sender)).toEqual(rows.flatMap((address) => [address, address]));
	});

	it('change nothing when one item of a replacement is bad, rather than drop its address', async () => {
		await edit('add', [ALICE, BOB]);
		const result = await edit('replace', [ALICE, 'hello', BOB], { continueOnFail: true });
		expect(outputs(result).map((item) => item.error)).toEqual(Array(3).fill('The address is not a testnet Stacks principal'));
		expect((await getList()).addresses).toEqual([ALICE, BOB]);
	});

	it('keep the list as it was, and say so with the sizes, when the service refuses the list\'s hook as too large', async () => {
		// Each address is about 80 bytes of the list's hook: 8 KiB holds some 90, not 200.
		emu.configure({ maxRequestBytes: 8 * 1024 });
		try {
			const first = Array.from({ length: 50 }, (_, i) => addressNo(i + 1));
			await edit('add', first);
			const more = Array.from({ length: 150 }, (_, i) => addressNo(i + 1_000));
			const result = await edit('add', more);
			expect(result.error?.message).toMatch(/^The watch list "deposits" would hold 200 addresses, and the service refused its hook as too large: .*\(413\).*more than 8192 bytes\. Nothing of this edit is kept: the list still holds its 50 addresses\. Keep each list below that size/);
			expect((await getList()).addresses).toEqual(first);
			const fresh = await edit('add', more, { listName: 'new-list' });
			expect(fresh.error?.message).toMatch(/"new-list" would hold 150 addresses.*Nothing of this edit is kept: the list holds no address yet\./);
		} finally {
			emu.configure({ maxRequestBytes: 1024 * 1024 });
		}
	});

	it('get an empty list when it never held an address', async () => {
		expect(await getList('never-used')).toEqual({ list: 'never-used', size: 0, addresses: [], listHookUuid: null, watchedBy: [] });
	});
});

describe('a trigger watching a watch list', () => {
	it('registers the list\'s addresses for its kinds, and follows each edit in place within the edit', async () => {
		await edit('add', [ALICE]);
		await activate();
		const hook = triggerHook()!;
		// The list's name, the kinds, and a digest of the addresses its filters hold, which each edit changes.
		expect(hook.definition.name).toMatch(/^n8n: Payments \(wf42\) \[watch list: deposits \| stxReceived stxSent \| [0-9a-f]{8}\]$/);
		expect(hook.definition.filters.events).toEqual([
			{ type: 'stx_transfer', receiver: ALICE },
			{ type: 'stx_transfer', sender: ALICE },
		]);

		const added = await edit('add', [BOB]);
		expect(outputs(added)[0]).toMatchObject({ added: true, listSize: 2, hooksUpdated: [hook.uuid] });
		expect(triggerHook()!.uuid).toBe(hook.uuid);
		expect(triggerHook()!.definition.filters.events).toEqual([
			{ type: 'stx_transfer', receiver: ALICE },
			{ type: 'stx_transfer', sender: ALICE },
			{ type: 'stx_transfer', receiver: BOB },
			{ type: 'stx_transfer', sender: BOB },
		]);
		expect(triggerHook()!.definition.name).not.toBe(hook.definition.name);
		expect((await getList()).watchedBy).toEqual([{ uuid: hook.uuid, name: triggerHook()!.definition.name, kinds: ['stxReceived', 'stxSent'], enabled: true }]);

		await edit('remove', [ALICE]);
		expect(triggerHook()!.definition.filters.events).toEqual([
			{ type: 'stx_transfer', receiver: BOB },
			{ type: 'stx_transfer', sender: BOB },
		]);
	});

	it('watches an empty list with a filter that matches nothing, until the first address comes', async () => {
		await activate();
		expect(triggerHook()!.definition.filters.events).toEqual([{ type: 'nft_burn', asset_identifier: 'ST000000000000000000002AMW42H.n8n-empty-watch-list::none' }]);
		expect(checkDefinition(triggerHook()!.definition).ok).toBe(true);
		await edit('add', [ALICE]);
		expect(triggerHook()!.definition.filters.events).toHaveLength(2);
		await edit('remove', [ALICE]);
		expect(triggerHook()!.definition.filters.events).toEqual([{ type: 'nft_burn', asset_identifier: 'ST000000000000000000002AMW42H.n8n-empty-watch-list::none' }]);
	});

	it('names the address of each item, an address added a moment ago included', async () => {
		await edit('add', [ALICE]);
		const staticData = await activate();
		const first = await deliverToTrigger(transfer(ALICE, BOB, 10), staticData, watchingParameters());
		expect(first.response.workflowData?.[0].map((item) => item.json.watched)).toEqual([[{ address: ALICE, direction: 'out' }]]);
		await edit('add', [BOB]);
		// The trigger read the list a moment ago; the new address's transfer makes it read it again.
		const second = await deliverToTrigger(transfer(addressNo(5), BOB, 11), staticData, watchingParameters());
		expect(second.response.workflowData?.[0].map((item) => item.json.watched)).toEqual([[{ address: BOB, direction: 'in' }]]);
	});

	it('names the addresses of the list a delivery was matched with, not of the list it read before: a removed one no longer', async () => {
		await edit('add', [ALICE, BOB]);
		const staticData = await activate();
		const deliver = async (sender: string, recipient: string, height: number) => {
			const [report] = await emu.injectBlock({ height, transactions: [{ kind: 'stx_transfer', sender, recipient, amount: 10 }] });
			const result = await deliverToTrigger(report.payload, staticData, watchingParameters());
			return result.response.workflowData?.[0].map((item) => item.json.watched);
		};
		expect(await deliver(ALICE, addressNo(5), 20)).toEqual([[{ address: ALICE, direction: 'out' }]]);
		await edit('remove', [ALICE]);
		// Delivered for BOB (still listed); ALICE, removed, is not named.
		expect(await deliver(BOB, ALICE, 21)).toEqual([[{ address: BOB, direction: 'out' }]]);
	});

	it('undoes across edits what it applied: a removed address\'s events a reorganisation drops, none of an address added after its block', async () =>
		handingDeliveriesOver(async () => {
			await edit('add', [ALICE]);
			const staticData = await activate();
			const run = async (reports: Array<{ payload: DeliveryPayload }>) => {
				const items = [];
				for (const { payload } of reports) items.push(...((await deliverToTrigger(payload, staticData, watchingParameters())).response.workflowData?.[0] ?? []));
				return items.map(({ json }) => [json.direction, json.blockHeight, json.sender, json.watched]);
			};
			const block40 = { height: 40, hash: `0x${'a'.repeat(64)}`, transactions: [{ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount: 1 }] };
			expect(await run(await emu.injectBlock(block40))).toEqual([['apply', 40, ALICE, [{ address: ALICE, direction: 'out' }]]]);
			// Above height 40: BOB on the list, ALICE off it. Her filters stay, for her undos.
			await edit('add', [BOB]);
			await edit('remove', [ALICE]);
			expect(triggerHook()!.definition.filters.events).toContainEqual({ type: 'stx_transfer', sender: ALICE });
			const block41 = { height: 41, hash: `0x${'b'.repeat(64)}`, transactions: [{ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount: 2 }] };
			expect(await run(await emu.injectBlock(block41))).toEqual([['apply', 41, ALICE, [{ address: BOB, direction: 'in' }]]]);
			// Both undone; the new block 40 has a transfer of each. Each undo names what its apply named, the new block 40 the list at 40.
			const new40 = { height: 40, hash: `0x${'c'.repeat(64)}`, transactions: [{ kind: 'stx_transfer' as const, sender: BOB, recipient: addressNo(5), amount: 3 }, { kind: 'stx_transfer' as const, sender: ALICE, recipient: addressNo(5), amount: 4 }] };
			expect(await run(await emu.injectReorg([block41, block40], [new40]))).toEqual([
				['rollback', 41, ALICE, [{ address: BOB, direction: 'in' }]],
				['rollback', 40, ALICE, [{ address: ALICE, direction: 'out' }]],
				['apply', 40, ALICE, [{ address: ALICE, direction: 'out' }]],
			]);
			// Above 40 ALICE is off the list: her transfer of the new block 41 is cut, BOB's kept.
			const new41 = { height: 41, transactions: [{ kind: 'stx_transfer' as const, sender: ALICE, recipient: addressNo(5), amount: 5 }, { kind: 'stx_transfer' as const, sender: BOB, recipient: addressNo(5), amount: 6 }] };
			expect(await run(await emu.injectBlock(new41))).toEqual([['apply', 41, BOB, [{ address: BOB, direction: 'out' }]]]);
		}));

	it('evaluates again a block the service evaluated while an edit ran, so the address it added gets its event there', async () =>
		handingDeliveriesOver(async () => {
			await edit('add', [ALICE]);
			const staticData = await activate();
			const { uuid } = triggerHook()!;
			await emu.injectBlock({ height: 60, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: addressNo(5), amount: 1 }] });
			// Block 61 pays BOB while the edit adding him runs: after it read the tip (60), before it updated the trigger's hook.
			emu.beforeServing({ method: 'GET', path: /\/me\/$/, skip: 1 }, () => emu.injectBlock({ height: 61, transactions: [{ kind: 'stx_transfer', sender: addressNo(5), recipient: BOB, amount: 2 }] }));
			emu.clearRequests();
			await edit('add', [BOB]);
			expect(emu.requests.map((request) => `${request.method} ${request.path.replace(/[0-9a-f-]{36}/, '{uuid}')}`).slice(-2)).toEqual(['PATCH /hooks/v1/me/{uuid}', 'POST /hooks/v1/me/{uuid}/evaluate']);
			for (const deadline = Date.now() + 5000; !emu.deliveries.some((report) => report.hookUuid === uuid && report.blockHeight === 61) && Date.now() < deadline; ) await sleep(20);
			const replay = emu.deliveries.find((report) => report.hookUuid === uuid && report.blockHeight === 61)!;
			const result = await deliverToTrigger(replay.payload, staticData, watchingParameters());
			expect(result.response.workflowData?.[0].map((item) => [item.json.blockHeight, item.json.watched])).toEqual([[61, [{ address: BOB, direction: 'in' }]]]);
		}));

	describe('a block mined at any point of an edit', () => {
		const OLD = addressNo(0x6001);
		const NEW = [addressNo(0x6101), addressNo(0x6102), addressNo(0x6103)];
		const OUTSIDER = addressNo(0x6fff);
		const edits = {
			add: { operation: 'add' as const, addresses: NEW, after: [ALICE, OLD, ...NEW] },
			remove: { operation: 'remove' as const, addresses: [OLD], after: [ALICE] },
			replace: { operation: 'replace' as const, addresses: [ALICE, ...NEW.slice(0, 2)], after: [ALICE, ...NEW.slice(0, 2)] },
		};
		// Block 61 pays each address, listed or not: which of its transfers are items says which list it was matched with.
		const block61 = { height: 61, transactions: [ALICE, OLD, ...NEW].map((recipient, i) => ({ kind: 'stx_transfer' as const, sender: OUTSIDER, recipient, amount: i + 1 })) };
		const shape = (request: { method: string; path: string }) => `${request.method} ${request.path.replace(/[0-9a-f-]{36}/, '{uuid}')}`;

		/** The items of every delivery of block 61 to hook `uuid` (the service's, and an edit's evaluation of it again), handed to the trigger in turn. */
		async function itemsOf61(uuid: string, staticData: IDataObject): Promise<IDataObject[]> {
			const items: IDataObject[] = [];
			for (const report of emu.deliveries.filter((delivery) => delivery.hookUuid === uuid && delivery.blockHeight === 61)) {
				items.push(...((await deliverToTrigger(report.payload, staticData, watchingParameters())).response.workflowData?.[0] ?? []).map((item) => item.json));
			}
			return items;
		}

		/** A fresh account: a list of ALICE and OLD, watched by a trigger, the chain at 60, no request recorded yet. */
		async function watchedAt60(): Promise<{ uuid: string; staticData: IDataObject }> {
			emu.reset();
			emu.configure({ interruptAfterFailures: 1000 });
			await edit('add', [ALICE, OLD]);
			const staticData = await activate();
			await emu.injectBlock({ height: 60, transactions: [{ kind: 'stx_transfer', sender: OUTSIDER, recipient: ALICE, amount: 100 }] });
			emu.clearRequests();
			return { uuid: triggerHook()!.uuid, staticData };
		}

		/** The list watched at 60, then the edit, block 61 armed at `point` of it (none: not at all). */
		async function editWithBlock(kind: keyof typeof edits, point?: { request: number; when: 'before' | 'after' }) {
			const { uuid, staticData } = await watchedAt60();
			if (point) emu.mineAt({ skip: point.request }, point.when, block61);
			const result = await edit(edits[kind].operation, edits[kind].addresses);
			expect(result.error).toBeUndefined();
			const requests = emu.requests.map(shape);
			// Mined after the edit when it was armed at none of its requests: the hook has the edit by then.
			if (!emu.state().blockHeights.includes(61)) await emu.injectBlock(block61);
			await emu.settled();
			return { requests, items: await itemsOf61(uuid, staticData) };
		}

		it('gives the added addresses\' transfers of a block mined while the PATCH of the trigger\'s hook failed and was sent again, once each', async () =>
			handingDeliveriesOver(async () => {
				// Refused once (503: not applied), the block mined meanwhile; then applied with its answer lost, a block mined
				// in between again. Each time the PATCH is sent again, and its last answer says how far the service had gone.
				const faults = [
					{ name: 'refused', arm: (uuid: string) => (emu.mineAt({ method: 'PATCH', path: uuid }, 'before', block61), emu.failNext(1, 503, { match: { method: 'PATCH', path: uuid }, retryAfter: '0' })) },
					{ name: 'answer lost', arm: (uuid: string) => (emu.mineAt({ method: 'PATCH', path: uuid }, 'after', block61), emu.dropNext(1, 'reset', { match: { method: 'PATCH', path: uuid }, afterServing: true })) },
				];
				for (const fault of faults) {
					const { uuid, staticData } = await watchedAt60();
					fault.arm(uuid);
					expect((await edit('add', NEW)).error).toBeUndefined();
					await emu.settled();
					expect({ fault: fault.name, patches: emu.requests.filter((request) => request.method === 'PATCH' && request.path.endsWith(uuid)).length }).toEqual({ fault: fault.name, patches: 2 });
					const items = await itemsOf61(uuid, staticData);
					const received = (address: string) => new Set(items.filter((item) => item.recipient === address).map((item) => item.eventId)).size;
					expect({ fault: fault.name, received: [ALICE, OLD, ...NEW].map(received) }).toEqual({ fault: fault.name, received: [1, 1, 1, 1, 1] });
				}
			}));

		it('follows an edit that ran while the trigger was activated, between its read of the list and its registration', async () =>
			handingDeliveriesOver(async () => {
				await edit('add', [ALICE, OLD]);
				await emu.injectBlock({ height: 60, transactions: [{ kind: 'stx_transfer', sender: OUTSIDER, recipient: ALICE, amount: 100 }] });
				// The whole edit runs after the trigger read the list and before it registers its hook: the edit finds no hook
				// watching the list. Block 61 comes once the hook is registered, before it reads the list again.
				emu.beforeServing({ method: 'POST', path: /\/me\/$/ }, async () => {
					expect((await edit('add', NEW)).error).toBeUndefined();
					emu.mineAt({ method: 'GET', path: /\/me\/$/ }, 'before', block61);
				});
				const staticData = await activate();
				await emu.settled();
				const { uuid } = triggerHook()!;
				expect(new Set(principalsOf(triggerHook()!.definition.filters.events))).toEqual(new Set([ALICE, OLD, ...NEW]));
				const items = await itemsOf61(uuid, staticData);
				expect([...new Set(items.map((item) => `${item.recipient} ${item.eventId}`))].map((entry) => entry.split(' ')[0]).sort()).toEqual([ALICE, OLD, ...NEW].sort());
			}));

		for (const kind of Object.keys(edits) as Array<keyof typeof edits>) {
			it(`gives, for a block mined before or after any request of ${kind === 'add' ? 'an add' : `a ${kind}`}, the transfers of the addresses listed at its height (a removed one until the hook took the edit), those of added addresses once`, async () =>
				handingDeliveriesOver(async () => {
					const { requests } = await editWithBlock(kind);
					const points = requests.flatMap((_, request) => (['before', 'after'] as const).map((when) => ({ request, when })));
					const seen: string[] = [];
					// The trigger's hook takes the edit at the last request of the baseline: the PATCH of its filters.
					const patched = requests.length - 1;
					for (const point of points) {
						const { items, requests: during } = await editWithBlock(kind, point);
						// Mined before the edit's first read of the tip, the block is below the height the edit takes effect above:
						// the list before it. After that, an added address is listed; a removed one still is while the trigger's
						// hook has not taken the edit, as the service matched the block with it.
						const first = point.request === 0 && point.when === 'before';
						const matchedBefore = point.when === 'before' ? point.request <= patched : point.request < patched;
						const listed = first ? [ALICE, OLD] : [...edits[kind].after, ...(matchedBefore && !edits[kind].after.includes(OLD) ? [OLD] : [])];
						const byId = new Map<string, (typeof items)[number]>();
						for (const item of items) {
							const twin = byId.get(String(item.eventId));
							// A block evaluated again comes with the same ids: the same item twice (its hook's name aside, which names the
							// list it was matched with), never two different ones under one id.
							if (twin) expect({ ...item, hookName: undefined }).toEqual({ ...twin, hookName: undefined });
							byId.set(String(item.eventId), item);
						}
						const at = `${point.when} ${requests[point.request]}`;
						expect({ at, recipients: [...byId.values()].map((item) => item.recipient).sort() }).toEqual({ at, recipients: [...listed].sort() });
						// The transfers to addresses the edit added: each once.
						expect({ at, added: items.filter((item) => NEW.includes(String(item.recipient))).length }).toEqual({ at, added: listed.filter((address) => NEW.includes(address)).length });
						seen.push(`${at}: ${during.length} requests, ${during.filter((request) => request.endsWith('/evaluate')).length} of them evaluations again`);
					}
					console.log(`${kind}: ${requests.join(', ')}\n  ${seen.join('\n  ')}`);
				}));
		}
	});

	it('remembers edits of any size, in a record each: a replacement of 1,200 addresses by 10 keeps the 1,200 removals, and a reorganisation across it is exact', async () =>
		handingDeliveriesOver(async () => {
			const old = Array.from({ length: 1200 }, (_, i) => addressNo(5000 + i));
			const fresh = Array.from({ length: 10 }, (_, i) => addressNo(9000 + i));
			await edit('add', old);
			const staticData = await activate();
			const pay = (height: number, recipients: string[], hash?: string) => ({ height, hash, transactions: recipients.map((recipient, i) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient, amount: height * 100 + i })) });
			const block50 = pay(50, [old[0], old[1199], fresh[0]], `0x${'d'.repeat(64)}`);
			await emu.injectBlock(block50);
			await edit('replace', fresh);
			// Two records: the 1,200 removed and the 10 added above height 50, by their places among the hook's addresses.
			const records = listHook()!.definition.filters.events.filter((filter) => filter.type === 'contract_call');
			expect(records).toEqual([
				{ type: 'contract_call', contract_identifier: 'ST000000000000000000002AMW42H.n8n-watch-list', function_name: 'removed above 50: 10-1209' },
				{ type: 'contract_call', contract_identifier: 'ST000000000000000000002AMW42H.n8n-watch-list', function_name: 'added above 50: 0-9' },
			]);
			expect(editsOf(listHook()!.definition.filters.events, [...fresh, ...old])).toEqual([...old.map((address) => ({ address, listed: false, height: 50 })), ...fresh.map((address) => ({ address, listed: true, height: 50 }))]);
			expect((await getList()).addresses).toEqual(fresh);
			// The trigger's hook: the 10 and the 1,200 lately removed (for their undos), each received and sent, and the two records.
			expect(triggerHook()!.definition.filters.events).toHaveLength((10 + 1200) * 2 + 2);
			// Block 50 undone, a new 50 and 51: each block is matched with the list at its height.
			const reports = await emu.injectReorg([block50], [pay(50, [old[1199], fresh[1]]), pay(51, [old[1199], fresh[1]])]);
			const items = [];
			for (const { payload } of reports) items.push(...((await deliverToTrigger(payload, staticData, watchingParameters())).response.workflowData?.[0] ?? []).map(({ json }) => [json.direction, json.blockHeight, json.recipient]));
			expect(items).toEqual([
				['rollback', 50, old[0]],
				['rollback', 50, old[1199]],
				['apply', 50, old[1199]],
				['apply', 51, fresh[1]],
			]);
		}));

	it('reads the edits of a list written by 0.1.0 (a filter per address and edit), and writes them as records at the next edit', async () => {
		await edit('add', [ALICE]);
		await emu.injectBlock({ height: 40, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1 }] });
		// As 0.1.0 left it: ALICE listed, added above 30; BOB removed above 40, known only from his record.
		const perAddress = (address: string, change: 'added' | 'removed', height: number) => ({ type: 'nft_burn', asset_identifier: `ST000000000000000000002AMW42H.n8n-watch-list::${change}`, sender: address, value: height });
		await fetch(`${emu.url}/me/${listHook()!.uuid}`, {
			method: 'PATCH',
			headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
			body: JSON.stringify({ filters: { events: [{ type: 'balance_change', principal: ALICE }, perAddress(ALICE, 'added', 30), perAddress(BOB, 'removed', 40)] } }),
		});
		expect((await getList()).addresses).toEqual([ALICE]);
		// No hook has evaluated a block: the new address is on the list at every height, and has no record.
		await edit('add', [addressNo(7)]);
		expect(listHook()!.definition.filters.events).toEqual([
			{ type: 'balance_change', principal: ALICE },
			{ type: 'balance_change', principal: addressNo(7) },
			{ type: 'balance_change', principal: BOB },
			...editFilters('testnet', [ALICE, addressNo(7), BOB], [
				{ address: ALICE, listed: true, height: 30 },
				{ address: BOB, listed: false, height: 40 },
			]),
		]);
		expect((await getList()).addresses).toEqual([ALICE, addressNo(7)]);
	});

	it('keeps the list when deactivated, and watches it again, edits made meanwhile included, when activated', async () => {
		await edit('add', [ALICE]);
		const staticData = await activate();
		await runTriggerHook('delete', staticData, { parameters: watchingParameters(), credentials: credentialsFor(emu) });
		expect(triggerHook()).toBeUndefined();
		await edit('add', [BOB]);
		expect((await getList()).addresses).toEqual([ALICE, BOB]);
		await activate(staticData);
		expect(triggerHook()!.definition.filters.events).toHaveLength(4);
	});

	it('is matched in n8n, the same hook, once an edit makes it too large for the service; stays so while the list grows, and not once it shrinks', async () => {
		emu.configure({ maxFilters: 10 });
		try {
			const listed = Array.from({ length: 7 }, (_, i) => addressNo(100 + i));
			await edit('add', listed.slice(0, 4));
			const staticData = await activate();
			const { uuid } = triggerHook()!;
			expect(triggerHook()!.definition.filters.events).toHaveLength(8);

			// Twelve filters: refused; the hook selects every STX transfer, and says so in its name.
			const grown = await edit('add', listed.slice(4, 6));
			expect(outputs(grown)[0]).toMatchObject({ listSize: 6, hooksUpdated: [uuid] });
			expect(triggerHook()!.uuid).toBe(uuid);
			expect(triggerHook()!.definition.filters.events).toEqual([{ type: 'stx_transfer' }]);
			expect(triggerHook()!.definition.name).toMatch(/\[watch list: deposits \| stxReceived stxSent \| [0-9a-f]{8} \| matched in n8n\]$/);

			// The service delivers the block's every transfer; the workflow gets the listed address's, named.
			const [report] = await emu.injectBlock({ height: 30, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1 }, { kind: 'stx_transfer', sender: listed[5], recipient: ALICE, amount: 2 }] });
			expect(report.payload.event.apply[0].transactions).toHaveLength(2);
			const result = await deliverToTrigger(report.payload, staticData, watchingParameters());
			expect(result.response.workflowData?.[0].map((item) => [item.json.sender, item.json.watched])).toEqual([[listed[5], [{ address: listed[5], direction: 'out' }]]]);

			// Growing on: only the digest in its name changes (the list's hook keeps the edit's record), no refused request first.
			emu.clearRequests();
			await edit('add', [listed[6]]);
			expect(triggerHook()!.definition.filters.events).toEqual([{ type: 'stx_transfer' }]);
			expect(emu.requests.map((request) => request.status)).not.toContain(400);
			// Shrunk to three addresses, but the four removed are still watched for a reorganisation's undos: matched in n8n still.
			await edit('remove', listed.slice(3));
			expect(triggerHook()!.definition.name).toMatch(/matched in n8n/);
			// Once the chain is HISTORY_HEIGHTS past those removals, the next edit forgets them: one filter per address and kind again.
			await emu.injectBlock({ height: 31 + HISTORY_HEIGHTS, transactions: [{ kind: 'stx_transfer', sender: BOB, recipient: ALICE, amount: 3 }] });
			await edit('remove', [listed[2]]);
			expect(triggerHook()!.uuid).toBe(uuid);
			expect(triggerHook()!.definition.name).not.toMatch(/matched in n8n/);
			// Two listed and one lately removed, each received and sent; and the removal's record.
			expect(triggerHook()!.definition.filters.events).toEqual([
				...watchFilters([listed[0], listed[1], listed[2]], ['stxReceived', 'stxSent']),
				...editFilters('testnet', listed.slice(0, 3), [{ address: listed[2], listed: false, height: 31 + HISTORY_HEIGHTS }]),
			]);
		} finally {
			emu.configure({ maxFilters: null });
		}
	});

	it('updates its hook in place at a restart when the list changed without it (an edit that did not reach it)', async () => {
		await edit('add', [ALICE]);
		const staticData = await activate();
		const { uuid } = triggerHook()!;
		// The list changed at the service, the trigger's hook not.
		await fetch(`${emu.url}/me/${listHook()!.uuid}`, {
			method: 'PATCH',
			headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
			body: JSON.stringify({ filters: { events: [{ type: 'balance_change', principal: ALICE }, { type: 'balance_change', principal: BOB }] } }),
		});
		expect(await runTriggerHook('checkExists', staticData, { parameters: watchingParameters(), credentials: credentialsFor(emu), activation: 'init' })).toBe(true);
		expect(triggerHook()!.uuid).toBe(uuid);
		expect(triggerHook()!.definition.filters.events).toHaveLength(4);
	});
});
