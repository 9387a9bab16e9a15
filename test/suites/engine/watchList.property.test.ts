/**
 * A watch list's two readings agree, for generated transactions of every kind the emulator builds,
 * lists and kinds: the hook's filters (one per address and kind, matched as the service matches them,
 * which is how the emulator decides what to deliver) and the trigger's own matching, which names
 * the listed addresses and directions on its items. An event is about exactly the listed addresses
 * some filter of theirs selects, in the direction that filter names; and through n8n-core's webhook,
 * "One Item per Event" outputs exactly the events about the list. Over random sequences of edits of
 * a watch list (the Stacks Hooks node's Add and Remove) and blocks, the trigger outputs exactly the
 * events about the addresses on the list when the block came, each once. A list matched in n8n (its hook's
 * filters select the kinds for any address, the trigger keeps the listed addresses' transactions) keeps
 * exactly the transactions one filter per address and kind would have delivered.
 */
import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import { type ChainEvent, eventMatches, type EventFilter, movedValue, transactionEvents, transactionMatches } from '../../../nodes/shared/chainEvents';
import { broadWatchFilters, knownKinds, watchFilters, type WatchKind } from '../../../nodes/shared/watchList/kinds';
import type { Delivery } from '../../../nodes/StacksHooksTrigger/delivery/shape';
import { listedTransactionsOf } from '../../../nodes/StacksHooksTrigger/watch/matchedInN8n';
import { WatchedAddresses } from '../../../nodes/StacksHooksTrigger/watch/watchedAddresses';
import { type DeliveryPayload, makeBlock } from '../../emulator';
import { testnetAddress } from '../../support/addresses';
import { ADDRESSES, txInput } from '../../support/deliveryArbitraries';
import { activateTrigger, credentialsFor, deliverToTrigger, emu, runAction, triggerParameters, useEmulator } from '../../support/engine/fixtures';
import { propertyParameters } from '../../support/properties';

useEmulator();

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

	it('outputs, over random sequences of edits and blocks, exactly the events about the list at each block, each once', async () => {
		const pool = Array.from({ length: 5 }, (_, i) => testnetAddress(i + 0x7000));
		const outsider = testnetAddress(0xffffffff);
		const party = fc.constantFrom(...pool, outsider);
		const step = fc.oneof(
			fc.record({ kind: fc.constantFrom('add' as const, 'remove' as const), addresses: fc.subarray(pool, { minLength: 1 }) }),
			fc.record({ kind: fc.constant('block' as const), transfers: fc.array(fc.tuple(party, party), { minLength: 1, maxLength: 4 }) }),
		);
		const parameters = triggerParameters({ watch: 'list', listName: 'deposits', watchFor: ['stxReceived', 'stxSent'], output: 'event' });
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
				emu.reset();
				// Deliveries to the trigger's unreachable URL fail: the property hands each to webhook() itself.
				emu.configure({ interruptAfterFailures: 1000 });
				const staticData = await activateTrigger({}, { parameters, credentials: credentialsFor(emu) });
				const listed = new Set<string>();
				let height = 100;
				for (const current of steps) {
					if (current.kind !== 'block') {
						const run = await runAction(emu, { resource: 'watchList', operation: current.kind, listName: 'deposits', address: '={{ $json.address }}' }, { items: current.addresses.map((address) => ({ address })) });
						expect(run.error).toBeUndefined();
						for (const address of current.addresses) {
							if (current.kind === 'add') listed.add(address);
							else listed.delete(address);
						}
						continue;
					}
					const expected = current.transfers
						.filter(([sender, recipient]) => listed.has(sender) || listed.has(recipient))
						.map(([sender, recipient]) => ({
							sender,
							recipient,
							watched: [
								...(listed.has(sender) ? [{ address: sender, direction: 'out' }] : []),
								...(listed.has(recipient) ? [{ address: recipient, direction: 'in' }] : []),
							],
						}));
					const reports = await emu.injectBlock({ height: ++height, transactions: current.transfers.map(([sender, recipient], i) => ({ kind: 'stx_transfer' as const, sender, recipient, amount: 1 + i })) });
					const items = [];
					for (const report of reports) {
						const result = await deliverToTrigger(report.payload, staticData, parameters);
						items.push(...(result.response.workflowData?.[0] ?? []).map((item) => item.json));
					}
					expect(items.map(({ sender, recipient, watched }) => ({ sender, recipient, watched }))).toEqual(expected);
					expect(new Set(items.map((item) => item.eventId)).size).toBe(items.length);
				}
			}),
			propertyParameters(40),
		);
	});
});
