/**
 * Whether a request body is a delivery of the service: every part the trigger
 * reads or outputs must have the shape the official `ChainhookEventSchema`
 * (`@hirosystems/chainhooks-client/schemas`) gives it, so nothing malformed
 * reaches a workflow. Required: `chainhook.uuid`, `event.network`,
 * `event.apply` and `event.rollback` lists; in each block
 * `block_identifier.index/hash` and a list of transactions; in each
 * transaction `transaction_identifier.hash` and a list of `operations`
 * (objects). Parts the items carry when present (block timestamp, parent
 * block, metadata, the transaction fields of `metadata`) must have their
 * official type; when absent the item shows null. Everything else passes
 * through untouched: the service may add fields.
 *
 * Written by hand rather than with zod: a 2,000-transaction block would make
 * zod copy every object it checks (its passthrough objects are rebuilt), while
 * this walk reads each field once and allocates nothing (npm run bench, 2b-2c).
 */
import type { IDataObject } from 'n8n-workflow';

import { type Network, NETWORK_NAMES } from './constants';

export interface DeliveredTransaction {
	transaction_identifier: { hash: string };
	operations: IDataObject[];
	metadata?: IDataObject;
}

export interface DeliveredBlock {
	block_identifier: { index: number; hash: string };
	parent_block_identifier?: { index: number; hash: string };
	timestamp?: number;
	transactions: DeliveredTransaction[];
	metadata?: IDataObject;
}

export interface Delivery {
	chainhook: { uuid: string; name?: string };
	event: { chain?: string; network: Network; apply: DeliveredBlock[]; rollback: DeliveredBlock[] };
}

export type ShapeCheck = { ok: true; delivery: Delivery } | { ok: false; problem: string };

type Json = Record<string, unknown>;

/** The first wrong part found: its path and what it should be. */
class WrongPart {
	constructor(readonly problem: string) {}
}

const kind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value);

function wrong(path: string, expected: string, value: unknown): never {
	throw new WrongPart(`${path} must be ${expected} (got ${value === undefined ? 'nothing' : kind(value)})`);
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function object(value: unknown, path: string): Json {
	if (!isObject(value)) wrong(path, 'an object', value);
	return value;
}

function list(value: unknown, path: string): unknown[] {
	if (!Array.isArray(value)) wrong(path, 'a list', value);
	return value;
}

function text(value: unknown, path: string): void {
	if (typeof value !== 'string') wrong(path, 'a string', value);
}

function integer(value: unknown, path: string): void {
	if (!Number.isSafeInteger(value)) wrong(path, 'an integer', value);
}

/** Optional parts: absent (or, where the official schema allows it, null) is fine; present must have the type. */
function optionalText(value: unknown, path: string): void {
	if (value !== undefined && typeof value !== 'string') wrong(path, 'a string', value);
}

function optionalInteger(value: unknown, path: string): void {
	if (value !== undefined && !Number.isSafeInteger(value)) wrong(path, 'an integer', value);
}

function blockIdentifier(value: unknown, path: string): void {
	const id = object(value, path);
	integer(id.index, `${path}.index`);
	text(id.hash, `${path}.hash`);
}

/** The transaction fields of `metadata` the items carry (txType, txStatus, sender, fee, nonce, position). */
function transactionMetadata(value: unknown, path: string): void {
	if (value === undefined) return;
	const metadata = object(value, path);
	optionalText(metadata.type, `${path}.type`);
	optionalText(metadata.status, `${path}.status`);
	optionalText(metadata.sender_address, `${path}.sender_address`);
	optionalText(metadata.fee_rate, `${path}.fee_rate`);
	optionalInteger(metadata.nonce, `${path}.nonce`);
	if (metadata.position !== undefined) optionalInteger(object(metadata.position, `${path}.position`).index, `${path}.position.index`);
}

function transaction(value: unknown, path: string): void {
	const tx = object(value, path);
	text(object(tx.transaction_identifier, `${path}.transaction_identifier`).hash, `${path}.transaction_identifier.hash`);
	const operations = list(tx.operations, `${path}.operations`);
	for (let i = 0; i < operations.length; i++) object(operations[i], `${path}.operations.${i}`);
	transactionMetadata(tx.metadata, `${path}.metadata`);
}

function block(value: unknown, path: string): void {
	const b = object(value, path);
	blockIdentifier(b.block_identifier, `${path}.block_identifier`);
	if (b.parent_block_identifier !== undefined) blockIdentifier(b.parent_block_identifier, `${path}.parent_block_identifier`);
	optionalInteger(b.timestamp, `${path}.timestamp`);
	if (b.metadata !== undefined) object(b.metadata, `${path}.metadata`);
	const transactions = list(b.transactions, `${path}.transactions`);
	for (let i = 0; i < transactions.length; i++) transaction(transactions[i], `${path}.transactions.${i}`);
}

function blocks(value: unknown, path: string): void {
	const all = list(value, path);
	for (let i = 0; i < all.length; i++) block(all[i], `${path}.${i}`);
}

export function checkDeliveryShape(body: unknown): ShapeCheck {
	try {
		const delivery = object(body, 'the body');
		const chainhook = object(delivery.chainhook, 'chainhook');
		text(chainhook.uuid, 'chainhook.uuid');
		optionalText(chainhook.name, 'chainhook.name');
		const event = object(delivery.event, 'event');
		optionalText(event.chain, 'event.chain');
		if (!(NETWORK_NAMES as unknown[]).includes(event.network)) wrong('event.network', `one of ${NETWORK_NAMES.join(', ')}`, event.network);
		blocks(event.apply, 'event.apply');
		blocks(event.rollback, 'event.rollback');
		return { ok: true, delivery: body as Delivery };
	} catch (error) {
		// Only WrongPart is thrown here; anything else (a body n8n could not parse into plain JSON)
		// is still no delivery, and a webhook must answer rather than fail.
		return { ok: false, problem: error instanceof WrongPart ? error.problem : 'the body could not be read' };
	}
}
