/**
 * "One Item per Event": every event of a delivered transaction that one of the
 * trigger's own filters selects (the service's semantics, chainEvents.ts), as
 * one flat item: what happened, to which asset or contract, between whom, how
 * much, and the transaction and block it happened in. A transaction that
 * failed keeps its events, marked with `txSucceeded: false`.
 */
import type { IDataObject } from 'n8n-workflow';

import { type ChainEvent, type EventFilter, eventMatches, field, movedValue, textField, transactionEvents } from '../shared/chainEvents';
import { clarityToJson } from './clarityValue';
import type { DeliveredTransaction } from './deliveryShape';

/** The block and delivery fields every item starts with (delivery.ts). */
export interface ItemHead {
	direction: 'apply' | 'rollback';
	hookUuid: string;
	hookName: string | null;
	network: string;
	blockHeight: number;
	blockHash: string;
	blockTimestamp: number | null;
}

/** An amount in base units, without the sign the service gives debits. */
const unsigned = (value: string): string => (value.startsWith('-') ? value.slice(1) : value);

const HEX = /^0x[0-9a-fA-F]*$/;

/** A print's value as JSON: its `repr` decoded, else null. */
const decoded = (repr: string | undefined): IDataObject[string] => (repr === undefined ? null : ((clarityToJson(repr) ?? null) as IDataObject[string]));

/**
 * One item, written out as a literal of one shape: no object spread from the head, and no
 * intermediate object per event (amount, print value), which a 2,000-transaction block feels
 * (npm run bench, 2b-2e).
 */
function eventItem(head: ItemHead, tx: DeliveredTransaction, event: ChainEvent): IDataObject {
	const { operation, token } = event;
	const metadata = tx.metadata;
	const opMetadata = operation.metadata;
	// What moved: a token event's credit (else its only operation), a fee's operation.
	const movedOp = token ? (event.credit ?? operation) : event.type === 'fee' ? operation : undefined;
	const amount = movedOp === undefined ? undefined : movedValue(movedOp);
	const decimals = amount === undefined || token === 'nft' ? undefined : field(field(movedOp!.amount, 'currency'), 'decimals');
	const isPrint = event.type === 'contract_log';
	// A print's value: `{hex, repr}` when the service decoded it, else its hex.
	let value: IDataObject[string] = null;
	let valueHex: string | null = null;
	let valueRepr: string | null = null;
	if (isPrint) {
		const raw = field(opMetadata, 'value');
		if (typeof raw !== 'string') {
			const repr = textField(raw, 'repr');
			value = decoded(repr);
			valueHex = textField(raw, 'hex') ?? null;
			valueRepr = repr ?? null;
		} else if (HEX.test(raw)) valueHex = raw;
		else {
			value = decoded(raw);
			valueRepr = raw;
		}
	}
	const txStatus = textField(metadata, 'status') ?? null;
	const position = field(field(metadata, 'position'), 'index');
	const index = field(operation.operation_identifier, 'index');
	return {
		direction: head.direction,
		hookUuid: head.hookUuid,
		hookName: head.hookName,
		network: head.network,
		blockHeight: head.blockHeight,
		blockHash: head.blockHash,
		blockTimestamp: head.blockTimestamp,
		txHash: tx.transaction_identifier.hash,
		txIndex: typeof position === 'number' ? position : null,
		txType: textField(metadata, 'type') ?? null,
		txStatus,
		txSucceeded: txStatus === 'success',
		txSender: textField(metadata, 'sender_address') ?? null,
		eventType: event.type,
		operationIndex: typeof index === 'number' ? index : null,
		assetIdentifier: token === 'stx' ? 'STX' : (event.assetIdentifier ?? null),
		contractIdentifier: token ? null : (textField(opMetadata, 'contract_identifier') ?? null),
		functionName: event.type === 'contract_call' ? (textField(opMetadata, 'function_name') ?? null) : null,
		sender: token || event.type === 'fee' ? (event.sender ?? null) : (textField(metadata, 'sender_address') ?? null),
		recipient: event.receiver ?? null,
		amount: amount === undefined ? null : unsigned(amount),
		decimals: typeof decimals === 'number' ? decimals : null,
		tokenId: token === 'nft' && event.tokenValue !== undefined ? event.tokenValue.replace(/^u(\d+)$/, '$1') : null,
		topic: isPrint ? (textField(opMetadata, 'topic') ?? null) : null,
		value,
		valueHex,
		valueRepr,
	};
}

/** Appends to `items` the transaction's events that any of `filters` selects, in operation order. */
export function pushEventItems(items: IDataObject[], head: ItemHead, tx: DeliveredTransaction, filters: readonly EventFilter[]): void {
	const events = transactionEvents(tx);
	for (let e = 0; e < events.length; e++) {
		const event = events[e];
		for (let f = 0; f < filters.length; f++) {
			if (eventMatches(filters[f], event, tx)) {
				items.push(eventItem(head, tx, event));
				break;
			}
		}
	}
}
