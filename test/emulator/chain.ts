/**
 * Stacks blocks as the service delivers them, built from a short description, and the event
 * filters of a hook definition matched against them. A block built here holds everything a
 * delivery may carry (every Clarity value decoded, every enrichment); options.ts cuts each
 * delivery down to what its hook asked for.
 *
 * Hashes are derived from the height and position when not given, so a test that builds the
 * same block twice gets the same identifiers.
 */
import { createHash } from 'node:crypto';

import type {
	ChainhookDefinition,
	StacksAmount,
	StacksBlock,
	StacksCurrency,
	StacksEvent,
	StacksExecutionCost,
	StacksOperation,
	StacksTransaction,
	StacksTransactionMetadata,
} from '@hirosystems/chainhooks-client/schemas';
import { Type, type Static, type TProperties } from '@sinclair/typebox';

import { transactionMatches } from '../../nodes/shared/chainEvents';
import { clarityPair } from './clarity';

export type Block = StacksBlock;
export type Transaction = StacksTransaction;
export type Operation = StacksOperation;
export type EventFilter = StacksEvent;

// ---------------------------------------------------------------------------
// Inputs (TypeBox, so the control endpoint can check what it is sent)

const Amount = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]+$' })]);
const Count = Type.Integer({ minimum: 0 });
const Text = Type.String({ minLength: 1 });
const Call = { contractIdentifier: Type.Optional(Text), functionName: Type.Optional(Text) };

function txInput<K extends string, P extends TProperties>(kind: K, properties: P) {
	return Type.Object({
		kind: Type.Literal(kind),
		sender: Text,
		fee: Type.Optional(Count),
		nonce: Type.Optional(Count),
		txid: Type.Optional(Text),
		/** A failed transaction: its fee is paid, its other operations carry the status. Default: success. */
		status: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('abort_by_response'), Type.Literal('abort_by_post_condition')])),
		...properties,
	});
}

export const TxInputSchema = Type.Union([
	txInput('stx_transfer', { recipient: Text, amount: Amount, memo: Type.Optional(Type.String()) }),
	txInput('stx_mint', { recipient: Text, amount: Amount, ...Call }),
	txInput('stx_burn', { amount: Amount, ...Call }),
	txInput('stx_lock', { amount: Amount, unlockHeight: Type.Optional(Count), ...Call }),
	txInput('ft_transfer', { recipient: Text, assetIdentifier: Text, amount: Amount, decimals: Type.Optional(Count), ...Call }),
	txInput('ft_mint', { recipient: Text, assetIdentifier: Text, amount: Amount, ...Call }),
	txInput('ft_burn', { assetIdentifier: Text, amount: Amount, ...Call }),
	txInput('nft_transfer', { recipient: Text, assetIdentifier: Text, value: Count, ...Call }),
	txInput('nft_mint', { recipient: Text, assetIdentifier: Text, value: Count, ...Call }),
	txInput('nft_burn', { assetIdentifier: Text, value: Count, ...Call }),
	txInput('contract_call', {
		contractIdentifier: Text,
		functionName: Text,
		args: Type.Optional(Type.Array(Type.Object({ name: Type.String(), type: Type.String(), repr: Type.String(), hex: Type.String() }))),
	}),
	txInput('contract_deploy', { contractIdentifier: Text, sourceCode: Type.Optional(Type.String()) }),
	txInput('contract_log', {
		contractIdentifier: Text,
		functionName: Type.Optional(Text),
		topic: Type.Optional(Text),
		/** The printed value: its repr (`(tuple (event "mint"))`) or its binary form (`0x0c…`). */
		value: Type.Optional(Type.String()),
	}),
	txInput('coinbase', { altRecipient: Type.Optional(Text) }),
	txInput('tenure_change', { cause: Type.Optional(Type.Union([Type.Literal('block_found'), Type.Literal('extended')])) }),
]);

export const BlockInputSchema = Type.Object({
	height: Count,
	hash: Type.Optional(Text),
	parentHash: Type.Optional(Text),
	timestamp: Type.Optional(Count),
	transactions: Type.Array(TxInputSchema),
});

export type TxInput = Static<typeof TxInputSchema>;
export type BlockInput = Static<typeof BlockInputSchema>;

// ---------------------------------------------------------------------------
// Building

const BASE_TIMESTAMP = 1_750_000_000;
const DEFAULT_FEE = 200;
const BOOT_POX = 'ST000000000000000000002AMW42H.pox-4';
const NO_COST: StacksExecutionCost = { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 };
const CALL_COST: StacksExecutionCost = { read_count: 5, read_length: 1500, runtime: 25000, write_count: 2, write_length: 150 };
const STX: StacksCurrency = { symbol: 'STX', decimals: 6 };
const OK_TRUE = clarityPair('(ok true)');
const ERR_U1 = clarityPair('(err u1)');
const EMPTY_ABI = JSON.stringify({ functions: [], variables: [], maps: [], fungible_tokens: [], non_fungible_tokens: [] });

function hash(...parts: Array<string | number>): string {
	return `0x${createHash('sha256').update(parts.join(':')).digest('hex')}`;
}

export function blockHash(height: number): string {
	return hash('block', height);
}

type OpDraft = StacksOperation extends infer O ? (O extends unknown ? Omit<O, 'operation_identifier' | 'status'> : never) : never;

interface TxShape {
	type: StacksTransactionMetadata['type'];
	operations: OpDraft[];
	cost: StacksExecutionCost;
}

const amount = (value: string, currency: StacksCurrency): StacksAmount => ({ value, currency });

function tokenCurrency(input: { kind: string; assetIdentifier: string; value?: number; decimals?: number }): StacksCurrency {
	const symbol = input.assetIdentifier.split('::')[1] ?? input.assetIdentifier;
	if (input.kind.startsWith('ft_')) {
		return { symbol, decimals: input.decimals ?? 6, metadata: { asset_identifier: input.assetIdentifier, token_type: 'ft' } };
	}
	return { symbol, decimals: 0, metadata: { asset_identifier: input.assetIdentifier, token_type: 'nft', value: `u${input.value}` } };
}

/** A debit of `from` and a credit of `to`; a mint credits `to`; a burn debits `from`. */
function movement(action: string, from: string, to: string, quantity: string, currency: StacksCurrency): OpDraft[] {
	if (action === 'mint') return [{ type: 'token_mint', account: { address: to }, amount: amount(quantity, currency) }];
	if (action === 'burn') return [{ type: 'token_burn', account: { address: from }, amount: amount(`-${quantity}`, currency) }];
	return [
		{ type: 'token_transfer', account: { address: from }, amount: amount(`-${quantity}`, currency) },
		{ type: 'token_transfer', account: { address: to }, amount: amount(quantity, currency) },
	];
}

/** A contract call (the given one, else `contract.fn`) whose effects are `effects` (token movements, logs). */
function callTx(input: { sender: string; contractIdentifier?: string; functionName?: string }, contract: string, fn: string, effects: OpDraft[] = []): TxShape {
	const metadata = { contract_identifier: input.contractIdentifier ?? contract, function_name: input.functionName ?? fn, args: [] };
	return { type: 'contract_call', operations: [{ type: 'contract_call', account: { address: input.sender }, metadata }, ...effects], cost: CALL_COST };
}

function shapeOf(input: TxInput): TxShape {
	const qty = 'amount' in input ? String(input.amount) : '1';
	const recipient = 'recipient' in input ? input.recipient : '';
	switch (input.kind) {
		case 'stx_transfer': {
			const operations = movement('transfer', input.sender, input.recipient, qty, STX).map((op) => ({ ...op, metadata: { memo: input.memo ?? null } }) as OpDraft);
			return { type: 'token_transfer', operations, cost: NO_COST };
		}
		case 'stx_mint':
		case 'stx_burn': {
			const action = input.kind.slice(4);
			return callTx(input, `${input.sender}.stx-${action === 'mint' ? 'minter' : 'burner'}`, action, movement(action, input.sender, recipient, qty, STX));
		}
		case 'stx_lock': {
			const metadata = {
				unlock_height: input.unlockHeight ?? 0,
				locked_address: input.sender,
				contract_name: (input.contractIdentifier ?? BOOT_POX).split('.')[1] ?? 'pox-4',
			};
			return callTx(input, BOOT_POX, 'stack-stx', [{ type: 'stx_lock', account: { address: input.sender }, amount: amount(qty, STX), metadata }]);
		}
		case 'ft_transfer':
		case 'ft_mint':
		case 'ft_burn':
		case 'nft_transfer':
		case 'nft_mint':
		case 'nft_burn': {
			const action = input.kind.split('_')[1];
			const quantity = input.kind.startsWith('nft_') ? '1' : qty;
			const effects = movement(action, input.sender, recipient, quantity, tokenCurrency(input));
			return callTx(input, input.assetIdentifier.split('::')[0], action, effects);
		}
		case 'contract_call': {
			const metadata = { contract_identifier: input.contractIdentifier, function_name: input.functionName, args: input.args ?? [] };
			return { type: 'contract_call', operations: [{ type: 'contract_call', account: { address: input.sender }, metadata }], cost: CALL_COST };
		}
		case 'contract_deploy': {
			const metadata = {
				contract_identifier: input.contractIdentifier,
				clarity_version: 3,
				source_code: input.sourceCode ?? ';; emulated\n',
				abi: EMPTY_ABI,
			};
			return { type: 'contract_deploy', operations: [{ type: 'contract_deploy', account: { address: input.sender }, metadata }], cost: CALL_COST };
		}
		case 'contract_log': {
			const value = clarityPair(input.value ?? '(tuple (event "emulated"))');
			const log: OpDraft = { type: 'contract_log', metadata: { contract_identifier: input.contractIdentifier, topic: input.topic ?? 'print', value } };
			return callTx(input, input.contractIdentifier, 'emit', [log]);
		}
		case 'coinbase': {
			const metadata = { alt_recipient: input.altRecipient ?? null, vrf_proof: hash('vrf', input.sender) };
			return { type: 'coinbase', operations: [{ type: 'coinbase', account: { address: input.sender }, metadata }], cost: NO_COST };
		}
		case 'tenure_change': {
			const short = (label: string) => hash(label, input.sender).slice(0, 42);
			const metadata = {
				tenure_consensus_hash: short('tenure'),
				prev_tenure_consensus_hash: short('prev-tenure'),
				burn_view_consensus_hash: short('burn-view'),
				previous_tenure_end: hash('tenure-end', input.sender),
				previous_tenure_blocks: 1,
				cause: input.cause ?? 'block_found',
				pubkey_hash: short('pubkey'),
			};
			return { type: 'tenure_change', operations: [{ type: 'tenure_change', metadata }], cost: NO_COST };
		}
	}
}

function makeTransaction(input: TxInput, blockHashValue: string, index: number, nonce: number): Transaction {
	const shape = shapeOf(input);
	const fee = shape.type === 'coinbase' || shape.type === 'tenure_change' ? 0 : (input.fee ?? DEFAULT_FEE);
	const feeOps: OpDraft[] = fee > 0 ? [{ type: 'fee', account: { address: input.sender }, amount: amount(`-${fee}`, STX), metadata: { sponsored: false } }] : [];
	const status = input.status ?? 'success';
	const operations = [
		...feeOps.map((op) => ({ ...op, status: 'success' as const })),
		...shape.operations.map((op) => ({ ...op, status })),
	].map((op, i) => ({ operation_identifier: { index: i }, ...op }) as StacksOperation);
	return {
		transaction_identifier: { hash: input.txid ?? hash('tx', blockHashValue, index) },
		operations,
		metadata: {
			type: shape.type,
			status,
			nonce,
			fee_rate: String(fee),
			sender_address: input.sender,
			sponsor_address: null,
			sponsored: false,
			position: { index, microblock_identifier: null },
			result: status === 'success' ? OK_TRUE : ERR_U1,
			vm_error: null,
			execution_cost: shape.cost,
			canonical: true,
			microblock_canonical: true,
			post_conditions: { mode: 'allow', post_conditions: [] },
		},
	};
}

export function makeBlock(input: BlockInput): Block {
	const { height } = input;
	const blockHashValue = input.hash ?? blockHash(height);
	// Sequential nonces per sender within the block, unless given.
	const nextNonce = new Map<string, number>();
	const transactions = input.transactions.map((tx, index) => {
		const nonce = tx.nonce ?? nextNonce.get(tx.sender) ?? 0;
		nextNonce.set(tx.sender, nonce + 1);
		return makeTransaction(tx, blockHashValue, index, nonce);
	});
	const executionCost = { ...NO_COST };
	for (const tx of transactions) {
		for (const key of Object.keys(executionCost) as Array<keyof StacksExecutionCost>) executionCost[key] += tx.metadata.execution_cost[key];
	}
	const timestamp = input.timestamp ?? BASE_TIMESTAMP + height * 5;
	return {
		block_identifier: { index: height, hash: blockHashValue },
		parent_block_identifier: { index: Math.max(0, height - 1), hash: input.parentHash ?? blockHash(height - 1) },
		timestamp,
		transactions,
		metadata: {
			canonical: true,
			burn_block_identifier: { index: 100_000 + height, hash: hash('burn-block', height) },
			burn_block_timestamp: timestamp,
			parent_microblock_identifier: null,
			tenure_height: height,
			execution_cost: executionCost,
			tx_total_size: transactions.length * 180,
			tx_count: transactions.length,
			signatures: { signer_bitvec: `0x${height.toString(16).padStart(8, '0')}`, signer_signatures: [hash('signature', height)] },
		},
	};
}

export function isBlock(value: BlockInput | Block): value is Block {
	return 'block_identifier' in value;
}

export function toBlock(value: BlockInput | Block): Block {
	return isBlock(value) ? structuredClone(value) : makeBlock(value);
}

// ---------------------------------------------------------------------------
// Matching: the service's filter semantics, shared with the trigger's "One Item per Event" output.

/** The block's transactions that match any of the definition's event filters (they are OR-ed). */
export function matchingTransactions(definition: Pick<ChainhookDefinition, 'filters'>, block: Block): Transaction[] {
	return block.transactions.filter((tx) => transactionMatches(definition.filters.events, tx));
}
