/**
 * "One Item per Event": every event of a delivered transaction that one of the
 * trigger's own filters selects (the service's semantics, chainEvents.ts), as
 * one flat item: what happened, to which asset or contract, between whom, how
 * much, and the transaction and block it happened in. A transaction that
 * failed keeps its events, marked with `txSucceeded: false`.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	amountOf,
	type ChainEvent,
	type EventFilter,
	eventMatches,
	field,
	textField,
	transactionEvents,
} from '../shared/chainEvents';
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

/** A print's value: `{hex, repr}` when the service decoded it, else its hex. */
function printValue(raw: unknown): { value: unknown; valueHex: string | null; valueRepr: string | null } {
	if (typeof raw === 'string') {
		if (/^0x[0-9a-fA-F]*$/.test(raw)) return { value: null, valueHex: raw, valueRepr: null };
		return { value: clarityToJson(raw) ?? null, valueHex: null, valueRepr: raw };
	}
	const repr = textField(raw, 'repr');
	return { value: repr === undefined ? null : (clarityToJson(repr) ?? null), valueHex: textField(raw, 'hex') ?? null, valueRepr: repr ?? null };
}

function eventItem(head: ItemHead, tx: DeliveredTransaction, event: ChainEvent): IDataObject {
	const { operation } = event;
	const metadata = tx.metadata ?? {};
	const opMetadata = operation.metadata;
	const moved = event.token ? amountOf(event.credit ?? operation) : event.type === 'fee' ? amountOf(operation) : undefined;
	const isPrint = event.type === 'contract_log';
	const print = isPrint ? printValue(field(opMetadata, 'value')) : undefined;
	const tokenId = event.token === 'nft' && event.tokenValue !== undefined ? event.tokenValue.replace(/^u(\d+)$/, '$1') : null;
	const txStatus = typeof metadata.status === 'string' ? metadata.status : null;
	const position = field(metadata.position, 'index');
	const index = field(operation.operation_identifier, 'index');
	// Written out as a literal (not spread from the head): a 2,000-transaction block feels the difference (npm run bench, 2b-2c).
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
		txType: typeof metadata.type === 'string' ? metadata.type : null,
		txStatus,
		txSucceeded: txStatus === 'success',
		txSender: typeof metadata.sender_address === 'string' ? metadata.sender_address : null,
		eventType: event.type,
		operationIndex: typeof index === 'number' ? index : null,
		assetIdentifier: event.token === 'stx' ? 'STX' : (event.assetIdentifier ?? null),
		contractIdentifier: event.token ? null : (textField(opMetadata, 'contract_identifier') ?? null),
		functionName: event.type === 'contract_call' ? (textField(opMetadata, 'function_name') ?? null) : null,
		sender: event.token || event.type === 'fee' ? (event.sender ?? null) : (textField(metadata, 'sender_address') ?? null),
		recipient: event.receiver ?? null,
		amount: moved ? unsigned(moved.value) : null,
		decimals: moved && typeof moved.currency.decimals === 'number' && event.token !== 'nft' ? moved.currency.decimals : null,
		tokenId,
		topic: isPrint ? (textField(opMetadata, 'topic') ?? null) : null,
		value: (print?.value ?? null) as IDataObject[string],
		valueHex: print?.valueHex ?? null,
		valueRepr: print?.valueRepr ?? null,
	};
}

/** Appends to `items` the transaction's events that any of `filters` selects, in operation order. */
export function pushEventItems(items: IDataObject[], head: ItemHead, tx: DeliveredTransaction, filters: readonly EventFilter[]): void {
	for (const event of transactionEvents(tx)) {
		for (const filter of filters) {
			if (eventMatches(filter, event, tx)) {
				items.push(eventItem(head, tx, event));
				break;
			}
		}
	}
}
