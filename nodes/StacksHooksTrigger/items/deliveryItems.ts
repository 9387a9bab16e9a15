/**
 * A delivery from the service turned into workflow items: one per
 * transaction (default), one per event the trigger's filters select
 * (eventItems.ts), one per block, or the whole payload. Rolled-back
 * blocks come first, as the chain undid them before applying the new ones,
 * each item marked with its direction. A watch-list trigger's items also name
 * the listed addresses they are about (`watched`, ../watch/watchedAddresses.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { readSentValue } from '../../shared/clarity/sent';
import type { DeliveredBlock, DeliveredTransaction, Delivery } from '../../shared/delivery';
import type { Watching } from '../watch/watching';
import { type ItemHead as Head, pushEventItems } from './eventItems';
import { blockIdOf, transactionIdOf } from './itemIds';

export type OutputMode = 'transaction' | 'event' | 'block' | 'delivery';
export type RollbackMode = 'include' | 'ignore';
type Direction = Head['direction'];

/** Milliseconds since 1970 from this size on: 10^11 seconds is the year 5138, 10^11 milliseconds 1973. */
const MILLISECONDS_FROM = 1e11;

/**
 * A block's time, in seconds and in ISO 8601. Hiro's docs show a block's `timestamp` in seconds
 * (1757977309); another public serializer writes milliseconds, which are told apart by their size.
 */
function blockFields(block: DeliveredBlock): Pick<Head, 'blockHeight' | 'blockHash' | 'blockTimestamp' | 'blockTime'> {
	const { timestamp } = block;
	const milliseconds = timestamp === undefined ? undefined : timestamp >= MILLISECONDS_FROM ? timestamp : timestamp * 1000;
	const time = milliseconds === undefined ? undefined : new Date(milliseconds);
	return {
		blockHeight: block.block_identifier.index,
		blockHash: block.block_identifier.hash,
		blockTimestamp: milliseconds === undefined ? null : Math.floor(milliseconds / 1000),
		blockTime: time && Number.isFinite(time.getTime()) ? time.toISOString() : null,
	};
}

function transactionItem(head: Head, tx: DeliveredTransaction): IDataObject {
	const metadata = tx.metadata ?? {};
	// The head's fields are written out, not spread: V8 builds `{ ...head, more }` property by
	// property, hundreds of times slower than a literal, which a 2,000-transaction block feels.
	return {
		transactionId: transactionIdOf(head.blockHash, tx.transaction_identifier.hash),
		direction: head.direction,
		hookUuid: head.hookUuid,
		hookName: head.hookName,
		network: head.network,
		blockHeight: head.blockHeight,
		blockHash: head.blockHash,
		blockTimestamp: head.blockTimestamp,
		blockTime: head.blockTime,
		txHash: tx.transaction_identifier.hash,
		txType: metadata.type ?? null,
		txStatus: metadata.status ?? null,
		sender: metadata.sender_address ?? null,
		fee: metadata.fee_rate ?? null,
		nonce: metadata.nonce ?? null,
		position: (metadata.position as IDataObject | undefined)?.index ?? null,
		// What the transaction returned, as JSON, whichever way the service encoded it (../../shared/clarity/sent.ts).
		result: (readSentValue(metadata.result).json ?? null) as IDataObject[string],
		operations: tx.operations,
		metadata,
	};
}

/** The blocks to report, rollbacks first, with their direction. */
function blocksOf(delivery: Delivery, rollbacks: RollbackMode): Array<[Direction, DeliveredBlock]> {
	const undone = rollbacks === 'include' ? delivery.event.rollback.map((block) => ['rollback', block] as [Direction, DeliveredBlock]) : [];
	return [...undone, ...delivery.event.apply.map((block) => ['apply', block] as [Direction, DeliveredBlock])];
}

/** `watching`: what the trigger watches; its filters select the events of output mode 'event', its list names the addresses of every item. */
export function deliveryToItems(delivery: Delivery, output: OutputMode, rollbacks: RollbackMode, watching: Watching = { filters: [] }): IDataObject[] {
	const common: Pick<Head, 'hookUuid' | 'hookName' | 'network'> = {
		hookUuid: delivery.chainhook.uuid,
		hookName: delivery.chainhook.name ?? null,
		network: delivery.event.network,
	};
	const blocks = blocksOf(delivery, rollbacks);
	if (blocks.length === 0) return [];

	if (output === 'delivery') {
		const [, last] = blocks[blocks.length - 1];
		const event = rollbacks === 'include' ? delivery.event : { ...delivery.event, rollback: [] };
		return [{ ...common, ...blockFields(last), chainhook: delivery.chainhook, event }];
	}

	const items: IDataObject[] = [];
	for (const [direction, block] of blocks) {
		const head: Head = { direction, ...common, ...blockFields(block) };
		// A watch list as it was at the block's height, applied or undone (../watch/watchedAddresses.ts).
		const list = watching.list?.at(head.blockHeight);
		if (output === 'block') {
			const item: IDataObject = {
				blockId: blockIdOf(head.blockHash),
				...head,
				parentBlockHash: block.parent_block_identifier?.hash ?? null,
				transactionCount: block.transactions.length,
				transactions: block.transactions as unknown as IDataObject[],
				metadata: block.metadata ?? {},
			};
			if (list) item.watched = list.ofTransactions(block.transactions) as unknown as IDataObject[];
			items.push(item);
		} else if (output === 'event') {
			for (const tx of block.transactions) pushEventItems(items, head, tx, { filters: watching.filters, list });
		} else {
			for (const tx of block.transactions) {
				const item = transactionItem(head, tx);
				if (list) item.watched = list.ofTransactions([tx]) as unknown as IDataObject[];
				items.push(item);
			}
		}
	}
	return items;
}
