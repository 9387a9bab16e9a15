/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Real chain data in the shape the hooks service delivers it.
 *
 * The corpus holds what a Stacks node posts to its event observers (`/new_block` bodies, one JSON
 * per line, under stacks-node/; SOURCES.md says where each comes from). This turns one such body
 * into a Chainhooks 2.0 block (`StacksBlockSchema` of @hirosystems/chainhooks-client), following
 * Hiro's "Payload anatomy" page and the official schema, and wraps blocks into a delivery.
 *
 * Transactions are read from their `raw_tx` with Hiro's decoder (stacks-encoding-native-js); the
 * transactions it does not know (Nakamoto's tenure changes and coinbases, order-independent
 * multisig) with @stacks/transactions. Events come from the node's `events`, in `event_index`
 * order; events the node marks as not committed (those of a failed transaction) are left out, as
 * the Stacks API leaves them out.
 */
import { addressFromVersionHash, addressHashModeToVersion, addressToString, deserializeTransaction, serializeCV, type ClarityValue } from '@stacks/transactions';
import * as fs from 'fs';
import * as path from 'path';
import { decodeClarityValueToRepr, decodeClarityValueToTypeName, decodeTransaction } from 'stacks-encoding-native-js';

export type Network = 'mainnet' | 'testnet';

// ---------------------------------------------------------------------------
// What the node posts (the fields read here)

export interface NodeTransaction {
	txid: string;
	tx_index: number;
	raw_tx: string;
	status: string;
	raw_result: string;
	vm_error?: string | null;
	execution_cost?: Record<string, number | string>;
}

export interface NodeEvent {
	txid: string;
	event_index: number;
	committed: boolean;
	type: string;
	[body: string]: unknown;
}

export interface NodeBlock {
	block_height: number;
	block_hash?: string;
	index_block_hash: string;
	parent_index_block_hash: string;
	burn_block_time: number;
	block_time?: number | null;
	transactions: NodeTransaction[];
	events: NodeEvent[];
}

// ---------------------------------------------------------------------------
// What the service delivers (checked against the official schema by the tests)

export interface Decoded {
	hex: string;
	repr: string;
}

export interface DecodedArg extends Decoded {
	name: string;
	type: string;
}

export interface Currency {
	symbol: string;
	decimals: number;
	metadata?: { token_type: 'ft' | 'nft'; asset_identifier: string; value?: string | number };
}

export interface Operation {
	operation_identifier: { index: number };
	type: string;
	status: string;
	account?: { address: string };
	amount?: { value: string; currency: Currency };
	related_operations?: Array<{ index: number }>;
	metadata?: Record<string, unknown>;
}

export interface DeliveredTransaction {
	transaction_identifier: { hash: string };
	operations: Operation[];
	metadata: {
		type: string;
		status: string;
		nonce: number;
		fee_rate: string;
		sender_address: string;
		sponsor_address: string | null;
		sponsored: boolean;
		position: { index: number; microblock_identifier: null };
		result: string | Decoded;
		vm_error: string | null;
		execution_cost: { read_count: number; read_length: number; runtime: number; write_count: number; write_length: number };
		canonical: boolean;
		microblock_canonical: boolean;
	};
}

export interface DeliveredBlock {
	block_identifier: { index: number; hash: string };
	parent_block_identifier: { index: number; hash: string };
	timestamp: number;
	transactions: DeliveredTransaction[];
}

export interface Delivery {
	chainhook: { uuid: string; name: string };
	event: { chain: 'stacks'; network: Network; apply: DeliveredBlock[]; rollback: DeliveredBlock[] };
}

export interface ConvertOptions {
	/** false: Clarity values as their hex alone (the service's default); true: `{hex, repr}` (decode_clarity_values). */
	decoded: boolean;
	/** How an NFT's id is written in its currency's metadata: `u42`, the serialized `0x01…`, or 42 (uints only; others as the repr). */
	nftIds: 'repr' | 'hex' | 'number';
}

/** What a conversion could not carry over, counted. */
export interface ConvertStats {
	transactions: number;
	events: number;
	/** Events of failed transactions the node marks as not committed (left out). */
	uncommitted: number;
	/** Events of a type with no operation (left out), by type. */
	unmapped: Record<string, number>;
	/** Burnchain operations (`raw_tx` 0x00): no transaction to read (left out). */
	burnchainOps: number;
	/** Transactions Hiro's decoder could not read, read with @stacks/transactions. */
	readByStacksJs: number;
	/** NFT ids that are not uints, written as their repr in 'number' mode. */
	nftIdsNotNumbers: number;
	/** Transactions whose raw_tx hashes to another txid than the node's (none expected). */
	txidMismatches: number;
}

export const emptyStats = (): ConvertStats => ({
	transactions: 0,
	events: 0,
	uncommitted: 0,
	unmapped: {},
	burnchainOps: 0,
	readByStacksJs: 0,
	nftIdsNotNumbers: 0,
	txidMismatches: 0,
});

// ---------------------------------------------------------------------------
// The corpus

export const CORPUS_DIR = __dirname;

/** The corpus files of node bodies, each with the network its addresses are of. */
export const NODE_FILES: ReadonlyArray<{ name: string; network: Network }> = [
	{ name: 'mainnet-out-of-order-microblock', network: 'mainnet' },
	{ name: 'mainnet-reorg-scenario2', network: 'mainnet' },
	{ name: 'mainnet-poison-microblock', network: 'mainnet' },
	{ name: 'mainnet-reorg-scenario1', network: 'mainnet' },
	{ name: 'testnet-107605', network: 'testnet' },
	{ name: 'regtest-epoch-3-transition', network: 'testnet' },
	{ name: 'regtest-fuzzed-transactions', network: 'testnet' },
	{ name: 'regtest-pox-4-multisig', network: 'testnet' },
];

export function readNodeBlocks(name: string): NodeBlock[] {
	return fs
		.readFileSync(path.join(CORPUS_DIR, 'stacks-node', `${name}.jsonl`), 'utf8')
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((line) => JSON.parse(line) as NodeBlock);
}

// ---------------------------------------------------------------------------
// Transactions, read from raw_tx

type Payload =
	| { kind: 'token_transfer' }
	| { kind: 'contract_call'; contract: string; functionName: string; args: string[] }
	| { kind: 'contract_deploy'; contractName: string; clarityVersion: number | null }
	| { kind: 'coinbase'; altRecipient: string | null; vrfProof: string | null }
	| { kind: 'poison_microblock'; header1: string; header2: string }
	| {
			kind: 'tenure_change';
			tenureHash: string;
			previousTenureHash: string;
			burnViewHash: string;
			previousTenureEnd: string;
			previousTenureBlocks: number;
			cause: string;
			publicKeyHash: string;
	  };

interface ReadTx {
	/** The txid of raw_tx, as the reader computed it. */
	txid: string;
	sender: string;
	sponsor: string | null;
	fee: bigint;
	nonce: number;
	payload: Payload;
}

const with0x = (hex: string) => (hex.startsWith('0x') ? hex : `0x${hex}`);
const bytesHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;

/** Tenure change causes as the schema names them (stacks-core's TenureChangeCause, in order). */
const TENURE_CAUSES = ['block_found', 'extended', 'extended_runtime', 'extended_read_count', 'extended_read_length', 'extended_write_count', 'extended_write_length'];

function withHiroDecoder(rawTx: string): ReadTx {
	const tx = decodeTransaction(rawTx);
	const origin = tx.auth.origin_condition;
	const sponsor = tx.auth.type_id === 5 ? tx.auth.sponsor_condition : null;
	const p = tx.payload;
	let payload: Payload;
	switch (p.type_id) {
		case 0:
			payload = { kind: 'token_transfer' };
			break;
		case 1:
			payload = { kind: 'contract_deploy', contractName: p.contract_name, clarityVersion: null };
			break;
		case 6:
			payload = { kind: 'contract_deploy', contractName: p.contract_name, clarityVersion: p.clarity_version };
			break;
		case 2:
			payload = { kind: 'contract_call', contract: `${p.address}.${p.contract_name}`, functionName: p.function_name, args: p.function_args.map((arg) => arg.hex) };
			break;
		case 3:
			payload = { kind: 'poison_microblock', header1: with0x(p.microblock_header_1.buffer), header2: with0x(p.microblock_header_2.buffer) };
			break;
		case 4:
			payload = { kind: 'coinbase', altRecipient: null, vrfProof: null };
			break;
		case 5: {
			const r = p.recipient;
			payload = { kind: 'coinbase', altRecipient: 'contract_name' in r ? `${r.address}.${r.contract_name}` : r.address, vrfProof: null };
			break;
		}
		default:
			throw new Error(`payload type ${(p as { type_id: number }).type_id}`);
	}
	return {
		txid: with0x(tx.tx_id),
		sender: origin.signer.address,
		sponsor: sponsor ? sponsor.signer.address : null,
		fee: BigInt(sponsor ? sponsor.tx_fee : origin.tx_fee),
		nonce: Number(origin.nonce),
		payload,
	};
}

/** A principal of @stacks/transactions 7 ({type: 'address' | 'contract', value}). */
const principalText = (cv: ClarityValue): string => (cv as unknown as { value: string }).value;

function withStacksJs(rawTx: string): ReadTx {
	const tx = deserializeTransaction(rawTx.replace(/^0x/, ''));
	const network: Network = tx.transactionVersion === 0 ? 'mainnet' : 'testnet';
	const addressOf = (condition: { hashMode: number; signer: string }) =>
		addressToString(addressFromVersionHash(addressHashModeToVersion(condition.hashMode, network), condition.signer));
	const origin = tx.auth.spendingCondition;
	const sponsor = tx.auth.authType === 5 ? tx.auth.sponsorSpendingCondition : null;
	const p = tx.payload;
	let payload: Payload;
	switch (p.payloadType) {
		case 0:
			payload = { kind: 'token_transfer' };
			break;
		case 1:
			payload = { kind: 'contract_deploy', contractName: p.contractName.content, clarityVersion: null };
			break;
		case 6:
			payload = { kind: 'contract_deploy', contractName: p.contractName.content, clarityVersion: p.clarityVersion };
			break;
		case 2:
			payload = {
				kind: 'contract_call',
				contract: `${addressToString(p.contractAddress)}.${p.contractName.content}`,
				functionName: p.functionName.content,
				args: p.functionArgs.map((arg) => with0x(serializeCV(arg))),
			};
			break;
		case 4:
			payload = { kind: 'coinbase', altRecipient: null, vrfProof: null };
			break;
		case 5:
			payload = { kind: 'coinbase', altRecipient: principalText(p.recipient), vrfProof: null };
			break;
		case 8:
			payload = { kind: 'coinbase', altRecipient: p.recipient ? principalText(p.recipient) : null, vrfProof: bytesHex(p.vrfProof) };
			break;
		case 7:
			payload = {
				kind: 'tenure_change',
				tenureHash: with0x(p.tenureHash),
				previousTenureHash: with0x(p.previousTenureHash),
				burnViewHash: with0x(p.burnViewHash),
				previousTenureEnd: with0x(p.previousTenureEnd),
				previousTenureBlocks: p.previousTenureBlocks,
				cause: TENURE_CAUSES[p.cause] ?? String(p.cause),
				publicKeyHash: with0x(p.publicKeyHash),
			};
			break;
		default:
			throw new Error(`payload type ${p.payloadType}`);
	}
	return {
		txid: with0x(tx.txid()),
		sender: addressOf(origin),
		sponsor: sponsor ? addressOf(sponsor) : null,
		fee: sponsor ? sponsor.fee : origin.fee,
		nonce: Number(origin.nonce),
		payload,
	};
}

// ---------------------------------------------------------------------------
// Operations

const STX: Currency = { symbol: 'STX', decimals: 6 };
const ftCurrency = (assetIdentifier: string): Currency => ({ symbol: '', decimals: 0, metadata: { token_type: 'ft', asset_identifier: assetIdentifier } });

/** A Clarity value as the service writes it: the hex alone, or decoded. */
const clarity = (hex: string, decoded: boolean): string | Decoded => (decoded ? { hex, repr: decodeClarityValueToRepr(hex) } : hex);

/** The hex of the Clarity list of these serialized values: 0x0b, a 4-byte length, the values. */
export function clarityList(values: string[]): string {
	return `0x0b${values.length.toString(16).padStart(8, '0')}${values.map((value) => value.replace(/^0x/, '')).join('')}`;
}

function nftId(rawValue: string, options: ConvertOptions, stats: ConvertStats): string | number {
	if (options.nftIds === 'hex') return rawValue;
	const repr = decodeClarityValueToRepr(rawValue);
	if (options.nftIds === 'repr') return repr;
	const digits = /^u(\d+)$/.exec(repr)?.[1];
	if (digits !== undefined && Number.isSafeInteger(Number(digits))) return Number(digits);
	stats.nftIdsNotNumbers++;
	return repr;
}

type Body = Record<string, string>;

/** Builds a transaction's operations in order, each with the next index. */
class Operations {
	readonly list: Operation[] = [];

	constructor(private readonly status: string) {}

	add(op: Omit<Operation, 'operation_identifier' | 'status'>, status = this.status): number {
		const index = this.list.length;
		this.list.push({ operation_identifier: { index }, status, ...op });
		return index;
	}

	/** A debit on the sender, then a credit on the recipient that names the debit. */
	transfer(sender: string, recipient: string, value: string, currency: Currency): void {
		const debit = this.add({ type: 'token_transfer', account: { address: sender }, amount: { value: `-${value}`, currency } });
		this.add({ type: 'token_transfer', account: { address: recipient }, amount: { value, currency }, related_operations: [{ index: debit }] });
	}
}

/** One node event as its operations; false when no operation stands for it. */
function addEvent(ops: Operations, event: NodeEvent, tx: ReadTx, options: ConvertOptions, stats: ConvertStats): boolean {
	const body = event[event.type] as Body;
	const nft = (): Currency => ({
		symbol: '',
		decimals: 0,
		metadata: { token_type: 'nft', asset_identifier: body.asset_identifier, value: nftId(body.raw_value, options, stats) },
	});
	switch (event.type) {
		case 'stx_transfer_event':
			ops.transfer(body.sender, body.recipient, body.amount, STX);
			return true;
		case 'stx_mint_event':
			ops.add({ type: 'token_mint', account: { address: body.recipient }, amount: { value: body.amount, currency: STX } });
			return true;
		case 'stx_burn_event':
			ops.add({ type: 'token_burn', account: { address: body.sender }, amount: { value: `-${body.amount}`, currency: STX } });
			return true;
		case 'stx_lock_event': {
			// Newer nodes name the contract that locked; older ones do not: then the contract the transaction called.
			const called = tx.payload.kind === 'contract_call' ? tx.payload.contract : '';
			ops.add({
				type: 'stx_lock',
				account: { address: body.locked_address },
				amount: { value: body.locked_amount, currency: STX },
				metadata: { unlock_height: Number(body.unlock_height), locked_address: body.locked_address, contract_name: body.contract_identifier ?? called },
			});
			return true;
		}
		case 'ft_transfer_event':
			ops.transfer(body.sender, body.recipient, body.amount, ftCurrency(body.asset_identifier));
			return true;
		case 'ft_mint_event':
			ops.add({ type: 'token_mint', account: { address: body.recipient }, amount: { value: body.amount, currency: ftCurrency(body.asset_identifier) } });
			return true;
		case 'ft_burn_event':
			ops.add({ type: 'token_burn', account: { address: body.sender }, amount: { value: `-${body.amount}`, currency: ftCurrency(body.asset_identifier) } });
			return true;
		case 'nft_transfer_event': {
			const currency = nft();
			const debit = ops.add({ type: 'token_transfer', account: { address: body.sender }, amount: { value: '-1', currency } });
			ops.add({ type: 'token_transfer', account: { address: body.recipient }, amount: { value: '1', currency }, related_operations: [{ index: debit }] });
			return true;
		}
		case 'nft_mint_event':
			ops.add({ type: 'token_mint', account: { address: body.recipient }, amount: { value: '1', currency: nft() } });
			return true;
		case 'nft_burn_event':
			ops.add({ type: 'token_burn', account: { address: body.sender }, amount: { value: '-1', currency: nft() } });
			return true;
		case 'contract_event':
			ops.add({
				type: 'contract_log',
				metadata: { contract_identifier: body.contract_identifier, topic: body.topic, value: clarity(body.raw_value, options.decoded) },
			});
			return true;
		default:
			return false;
	}
}

/** The operations of the transaction's payload: its call, deploy, coinbase, tenure change, poison. */
function addPayload(ops: Operations, tx: ReadTx, decoded: boolean): void {
	const account = { address: tx.sender };
	const p = tx.payload;
	switch (p.kind) {
		case 'contract_call':
			ops.add({
				type: 'contract_call',
				account,
				metadata: {
					contract_identifier: p.contract,
					function_name: p.functionName,
					args: decoded
						? p.args.map((hex, i) => ({ hex, repr: decodeClarityValueToRepr(hex), name: `arg${i}`, type: decodeClarityValueToTypeName(hex) }))
						: clarityList(p.args),
				},
			});
			break;
		case 'contract_deploy':
			ops.add({ type: 'contract_deploy', account, metadata: { contract_identifier: `${tx.sender}.${p.contractName}`, clarity_version: p.clarityVersion } });
			break;
		case 'coinbase':
			ops.add({ type: 'coinbase', account, metadata: { alt_recipient: p.altRecipient, vrf_proof: p.vrfProof } });
			break;
		case 'tenure_change':
			ops.add({
				type: 'tenure_change',
				metadata: {
					tenure_consensus_hash: p.tenureHash,
					prev_tenure_consensus_hash: p.previousTenureHash,
					burn_view_consensus_hash: p.burnViewHash,
					previous_tenure_end: p.previousTenureEnd,
					previous_tenure_blocks: p.previousTenureBlocks,
					cause: p.cause,
					pubkey_hash: p.publicKeyHash,
				},
			});
			break;
		case 'poison_microblock':
			ops.add({ type: 'poison_microblock', account, metadata: { microblock_header_1: p.header1, microblock_header_2: p.header2 } });
			break;
		case 'token_transfer':
			// Its movement is the node's stx_transfer_event.
			break;
	}
}

const COST_FIELDS = ['read_count', 'read_length', 'runtime', 'write_count', 'write_length'] as const;

function transaction(nodeTx: NodeTransaction, events: NodeEvent[], options: ConvertOptions, stats: ConvertStats): DeliveredTransaction {
	let tx: ReadTx;
	try {
		tx = withHiroDecoder(nodeTx.raw_tx);
	} catch {
		tx = withStacksJs(nodeTx.raw_tx);
		stats.readByStacksJs++;
	}
	if (tx.txid.toLowerCase() !== nodeTx.txid.toLowerCase()) stats.txidMismatches++;
	const ops = new Operations(nodeTx.status);
	if (tx.fee > 0n) {
		ops.add(
			{ type: 'fee', account: { address: tx.sponsor ?? tx.sender }, amount: { value: `-${tx.fee}`, currency: STX }, metadata: { sponsored: tx.sponsor !== null } },
			'success',
		);
	}
	addPayload(ops, tx, options.decoded);
	for (const event of events) {
		stats.events++;
		if (!event.committed) stats.uncommitted++;
		else if (!addEvent(ops, event, tx, options, stats)) stats.unmapped[event.type] = (stats.unmapped[event.type] ?? 0) + 1;
	}
	const cost = nodeTx.execution_cost ?? {};
	return {
		transaction_identifier: { hash: nodeTx.txid },
		operations: ops.list,
		metadata: {
			type: tx.payload.kind,
			status: nodeTx.status,
			nonce: tx.nonce,
			fee_rate: String(tx.fee),
			sender_address: tx.sender,
			sponsor_address: tx.sponsor,
			sponsored: tx.sponsor !== null,
			position: { index: nodeTx.tx_index, microblock_identifier: null },
			result: clarity(nodeTx.raw_result, options.decoded),
			vm_error: nodeTx.vm_error ?? null,
			execution_cost: Object.fromEntries(COST_FIELDS.map((field) => [field, Number(cost[field] ?? 0)])) as DeliveredTransaction['metadata']['execution_cost'],
			canonical: true,
			microblock_canonical: true,
		},
	};
}

/** One node `/new_block` body as the block the service delivers. */
export function toBlock(body: NodeBlock, options: ConvertOptions, stats: ConvertStats = emptyStats()): DeliveredBlock {
	const eventsOf = new Map<string, NodeEvent[]>();
	for (const event of [...body.events].sort((a, b) => a.event_index - b.event_index)) {
		const list = eventsOf.get(event.txid) ?? [];
		list.push(event);
		eventsOf.set(event.txid, list);
	}
	const transactions: DeliveredTransaction[] = [];
	for (const nodeTx of [...body.transactions].sort((a, b) => a.tx_index - b.tx_index)) {
		if (nodeTx.raw_tx === '0x00') {
			stats.burnchainOps++;
			continue;
		}
		stats.transactions++;
		transactions.push(transaction(nodeTx, eventsOf.get(nodeTx.txid) ?? [], options, stats));
	}
	return {
		block_identifier: { index: body.block_height, hash: body.index_block_hash },
		parent_block_identifier: { index: body.block_height - 1, hash: body.parent_index_block_hash },
		timestamp: body.block_time ?? body.burn_block_time,
		transactions,
	};
}

/** Blocks wrapped as one delivery of a hook. */
export function toDelivery(
	apply: DeliveredBlock[],
	hook: { uuid: string; name: string; network: Network; rollback?: DeliveredBlock[] },
): Delivery {
	return { chainhook: { uuid: hook.uuid, name: hook.name }, event: { chain: 'stacks', network: hook.network, apply, rollback: hook.rollback ?? [] } };
}
