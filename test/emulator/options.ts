/**
 * What a delivery carries, by the hook's options, as Hiro's options reference says
 * (docs.hiro.so/en/tools/chainhooks/reference/options): every option defaults to false, and
 * - `decode_clarity_values` adds the repr (and the arguments' names and types) beside the hex of
 *   arguments, prints and results; without it each comes as its hex alone, and a call's
 *   arguments as the binary form of their list;
 * - `include_contract_abi` and `include_contract_source_code` add a deployment's ABI and source;
 * - `include_post_conditions` adds a transaction's post-conditions;
 * - `include_block_metadata` adds the block's metadata, and `include_block_signatures` its signers
 *   (inside the metadata, which then comes whole: the schema has no other place for them).
 * `include_raw_transactions` is taken but adds nothing: the emulator has no signed transaction to
 * show (README.md). The blocks the emulator builds hold every enrichment; this cuts each delivery
 * down to what its hook asked for. NFT ids come as reprs (`u42`, as Hiro's filter docs write them),
 * or as their binary form when the emulator is configured so (`nftIds: 'hex'`).
 */
import type { ChainhookDefinition } from '@hirosystems/chainhooks-client/schemas';

import type { Block, Operation, Transaction } from './chain';
import { listHex, reprOf, serialized } from './clarity';

export type NftIdEncoding = 'repr' | 'hex';

type Options = NonNullable<ChainhookDefinition['options']>;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A Clarity value as the hook asks for it: `{hex, repr}` when it decodes, else the hex alone. */
function clarityValue(sent: unknown, decode: boolean): unknown {
	const hex = typeof sent === 'string' ? sent : isObject(sent) && typeof sent.hex === 'string' ? sent.hex : undefined;
	if (hex === undefined) return sent;
	if (!decode) return hex;
	return isObject(sent) && typeof sent.repr === 'string' ? sent : { hex, repr: reprOf(hex) };
}

/** A call's arguments: the decoded list, or the binary form of their list. */
function callArguments(sent: unknown, decode: boolean): unknown {
	if (!Array.isArray(sent)) return sent;
	return decode ? sent : listHex(sent.map((arg) => (arg as { hex: string }).hex));
}

/** An NFT's id in the encoding the emulator is set to. */
function nftId(value: unknown, encoding: NftIdEncoding): unknown {
	return encoding === 'hex' && typeof value === 'string' && !value.startsWith('0x') ? serialized(value) : value;
}

function shapeOperation(op: Operation, options: Options, nftIds: NftIdEncoding): void {
	const decode = options.decode_clarity_values === true;
	const { metadata, amount } = op as { metadata?: Json; amount?: { currency: { metadata?: Json } } };
	if (op.type === 'contract_log' && metadata) metadata.value = clarityValue(metadata.value, decode);
	if (op.type === 'contract_call' && metadata) metadata.args = callArguments(metadata.args, decode);
	if (op.type === 'contract_deploy' && metadata) {
		if (options.include_contract_abi !== true) delete metadata.abi;
		if (options.include_contract_source_code !== true) delete metadata.source_code;
	}
	const currency = amount?.currency.metadata;
	if (currency?.token_type === 'nft' && 'value' in currency) currency.value = nftId(currency.value, nftIds);
}

function shapeTransaction(tx: Transaction, options: Options, nftIds: NftIdEncoding): void {
	const metadata = tx.metadata as unknown as Json;
	metadata.result = clarityValue(metadata.result, options.decode_clarity_values === true);
	if (options.include_post_conditions !== true) delete metadata.post_conditions;
	if (options.include_raw_transactions !== true) delete metadata.raw_tx;
	for (const op of tx.operations) shapeOperation(op, options, nftIds);
}

/** Cuts the block (a copy of the stored one: this changes it in place) down to what a delivery to this hook carries. */
export function asTheHookAsks(block: Block, options: ChainhookDefinition['options'], nftIds: NftIdEncoding): Block {
	const asked = options ?? {};
	for (const tx of block.transactions) shapeTransaction(tx, asked, nftIds);
	if (asked.include_block_metadata !== true && asked.include_block_signatures !== true) delete block.metadata;
	else if (asked.include_block_signatures !== true) delete block.metadata?.signatures;
	return block;
}
