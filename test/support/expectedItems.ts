/**
 * What the README ("What an item looks like", docs/items.md) says an item holds, written from a
 * delivery's raw fields: the part every oracle of the item suites shares. The values that need
 * reading (a result, a print's value) are read by each suite with the Stacks libraries and passed in.
 */
import type { IDataObject } from 'n8n-workflow';

import type { DeliveryPayload } from '../emulator';

type DeliveredBlock = DeliveryPayload['event']['apply'][number];
type DeliveredTransaction = DeliveredBlock['transactions'][number];

/** The fields every item of a block starts with. */
export function expectedBlockFields(payload: DeliveryPayload, direction: 'apply' | 'rollback', block: DeliveredBlock) {
	return {
		direction,
		hookUuid: payload.chainhook.uuid,
		hookName: payload.chainhook.name ?? null,
		network: payload.event.network,
		blockHeight: block.block_identifier.index,
		blockHash: block.block_identifier.hash,
		// In seconds, a timestamp the service wrote in milliseconds (over 10^11) included, and the same instant in ISO 8601.
		blockTimestamp: block.timestamp >= 1e11 ? Math.floor(block.timestamp / 1000) : block.timestamp,
		blockTime: new Date(block.timestamp >= 1e11 ? block.timestamp : block.timestamp * 1000).toISOString(),
	};
}

/** One Item per Transaction's own fields; `result`: the transaction's result as JSON. */
export function expectedTransactionFields(tx: DeliveredTransaction, result: unknown): IDataObject {
	return {
		txHash: tx.transaction_identifier.hash,
		txType: tx.metadata.type,
		txStatus: tx.metadata.status,
		sender: tx.metadata.sender_address,
		fee: tx.metadata.fee_rate,
		nonce: tx.metadata.nonce,
		position: tx.metadata.position.index,
		result: result as IDataObject[string],
		operations: tx.operations as unknown as IDataObject[],
		metadata: tx.metadata as unknown as IDataObject,
	};
}

/** The fields an event item carries of its transaction. */
export function expectedEventTransactionFields(tx: DeliveredTransaction): IDataObject {
	return {
		txHash: tx.transaction_identifier.hash,
		txIndex: tx.metadata.position.index,
		txType: tx.metadata.type,
		txStatus: tx.metadata.status,
		txSucceeded: tx.metadata.status === 'success',
		txSender: tx.metadata.sender_address,
	};
}
