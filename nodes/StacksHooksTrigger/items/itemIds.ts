/**
 * The stable ids of the trigger's items, built from the block's (index block) hash, which the service
 * gives every block of every fork its own of. An id is the same in every delivery of its event, transaction
 * or block in that block (re-sent, evaluated, backfilled), different for the same transaction mined in
 * another block (after a reorganisation), and a rollback item carries the id of the apply it undoes.
 */

/** A block's id: its hash. */
export const blockIdOf = (blockHash: string): string => blockHash;

/** A transaction's id in a block: `<blockHash>:<txHash>`. */
export const transactionIdOf = (blockHash: string, txHash: string): string => `${blockHash}:${txHash}`;

/**
 * An event's id: `<blockHash>:<txHash>:<index>`, the index of the event's operation in its
 * transaction. An operation without an index (the service always gives one) falls back to the event's
 * place among its transaction's events, `e<n>`.
 */
export const eventIdOf = (blockHash: string, txHash: string, operation: number | string): string => `${blockHash}:${txHash}:${operation}`;
