/**
 * Stacks blocks as the service delivers them, built from a short description,
 * and the event filters of a hook definition matched against them.
 *
 * Hashes are derived from the height and position when not given, so a test
 * that builds the same block twice gets the same identifiers.
 */
import { createHash } from 'node:crypto';

import type {
	ChainhookDefinition,
	StacksAmount,
	StacksBlock,
	StacksBlockMetadata,
	StacksCurrency,
	StacksEvent,
	StacksExecutionCost,
	StacksOperation,
	StacksTransaction,
	StacksTransactionMetadata,
} from '@hirosystems/chainhooks-client/schemas';
import { Type, type Static, type TProperties } from '@sinclair/typebox';

export type { DeliveryPayload, HookRecord } from './types';

export type Block = StacksBlock;
export type Transaction = StacksTransaction;
export type Operation = StacksOperation;
export type EventFilter = StacksEvent;

// ---------------------------------------------------------------------------
// Inputs (TypeBox, so the control endpoint can check what it is sent)

const Amount = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]+$' })]);
const Text = Type.String({ minLength: 1 });
const Call = {
	contractIdentifier: Type.Optional(Text),
	functionName: Type.Optional(Text),
};

function txInput<K extends string, P extends TProperties>(kind: K, properties: P) {
	return Type.Object({
		kind: Type.Literal(kind),
		sender: Text,
		fee: Type.Optional(Type.Integer({ minimum: 0 })),
		nonce: Type.Optional(Type.Integer({ minimum: 0 })),
		txid: Type.Optional(Text),
		...properties,
	});
}

export const TxInputSchema = Type.Union([
	txInput('stx_transfer', { recipient: Text, amount: Amount, memo: Type.Optional(Type.String()) }),
	txInput('stx_mint', { recipient: Text, amount: Amount, ...Call }),
	txInput('stx_burn', { amount: Amount, ...Call }),
	txInput('stx_lock', {
		amount: Amount,
		unlockHeight: Type.Optional(Type.Integer({ minimum: 0 })),
		...Call,
	}),
	txInput('ft_transfer', {
		recipient: Text,
		assetIdentifier: Text,
		amount: Amount,
		decimals: Type.Optional(Type.Integer({ minimum: 0 })),
		...Call,
	}),
	txInput('ft_mint', { recipient: Text, assetIdentifier: Text, amount: Amount, ...Call }),
	txInput('ft_burn', { assetIdentifier: Text, amount: Amount, ...Call }),
	txInput('nft_transfer', {
		recipient: Text,
		assetIdentifier: Text,
		value: Type.Integer({ minimum: 0 }),
		...Call,
	}),
	txInput('nft_mint', {
		recipient: Text,
		assetIdentifier: Text,
		value: Type.Integer({ minimum: 0 }),
		...Call,
	}),
	txInput('nft_burn', { assetIdentifier: Text, value: Type.Integer({ minimum: 0 }), ...Call }),
	txInput('contract_call', {
		contractIdentifier: Text,
		functionName: Text,
		args: Type.Optional(
			Type.Array(
				Type.Object({
					name: Type.String(),
					type: Type.String(),
					repr: Type.String(),
					hex: Type.String(),
				}),
			),
		),
	}),
	txInput('contract_deploy', {
		contractIdentifier: Text,
		sourceCode: Type.Optional(Type.String()),
	}),
	txInput('contract_log', {
		contractIdentifier: Text,
		functionName: Type.Optional(Text),
		topic: Type.Optional(Text),
		value: Type.Optional(Type.String()),
	}),
	txInput('coinbase', { altRecipient: Type.Optional(Text) }),
	txInput('tenure_change', {
		cause: Type.Optional(Type.Union([Type.Literal('block_found'), Type.Literal('extended')])),
	}),
]);

export const BlockInputSchema = Type.Object({
	height: Type.Integer({ minimum: 0 }),
	hash: Type.Optional(Text),
	parentHash: Type.Optional(Text),
	timestamp: Type.Optional(Type.Integer({ minimum: 0 })),
	transactions: Type.Array(TxInputSchema),
});

export type TxInput = Static<typeof TxInputSchema>;
export type BlockInput = Static<typeof BlockInputSchema>;
type Kind<K extends TxInput['kind']> = Extract<TxInput, { kind: K }>;

// ---------------------------------------------------------------------------
// Building

const BASE_TIMESTAMP = 1_750_000_000;
const DEFAULT_FEE = 200;
const BOOT_POX = 'ST000000000000000000002AMW42H.pox-4';
const OK_TRUE = { hex: '0x0703', repr: '(ok true)' };
const NO_COST: StacksExecutionCost = {
	read_count: 0,
	read_length: 0,
	runtime: 0,
	write_count: 0,
	write_length: 0,
};
const CALL_COST: StacksExecutionCost = {
	read_count: 5,
	read_length: 1500,
	runtime: 25000,
	write_count: 2,
	write_length: 150,
};
const STX: StacksCurrency = { symbol: 'STX', decimals: 6 };

function hash(...parts: Array<string | number>): string {
	return `0x${createHash('sha256').update(parts.join(':')).digest('hex')}`;
}

export function blockHash(height: number): string {
	return hash('block', height);
}

/** Clarity-looking hex for a value repr; not a real serialization. */
function fakeHex(repr: string): string {
	return `0x${Buffer.from(repr, 'utf8').toString('hex')}`;
}

type OpDraft = StacksOperation extends infer O
	? O extends unknown
		? Omit<O, 'operation_identifier' | 'status'>
		: never
	: never;

interface TxShape {
	type: StacksTransactionMetadata['type'];
	operations: OpDraft[];
	cost: StacksExecutionCost;
}

function amount(value: string, currency: StacksCurrency): StacksAmount {
	return { value, currency };
}

function ftCurrency(assetIdentifier: string, decimals = 6): StacksCurrency {
	return {
		symbol: assetName(assetIdentifier),
		decimals,
		metadata: { asset_identifier: assetIdentifier, token_type: 'ft' },
	};
}

function nftCurrency(assetIdentifier: string, value: number): StacksCurrency {
	return {
		symbol: assetName(assetIdentifier),
		decimals: 0,
		metadata: { asset_identifier: assetIdentifier, token_type: 'nft', value: `u${value}` },
	};
}

function assetName(assetIdentifier: string): string {
	return assetIdentifier.split('::')[1] ?? assetIdentifier;
}

function assetContract(assetIdentifier: string): string {
	return assetIdentifier.split('::')[0];
}

function transferOps(
	from: string,
	to: string,
	quantity: string,
	currency: StacksCurrency,
): OpDraft[] {
	return [
		{
			type: 'token_transfer',
			account: { address: from },
			amount: amount(`-${quantity}`, currency),
		},
		{ type: 'token_transfer', account: { address: to }, amount: amount(quantity, currency) },
	];
}

function mintOp(to: string, quantity: string, currency: StacksCurrency): OpDraft {
	return { type: 'token_mint', account: { address: to }, amount: amount(quantity, currency) };
}

function burnOp(from: string, quantity: string, currency: StacksCurrency): OpDraft {
	return {
		type: 'token_burn',
		account: { address: from },
		amount: amount(`-${quantity}`, currency),
	};
}

function callOp(
	sender: string,
	contractIdentifier: string,
	functionName: string,
	args: Kind<'contract_call'>['args'] = [],
): OpDraft {
	return {
		type: 'contract_call',
		account: { address: sender },
		metadata: { contract_identifier: contractIdentifier, function_name: functionName, args },
	};
}

/** A contract call whose effects are `effects` (token movements, logs). */
function callTx(
	input: { sender: string; contractIdentifier?: string; functionName?: string },
	defaults: { contract: string; fn: string },
	effects: OpDraft[],
): TxShape {
	const contract = input.contractIdentifier ?? defaults.contract;
	const fn = input.functionName ?? defaults.fn;
	return {
		type: 'contract_call',
		operations: [callOp(input.sender, contract, fn), ...effects],
		cost: CALL_COST,
	};
}

function shapeOf(input: TxInput): TxShape {
	const qty = 'amount' in input ? String(input.amount) : '1';
	switch (input.kind) {
		case 'stx_transfer':
			return {
				type: 'token_transfer',
				operations: transferOps(input.sender, input.recipient, qty, STX).map((op) =>
					op.type === 'token_transfer' ? { ...op, metadata: { memo: input.memo ?? null } } : op,
				),
				cost: NO_COST,
			};
		case 'stx_mint':
			return callTx(input, { contract: `${input.sender}.stx-minter`, fn: 'mint' }, [
				mintOp(input.recipient, qty, STX),
			]);
		case 'stx_burn':
			return callTx(input, { contract: `${input.sender}.stx-burner`, fn: 'burn' }, [
				burnOp(input.sender, qty, STX),
			]);
		case 'stx_lock':
			return callTx(input, { contract: BOOT_POX, fn: 'stack-stx' }, [
				{
					type: 'stx_lock',
					account: { address: input.sender },
					amount: amount(qty, STX),
					metadata: {
						unlock_height: input.unlockHeight ?? 0,
						locked_address: input.sender,
						contract_name: (input.contractIdentifier ?? BOOT_POX).split('.')[1] ?? 'pox-4',
					},
				},
			]);
		case 'ft_transfer':
		case 'ft_mint':
		case 'ft_burn':
			return ftShape(input, qty);
		case 'nft_transfer':
		case 'nft_mint':
		case 'nft_burn':
			return nftShape(input);
		case 'contract_call':
			return {
				type: 'contract_call',
				operations: [
					callOp(input.sender, input.contractIdentifier, input.functionName, input.args),
				],
				cost: CALL_COST,
			};
		case 'contract_deploy':
			return {
				type: 'contract_deploy',
				operations: [
					{
						type: 'contract_deploy',
						account: { address: input.sender },
						metadata: {
							contract_identifier: input.contractIdentifier,
							clarity_version: 3,
							...(input.sourceCode === undefined ? {} : { source_code: input.sourceCode }),
						},
					},
				],
				cost: CALL_COST,
			};
		case 'contract_log': {
			const repr = input.value ?? '(tuple (event "emulated"))';
			return callTx(input, { contract: input.contractIdentifier, fn: 'emit' }, [
				{
					type: 'contract_log',
					metadata: {
						contract_identifier: input.contractIdentifier,
						topic: input.topic ?? 'print',
						value: { hex: fakeHex(repr), repr },
					},
				},
			]);
		}
		case 'coinbase':
			return {
				type: 'coinbase',
				operations: [
					{
						type: 'coinbase',
						account: { address: input.sender },
						metadata: {
							alt_recipient: input.altRecipient ?? null,
							vrf_proof: hash('vrf', input.sender),
						},
					},
				],
				cost: NO_COST,
			};
		case 'tenure_change':
			return {
				type: 'tenure_change',
				operations: [
					{
						type: 'tenure_change',
						metadata: {
							tenure_consensus_hash: hash('tenure', input.sender).slice(0, 42),
							prev_tenure_consensus_hash: hash('prev-tenure', input.sender).slice(0, 42),
							burn_view_consensus_hash: hash('burn-view', input.sender).slice(0, 42),
							previous_tenure_end: hash('tenure-end', input.sender),
							previous_tenure_blocks: 1,
							cause: input.cause ?? 'block_found',
							pubkey_hash: hash('pubkey', input.sender).slice(0, 42),
						},
					},
				],
				cost: NO_COST,
			};
	}
}

function ftShape(
	input: Kind<'ft_transfer'> | Kind<'ft_mint'> | Kind<'ft_burn'>,
	qty: string,
): TxShape {
	const currency = ftCurrency(
		input.assetIdentifier,
		input.kind === 'ft_transfer' ? input.decimals : undefined,
	);
	const defaults = { contract: assetContract(input.assetIdentifier), fn: input.kind.slice(3) };
	if (input.kind === 'ft_transfer') {
		return callTx(input, defaults, transferOps(input.sender, input.recipient, qty, currency));
	}
	if (input.kind === 'ft_mint')
		return callTx(input, defaults, [mintOp(input.recipient, qty, currency)]);
	return callTx(input, defaults, [burnOp(input.sender, qty, currency)]);
}

function nftShape(input: Kind<'nft_transfer'> | Kind<'nft_mint'> | Kind<'nft_burn'>): TxShape {
	const currency = nftCurrency(input.assetIdentifier, input.value);
	const defaults = { contract: assetContract(input.assetIdentifier), fn: input.kind.slice(4) };
	if (input.kind === 'nft_transfer') {
		return callTx(input, defaults, transferOps(input.sender, input.recipient, '1', currency));
	}
	if (input.kind === 'nft_mint')
		return callTx(input, defaults, [mintOp(input.recipient, '1', currency)]);
	return callTx(input, defaults, [burnOp(input.sender, '1', currency)]);
}

function hasFee(type: TxShape['type']): boolean {
	return type !== 'coinbase' && type !== 'tenure_change';
}

function makeTransaction(
	input: TxInput,
	blockHashValue: string,
	index: number,
	nonce: number,
): Transaction {
	const shape = shapeOf(input);
	const fee = hasFee(shape.type) ? (input.fee ?? DEFAULT_FEE) : 0;
	const feeOps: OpDraft[] =
		fee > 0
			? [
					{
						type: 'fee',
						account: { address: input.sender },
						amount: amount(`-${fee}`, STX),
						metadata: { sponsored: false },
					},
				]
			: [];
	const operations = [...feeOps, ...shape.operations].map(
		(op, i): StacksOperation => ({ operation_identifier: { index: i }, ...op, status: 'success' }),
	);
	return {
		transaction_identifier: { hash: input.txid ?? hash('tx', blockHashValue, index) },
		operations,
		metadata: {
			type: shape.type,
			status: 'success',
			nonce,
			fee_rate: String(fee),
			sender_address: input.sender,
			sponsor_address: null,
			sponsored: false,
			position: { index, microblock_identifier: null },
			result: OK_TRUE,
			vm_error: null,
			execution_cost: shape.cost,
			canonical: true,
			microblock_canonical: true,
		},
	};
}

function totalCost(transactions: Transaction[]): StacksExecutionCost {
	const total = { ...NO_COST };
	for (const tx of transactions) {
		for (const key of Object.keys(total) as Array<keyof StacksExecutionCost>) {
			total[key] += tx.metadata.execution_cost[key];
		}
	}
	return total;
}

function blockMetadata(
	height: number,
	timestamp: number,
	transactions: Transaction[],
): StacksBlockMetadata {
	return {
		canonical: true,
		burn_block_identifier: { index: 100_000 + height, hash: hash('burn-block', height) },
		burn_block_timestamp: timestamp,
		parent_microblock_identifier: null,
		tenure_height: height,
		execution_cost: totalCost(transactions),
		tx_total_size: transactions.length * 180,
		tx_count: transactions.length,
	};
}

/** Sequential nonces per sender within the block, unless given. */
function nonces(inputs: TxInput[]): number[] {
	const next = new Map<string, number>();
	return inputs.map((input) => {
		const nonce = input.nonce ?? next.get(input.sender) ?? 0;
		next.set(input.sender, nonce + 1);
		return nonce;
	});
}

export function makeBlock(input: BlockInput): Block {
	const blockHashValue = input.hash ?? blockHash(input.height);
	const txNonces = nonces(input.transactions);
	const transactions = input.transactions.map((tx, index) =>
		makeTransaction(tx, blockHashValue, index, txNonces[index]),
	);
	const timestamp = input.timestamp ?? BASE_TIMESTAMP + input.height * 5;
	return {
		block_identifier: { index: input.height, hash: blockHashValue },
		parent_block_identifier: {
			index: Math.max(0, input.height - 1),
			hash: input.parentHash ?? blockHash(input.height - 1),
		},
		timestamp,
		transactions,
		metadata: blockMetadata(input.height, timestamp, transactions),
	};
}

export function isBlock(value: BlockInput | Block): value is Block {
	return 'block_identifier' in value;
}

export function toBlock(value: BlockInput | Block): Block {
	return isBlock(value) ? structuredClone(value) : makeBlock(value);
}

// ---------------------------------------------------------------------------
// Matching

type Token = 'stx' | 'ft' | 'nft';

/** One movement of value, with the transfer's debit and credit operations paired. */
interface AssetEvent {
	action: 'transfer' | 'mint' | 'burn' | 'lock';
	token: Token;
	asset: string | undefined;
	nftValue: string | undefined;
	sender?: string;
	receiver?: string;
}

type AmountOp = Extract<StacksOperation, { amount: StacksAmount }>;

function isAmountOp(op: StacksOperation): op is AmountOp {
	return 'amount' in op;
}

function describeAsset(op: AmountOp): Pick<AssetEvent, 'token' | 'asset' | 'nftValue'> {
	const meta = op.amount.currency.metadata;
	return {
		token: meta?.token_type ?? 'stx',
		asset: meta?.asset_identifier ?? undefined,
		nftValue: meta?.value,
	};
}

function sameAsset(a: AmountOp, b: AmountOp): boolean {
	return JSON.stringify(a.amount.currency) === JSON.stringify(b.amount.currency);
}

function isDebit(op: AmountOp): boolean {
	return op.amount.value.startsWith('-');
}

function assetEvents(tx: Transaction): AssetEvent[] {
	const ops = tx.operations.filter(isAmountOp).filter((op) => op.type !== 'fee');
	const events: AssetEvent[] = [];
	for (let i = 0; i < ops.length; i++) {
		const op = ops[i];
		const asset = describeAsset(op);
		if (op.type === 'token_mint')
			events.push({ action: 'mint', ...asset, receiver: op.account.address });
		else if (op.type === 'token_burn')
			events.push({ action: 'burn', ...asset, sender: op.account.address });
		else if (op.type === 'stx_lock')
			events.push({ action: 'lock', ...asset, sender: op.account.address });
		else if (!isDebit(op))
			events.push({ action: 'transfer', ...asset, receiver: op.account.address });
		else {
			const credit = ops[i + 1];
			const paired = credit?.type === 'token_transfer' && !isDebit(credit) && sameAsset(op, credit);
			events.push({
				action: 'transfer',
				...asset,
				sender: op.account.address,
				receiver: paired ? credit.account.address : undefined,
			});
			if (paired) i++;
		}
	}
	return events;
}

interface AssetCriteria {
	asset_identifier?: string;
	sender?: string;
	receiver?: string;
	value?: number;
}

function equalsIfGiven(wanted: string | undefined, actual: string | undefined): boolean {
	return wanted === undefined || wanted === actual;
}

function nftValueMatches(wanted: number | undefined, actual: string | undefined): boolean {
	return wanted === undefined || actual?.replace(/^u/, '') === String(wanted);
}

function hasAssetEvent(
	tx: Transaction,
	token: Token,
	action: AssetEvent['action'] | undefined,
	criteria: AssetCriteria,
): boolean {
	return assetEvents(tx).some(
		(event) =>
			event.token === token &&
			(action === undefined || event.action === action) &&
			equalsIfGiven(criteria.asset_identifier, event.asset) &&
			equalsIfGiven(criteria.sender, event.sender) &&
			equalsIfGiven(criteria.receiver, event.receiver) &&
			nftValueMatches(criteria.value, event.nftValue),
	);
}

function opsOfType<T extends StacksOperation['type']>(
	tx: Transaction,
	type: T,
): Array<Extract<StacksOperation, { type: T }>> {
	return tx.operations.filter(
		(op): op is Extract<StacksOperation, { type: T }> => op.type === type,
	);
}

function sentBy(tx: Transaction, sender: string | undefined): boolean {
	return equalsIfGiven(sender, tx.metadata.sender_address);
}

/** Does this transaction hold an event the filter asks for? Absent filter fields match anything. */
export function matchFilter(filter: EventFilter, tx: Transaction): boolean {
	switch (filter.type) {
		case 'stx_transfer':
			return hasAssetEvent(tx, 'stx', 'transfer', filter);
		case 'stx_mint':
			return hasAssetEvent(tx, 'stx', 'mint', filter);
		case 'stx_burn':
			return hasAssetEvent(tx, 'stx', 'burn', filter);
		case 'stx_event':
			return hasAssetEvent(tx, 'stx', undefined, {});
		case 'ft_transfer':
			return hasAssetEvent(tx, 'ft', 'transfer', filter);
		case 'ft_mint':
			return hasAssetEvent(tx, 'ft', 'mint', filter);
		case 'ft_burn':
			return hasAssetEvent(tx, 'ft', 'burn', filter);
		case 'ft_event':
			return hasAssetEvent(tx, 'ft', undefined, filter);
		case 'nft_transfer':
			return hasAssetEvent(tx, 'nft', 'transfer', filter);
		case 'nft_mint':
			return hasAssetEvent(tx, 'nft', 'mint', filter);
		case 'nft_burn':
			return hasAssetEvent(tx, 'nft', 'burn', filter);
		case 'nft_event':
			return hasAssetEvent(tx, 'nft', undefined, filter);
		case 'contract_deploy':
			return (
				sentBy(tx, filter.sender) &&
				opsOfType(tx, 'contract_deploy').some((op) =>
					equalsIfGiven(filter.contract_identifier, op.metadata.contract_identifier),
				)
			);
		case 'contract_call':
			return (
				sentBy(tx, filter.sender) &&
				opsOfType(tx, 'contract_call').some(
					(op) =>
						equalsIfGiven(filter.contract_identifier, op.metadata.contract_identifier) &&
						equalsIfGiven(filter.function_name, op.metadata.function_name),
				)
			);
		case 'contract_log':
			return (
				sentBy(tx, filter.sender) &&
				opsOfType(tx, 'contract_log').some((op) =>
					equalsIfGiven(filter.contract_identifier, op.metadata.contract_identifier),
				)
			);
		case 'coinbase':
			return tx.metadata.type === 'coinbase';
		case 'tenure_change':
			// The node reports extensions by what ran out (extended_runtime, ...); the filter has one `extended`.
			return opsOfType(tx, 'tenure_change').some((op) =>
				op.metadata.cause.startsWith(filter.cause),
			);
		case 'balance_change':
			return tx.operations.some((op) => isAmountOp(op) && op.account.address === filter.principal);
	}
}

/** The block's transactions that match any of the definition's event filters (they are OR-ed). */
export function matchingTransactions(
	definition: Pick<ChainhookDefinition, 'filters'>,
	block: Block,
): Transaction[] {
	const filters = definition.filters.events;
	return block.transactions.filter((tx) => filters.some((filter) => matchFilter(filter, tx)));
}
