/**
 * "One Item per Event": every event of a delivered transaction that one of the
 * trigger's own filters selects (the service's semantics, chainEvents.ts), as
 * one flat item: what happened, to which asset or contract, between whom, how
 * much, and the transaction and block it happened in. A transaction that
 * failed keeps its events, marked with `txSucceeded: false`.
 */
import type { IDataObject } from 'n8n-workflow';

import { anyFilterMatches, asRecord, type ChainEvent, movedValue, printingFunction, textOf, transactionEvents } from '../../shared/chainEvents';
import { readArguments, readSentValue } from '../../shared/clarity/sent';
import { eventIdOf } from './itemIds';
import type { DeliveredTransaction } from '../../shared/delivery';
import type { Watching } from '../watch/watching';

/** The block and delivery fields every item starts with (deliveryItems.ts). */
export interface ItemHead {
	direction: 'apply' | 'rollback';
	hookUuid: string;
	hookName: string | null;
	network: string;
	blockHeight: number;
	blockHash: string;
	/** Seconds since 1970 (the service's milliseconds are turned into seconds: deliveryItems.ts). */
	blockTimestamp: number | null;
	/** The same instant in ISO 8601, UTC: `2025-09-15T23:01:49.000Z`. */
	blockTime: string | null;
}

/** An amount in base units, without the sign the service gives debits. */
const unsigned = (value: string): string => (value.startsWith('-') ? value.slice(1) : value);

/**
 * One item, written out as a literal of one shape: no object spread from the head, no
 * intermediate object per event (amount, print value), and fields read by name, which a
 * 2,000-transaction block feels (npm run bench, 2b-2e).
 */
function eventItem(head: ItemHead, tx: DeliveredTransaction, event: ChainEvent, ordinal: number): IDataObject {
	const { operation, token } = event;
	const metadata = asRecord(tx.metadata);
	const opMetadata = asRecord(operation.metadata);
	// What moved: a token event's credit (else its only operation), a fee's operation.
	const movedOp = token ? (event.credit ?? operation) : event.type === 'fee' ? operation : undefined;
	const amount = movedOp === undefined ? undefined : movedValue(movedOp);
	// movedValue() found the amount and its currency objects.
	const decimals = amount === undefined || token === 'nft' ? undefined : ((movedOp!.amount as IDataObject).currency as IDataObject).decimals;
	const isPrint = event.type === 'contract_log';
	// A print's value, in whichever encoding it came (clarity/sent.ts).
	const printed = isPrint ? readSentValue(opMetadata?.value) : undefined;
	const txStatus = textOf(metadata?.status) ?? null;
	const position = asRecord(metadata?.position)?.index;
	const index = asRecord(operation.operation_identifier)?.index;
	const txSender = textOf(metadata?.sender_address) ?? null;
	const txHash = tx.transaction_identifier.hash;
	// The event's own fields first: they are what a workflow maps, and what n8n's table shows first.
	return {
		eventId: eventIdOf(head.blockHash, txHash, typeof index === 'number' ? index : `e${ordinal}`),
		eventType: event.type,
		assetIdentifier: token === 'stx' ? 'STX' : (event.assetIdentifier ?? null),
		contractIdentifier: token ? null : (textOf(opMetadata?.contract_identifier) ?? null),
		functionName: event.type === 'contract_call' ? (textOf(opMetadata?.function_name) ?? null) : isPrint ? printingFunction(tx) : null,
		sender: token || event.type === 'fee' ? (event.sender ?? null) : txSender,
		recipient: event.receiver ?? null,
		amount: amount === undefined ? null : unsigned(amount),
		decimals: typeof decimals === 'number' ? decimals : null,
		tokenId: token === 'nft' ? (event.tokenId ?? null) : null,
		args: event.type === 'contract_call' ? (readArguments(opMetadata?.args) as IDataObject[] | null) : null,
		topic: isPrint ? (textOf(opMetadata?.topic) ?? null) : null,
		value: (printed?.json ?? null) as IDataObject[string],
		valueHex: printed?.hex ?? null,
		valueRepr: printed?.repr ?? null,
		operationIndex: typeof index === 'number' ? index : null,
		txHash,
		txIndex: typeof position === 'number' ? position : null,
		txType: textOf(metadata?.type) ?? null,
		txStatus,
		txSucceeded: txStatus === 'success',
		txSender,
		blockHeight: head.blockHeight,
		blockHash: head.blockHash,
		blockTimestamp: head.blockTimestamp,
		blockTime: head.blockTime,
		direction: head.direction,
		hookUuid: head.hookUuid,
		hookName: head.hookName,
		network: head.network,
	};
}

/**
 * Appends to `items` the transaction's events that the trigger watches, in operation order: those any of its
 * filters selects or, for a watch list, those about a listed address, each item naming them (`watched`).
 */
export function pushEventItems(items: IDataObject[], head: ItemHead, tx: DeliveredTransaction, { filters, list }: Watching): void {
	const events = transactionEvents(tx);
	for (let e = 0; e < events.length; e++) {
		const event = events[e];
		const watched = list?.of(event, tx);
		if (watched ? watched.length === 0 : !anyFilterMatches(filters, event, tx)) continue;
		const item = eventItem(head, tx, event, e);
		if (watched) item.watched = watched as unknown as IDataObject[];
		items.push(item);
	}
}
