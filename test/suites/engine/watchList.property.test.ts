/* eslint-disable no-console -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * A watch list's two readings agree, for generated transactions of every kind the emulator builds,
 * lists and kinds: the hook's filters (one per address and kind, matched as the service matches them,
 * which is how the emulator decides what to deliver) and the trigger's own matching, which names
 * the listed addresses and directions on its items. An event is about exactly the listed addresses
 * some filter of theirs selects, in the direction that filter names; and through n8n-core's webhook,
 * "One Item per Event" outputs exactly the events about the list. Over random sequences of edits of
 * a watch list (the Stacks Hooks node's Add and Remove), blocks and reorganisations, the trigger outputs
 * exactly the events about the addresses on the list at the block's height (an edit takes effect above the
 * tip), each once, and an undo of each that a reorganisation drops, with its id, reorganisations across
 * edits included. A list matched in n8n (its hook's
 * filters select the kinds for any address, the trigger keeps the listed addresses' transactions) keeps
 * exactly the transactions one filter per address and kind would have delivered.
 */
import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import { type ChainEvent, eventMatches, type EventFilter, movedValue, transactionEvents, transactionMatches } from '../../../nodes/shared/chainEvents';
import { broadWatchFilters, knownKinds, watchFilters, type WatchKind } from '../../../nodes/shared/watchList/kinds';
import type { Delivery } from '../../../nodes/shared/delivery';
import { listedTransactionsOf } from '../../../nodes/StacksHooksTrigger/watch/listedTransactions';
import { WatchedAddresses } from '../../../nodes/StacksHooksTrigger/watch/watchedAddresses';
import { type DeliveryPayload, makeBlock } from '../../emulator';
import { testnetAddress } from '../../support/addresses';
import { ADDRESSES, txInput } from '../../support/deliveryArbitraries';
import { activateTrigger, API_KEY, credentialsFor, deliverToTrigger, emu, runAction, triggerParameters, useEmulator } from '../../support/engine/fixtures';
import { propertyParameters, RUNS_FACTOR } from '../../support/properties';

useEmulator();

/** Addresses an edit of more than 1,000 carries besides the pool's: listed and removed, never in a transfer. */
const FILLERS = Array.from({ length: 1001 }, (_, i) => testnetAddress(i + 0x9000));

const KINDS: WatchKind[] = ['stxReceived', 'stxSent', 'ftReceived', 'ftSent', 'nftReceived', 'nftSent', 'minted', 'burned', 'balanceChanges', 'contractCalls'];

const list = fc.subarray(ADDRESSES, { minLength: 1 });
const kinds = fc.subarray(KINDS, { minLength: 1 }).map(knownKinds);
const transactions = fc.array(txInput, { minLength: 1, maxLength: 6 });

/**
 * The directions a filter that selects `address` names: received and minted are in, sent, burned and called
 * out; a balance change, by each operation of the address that moves value: a debit (a negative amount) or
 * a lock out, a credit in.
 */
function directionsOf(filter: EventFilter, event: ChainEvent, address: string): Array<'in' | 'out'> {
	if (filter.type !== 'balance_change') return [filter.receiver !== undefined ? 'in' : 'out'];
	return [event.operation, event.credit]
		.filter((op) => op !== undefined && (op.account as { address?: string } | undefined)?.address === address && movedValue(op) !== undefined)
		.map((op) => (movedValue(op!)!.startsWith('-') || op!.type === 'stx_lock' ? 'out' : 'in'));
}

describe('watch list matching', () => {
	it('names exactly the listed addresses whose filters select the event, in their direction', () => {
		fc.assert(
			fc.property(list, kinds, transactions, (addresses, watchFor, inputs) => {
				const watched = new WatchedAddresses(new Set(addresses), watchFor);
				const block = makeBlock({ height: 1, transactions: inputs });
				for (const tx of block.transactions) {
					for (const event of transactionEvents(tx)) {
						const named = watched.of(event, tx);
						for (const address of addresses) {
							const selecting = watchFilters([address], watchFor).filter((filter) => eventMatches(filter, event, tx));
							const directions = named.filter((entry) => entry.address === address).map((entry) => entry.direction);
							expect({ address, event: event.type, named: directions.length > 0 }).toEqual({ address, event: event.type, named: selecting.length > 0 });
							const expected = new Set(selecting.flatMap((filter) => directionsOf(filter, event, address)));
							expect({ address, event: event.type, directions: new Set(directions) }).toEqual({ address, event: event.type, directions: expected });
							expect(new Set(directions).size).toBe(directions.length);
						}
						expect(named.every((entry) => addresses.includes(entry.address))).toBe(true);
					}
				}
			}),
			propertyParameters(400),
		);
	});

	it('matched in n8n, selects exactly the transactions one filter per address and kind selects', () => {
		fc.assert(
			fc.property(list, kinds, transactions, (addresses, watchFor, inputs) => {
				const perAddress = watchFilters(addresses, watchFor);
				const broad = broadWatchFilters(addresses, watchFor);
				const watched = new WatchedAddresses(new Set(addresses), watchFor);
				const block = makeBlock({ height: 1, transactions: inputs });
				const delivery = { chainhook: { uuid: 'u', name: 'n' }, event: { network: 'testnet', apply: [block], rollback: [block] } } as unknown as Delivery;
				// What the service delivers to the broad hook, then what the trigger keeps of it.
				const served = block.transactions.filter((tx) => transactionMatches(broad, tx));
				const kept = listedTransactionsOf({ ...delivery, event: { ...delivery.event, apply: [{ ...block, transactions: served }], rollback: [] } }, watched);
				const expected = block.transactions.filter((tx) => transactionMatches(perAddress, tx)).map((tx) => tx.transaction_identifier.hash);
				expect(kept.event.apply.flatMap((kept) => kept.transactions.map((tx) => tx.transaction_identifier.hash))).toEqual(expected);
				if (expected.length === 0) expect(kept.event.apply).toEqual([]);
				expect(listedTransactionsOf(delivery, watched).event.rollback.flatMap((kept) => kept.transactions.map((tx) => tx.transaction_identifier.hash))).toEqual(expected);
				expect(broad.length).toBeLessThanOrEqual(perAddress.length);
			}),
			propertyParameters(400),
		);
	});

	it('outputs through the webhook exactly the events about the list, one item each', async () => {
		await fc.assert(
			fc.asyncProperty(fc.subarray(ADDRESSES.slice(0, 2), { minLength: 1 }), kinds, transactions, async (addresses, watchFor, inputs) => {
				emu.reset();
				const parameters: INodeParameters = triggerParameters({ watch: 'addresses', addresses: addresses.join('\n'), watchFor, output: 'event' });
				const staticData = await activateTrigger({}, { parameters, credentials: credentialsFor(emu) });
				const block = makeBlock({ height: 7, transactions: inputs });
				const body = { chainhook: { uuid: '9a7c1e52-3f0b-4d8e-a1c2-5b6d7e8f9a0b', name: 'deposits' }, event: { chain: 'stacks', network: 'testnet', apply: [block], rollback: [] } } as DeliveryPayload;
				const result = await deliverToTrigger(body, staticData, parameters);
				const items = (result.response.workflowData?.[0] ?? []).map((item) => item.json);
				const filters = watchFilters(addresses, watchFor);
				const expected = block.transactions.flatMap((tx) =>
					transactionEvents(tx)
						.filter((event) => filters.some((filter) => eventMatches(filter, event, tx)))
						.map((event) => ({ txHash: tx.transaction_identifier.hash, eventType: event.type })),
				);
				expect(items.map(({ txHash, eventType }) => ({ txHash, eventType }))).toEqual(expected);
				expect(new Set(items.map((item) => item.eventId)).size).toBe(items.length);
			}),
			propertyParameters(60),
		);
	});

	it('outputs, over random sequences of edits, blocks and reorganisations, exactly the events about the list at each block, each once, and each undo of one', async () => {
		const pool = Array.from({ length: 5 }, (_, i) => testnetAddress(i + 0x7000));
		const outsider = testnetAddress(0xffffffff);
		const party = fc.constantFrom(...pool, outsider);
		const transfers = fc.array(fc.tuple(party, party), { minLength: 1, maxLength: 4 });
		// A block mined inside an edit: just before or after one of its requests (an edit makes 4 to 6 when nothing is mined).
		const during = fc.option(fc.record({ request: fc.nat(6), when: fc.constantFrom('before' as const, 'after' as const), transfers }), { nil: undefined });
		const step = fc.oneof(
			// `fillers`: an edit of more than 1,000 addresses, the pool's first, then 1,001 that never transact.
			fc.record({ kind: fc.constantFrom('add' as const, 'remove' as const), addresses: fc.subarray(pool, { minLength: 1 }), fillers: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 }), during }),
			fc.record({ kind: fc.constant('block' as const), transfers }),
			// The last `depth` blocks undone and replaced by as many new ones.
			fc.record({ kind: fc.constant('reorg' as const), depth: fc.integer({ min: 1, max: 2 }), blocks: fc.array(transfers, { minLength: 1, maxLength: 2 }) }),
		);
		const parameters = triggerParameters({ watch: 'list', listName: 'deposits', watchFor: ['stxReceived', 'stxSent'], output: 'event' });
		type Transfer = { sender: string; recipient: string; amount: string };
		const about = (listed: ReadonlySet<string>) => (transfer: Transfer) => listed.has(transfer.sender) || listed.has(transfer.recipient);
		const watchedOf = (listed: ReadonlySet<string>, { sender, recipient }: Transfer) => [
			...(listed.has(sender) ? [{ address: sender, direction: 'out' }] : []),
			...(listed.has(recipient) ? [{ address: recipient, direction: 'in' }] : []),
		];
		// What the runs went through: reorganisations delivered, undo items among their outputs, blocks undone after an edit of an address of theirs.
		const seen = { reorgs: 0, undos: 0, acrossEdits: 0, minedInEdits: 0, replayed: 0, largeEdits: 0 };
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
				emu.reset();
				// Deliveries to the trigger's unreachable URL fail: the property hands each to webhook() itself.
				emu.configure({ interruptAfterFailures: 1000 });
				const staticData = await activateTrigger({}, { parameters, credentials: credentialsFor(emu) });
				const triggerUuid = emu.hooks(API_KEY).find((hook) => hook.definition.name.includes('[watch list: deposits'))!.uuid;
				// Each address's edits, in order, each taking effect above the height of the last block applied (none yet:
				// at every height). An address is on the list at height h as its last edit taking effect below h says.
				const edits = new Map<string, Array<{ above: number; listed: boolean }>>();
				let tip = -1;
				const listedAt = (height: number) =>
					new Set(pool.filter((address) => (edits.get(address) ?? []).filter((edit) => edit.above < height).at(-1)?.listed === true));
				// The canonical chain: each block's transfers.
				const chain: Array<{ height: number; hash: string; transfers: Transfer[] }> = [];
				// A block undone whose transfers are about an address edited since it came.
				const editedSince = (kept: (typeof chain)[number]) =>
					kept.transfers.some((transfer) => [transfer.sender, transfer.recipient].some((address) => (edits.get(address) ?? []).some((edit) => edit.above >= kept.height)));
				const applied = new Set<string>();
				let amount = 0;
				let fork = 0;
				const block = (height: number, pairs: Array<[string, string]>) => ({
					height,
					hash: `0x${fork.toString(16).padStart(8, '0')}${height.toString(16).padStart(56, '0')}`,
					transfers: pairs.map(([sender, recipient]) => ({ sender, recipient, amount: String(++amount) })),
				});
				const input = (kept: (typeof chain)[number]) => ({ height: kept.height, hash: kept.hash, transactions: kept.transfers.map(({ sender, recipient, amount: value }) => ({ kind: 'stx_transfer' as const, sender, recipient, amount: Number(value) })) });
				const outputs = async (reports: Awaited<ReturnType<typeof emu.injectBlock>>) => {
					const items = [];
					for (const report of reports) {
						const result = await deliverToTrigger(report.payload, staticData, parameters);
						items.push(...(result.response.workflowData?.[0] ?? []).map((item) => item.json));
					}
					return items;
				};
				const shape = (item: Record<string, unknown>) => ({ direction: item.direction, sender: item.sender, recipient: item.recipient, amount: item.amount, watched: item.watched });
				const checkApplied = (items: Array<Record<string, unknown>>) => {
					for (const item of items.filter((candidate) => candidate.direction === 'apply')) {
						expect(applied.has(String(item.eventId))).toBe(false);
						applied.add(String(item.eventId));
					}
				};
				for (const current of steps) {
					if (current.kind === 'add' || current.kind === 'remove') {
						const mined = current.during && block((chain.at(-1)?.height ?? 100) + 1, current.during.transfers);
						if (mined) emu.mineAt({ skip: current.during!.request }, current.during!.when, input(mined));
						const delivered = emu.deliveries.length;
						const requestsBefore = emu.requests.length;
						const requests = () => emu.requests.slice(requestsBefore).map((request) => `${request.method} ${request.path.replace(/^.*\/me\//, '').replace(/[0-9a-f-]{36}/, 'uuid')}`);
						const addresses = current.fillers ? [...current.addresses, ...FILLERS] : current.addresses;
						const run = await runAction(emu, { resource: 'watchList', operation: current.kind, listName: 'deposits', address: '={{ $json.address }}' }, { items: addresses.map((address) => ({ address })) });
						expect(run.error).toBeUndefined();
						if (current.fillers) seen.largeEdits++;
						// Mined before the edit's first read of the tip, the block is below the height the edit takes effect above.
						const first = mined !== undefined && current.during!.request === 0 && current.during!.when === 'before';
						if (first) tip = mined.height;
						// Mined after that and before the trigger's hook took the edit, the block was matched with the removed
						// addresses: they are on the list up to its height. (An address added is on it above the tip.)
						const patched = emu.requests.slice(requestsBefore).findIndex((request) => request.method === 'PATCH' && request.path.endsWith(triggerUuid));
						const { request, when } = current.during ?? { request: 0, when: 'before' };
						const matchedBefore = mined !== undefined && !first && patched >= 0 && (when === 'before' ? request <= patched : request < patched);
						for (const address of current.addresses) {
							const now = listedAt(Infinity).has(address);
							if (now !== (current.kind === 'add')) edits.set(address, [...(edits.get(address) ?? []), { above: !now || !matchedBefore ? tip : mined!.height, listed: !now }]);
						}
						if (!mined) continue;
						if (!emu.state().blockHeights.includes(mined.height)) {
							// The edit made fewer requests than the one the block waited for: mined after it.
							emu.disarm();
							await emu.injectBlock(input(mined));
						} else seen.minedInEdits++;
						await emu.settled();
						chain.push(mined);
						tip = mined.height;
						// Every delivery of the block (the service's, and the edit's evaluation of it again), handed over in turn.
						const items = await outputs(emu.deliveries.slice(delivered).filter((report) => report.blockHeight === mined.height));
						const byId = new Map<string, Record<string, unknown>>();
						for (const item of items) {
							const twin = byId.get(String(item.eventId));
							if (twin) {
								seen.replayed++;
								// A block evaluated again comes with the same ids and the same events. The first came matched with the
								// list before the edit (its hook's name says so); evaluated again, with the edit: it names the added
								// addresses too, and none fewer.
								expect({ ...shape(item), watched: undefined }).toEqual({ ...shape(twin), watched: undefined });
								expect(item.watched).toEqual(expect.arrayContaining(twin.watched as unknown[]));
							}
							byId.set(String(item.eventId), item);
						}
						const listed = listedAt(mined.height);
						const expected = mined.transfers.filter(about(listed)).map((transfer) => ({ direction: 'apply', ...transfer, watched: watchedOf(listed, transfer) }));
						const byAmount = (a: { amount: unknown }, b: { amount: unknown }) => Number(a.amount) - Number(b.amount);
						const at = `step ${steps.indexOf(current)}, mined ${current.during!.when} request ${current.during!.request} of [${requests().join(', ')}]`;
						expect({ at, items: [...byId.values()].map(shape).sort(byAmount) }).toEqual({ at, items: expected.sort(byAmount) });
						checkApplied([...byId.values()]);
						continue;
					}
					// Reorganisations across edits too: an undo is about the addresses listed at its block's height, as its apply was.
					const depth = current.kind === 'reorg' ? Math.min(current.depth, chain.length) : 0;
					if (current.kind === 'reorg' && depth === 0) continue;
					const undone = chain.splice(chain.length - depth, depth).reverse();
					fork++;
					const next = chain.at(-1)?.height ?? 100;
					const blocks: Array<Array<[string, string]>> = current.kind === 'block' ? [current.transfers] : current.kind === 'reorg' ? current.blocks : [];
					const added = blocks.map((pairs, i) => block(next + 1 + i, pairs));
					chain.push(...added);
					const reports = current.kind === 'block' ? await emu.injectBlock(input(added[0])) : await emu.injectReorg(undone.map(input), added.map(input));
					tip = added.at(-1)!.height;
					const items = await outputs(reports);
					const itemsOf = (direction: string, blocks: typeof chain) =>
						blocks.flatMap((kept) => {
							const listed = listedAt(kept.height);
							if (direction === 'rollback' && editedSince(kept)) seen.acrossEdits++;
							return kept.transfers.filter(about(listed)).map((transfer) => ({ direction, ...transfer, watched: watchedOf(listed, transfer) }));
						});
					const expected = [...itemsOf('rollback', undone), ...itemsOf('apply', added)];
					const byAmount = (a: { amount: unknown }, b: { amount: unknown }) => Number(a.amount) - Number(b.amount);
					expect(items.map(shape).sort(byAmount)).toEqual(expected.sort(byAmount));
					// Each event once; each undo carries the id of the apply it undoes.
					if (current.kind === 'reorg') seen.reorgs++;
					for (const item of items.filter((candidate) => candidate.direction === 'rollback')) {
						expect(applied.delete(String(item.eventId))).toBe(true);
						seen.undos++;
					}
					checkApplied(items);
				}
			}),
			propertyParameters(40),
		);
		// Not a property that never met its subject: reorganisations came, and undid events about the list.
		expect(seen.reorgs).toBeGreaterThan(0);
		expect(seen.undos).toBeGreaterThan(0);
		expect(seen.acrossEdits).toBeGreaterThan(0);
		expect(seen.minedInEdits).toBeGreaterThan(0);
		expect(seen.largeEdits).toBeGreaterThan(0);
		console.log(
			`watch list sequences: ${seen.reorgs} reorganisations, ${seen.undos} undo items, ${seen.acrossEdits} blocks undone after an edit of their addresses, ${seen.minedInEdits} blocks mined inside an edit (${seen.replayed} items twice, evaluated again), ${seen.largeEdits} edits of over 1,000 addresses`,
		);
		// Edits of 1,001 addresses take a few hundred ms each; FC_RUNS_FACTOR scales the runs, and this with them.
	}, 120_000 * Math.max(1, RUNS_FACTOR));
});
