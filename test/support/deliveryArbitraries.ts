/**
 * Deliveries as the service sends them, generated: blocks built by the emulator's block builder
 * (which follows the official schema) from generated transactions of every kind it knows, with
 * rollbacks, empty blocks, 0 to 2,000 transactions, Unicode text and unknown extra fields added
 * anywhere; and mutations of them, each breaking one part the trigger reads.
 */
import { Cl } from '@stacks/transactions';
import fc from 'fast-check';

import { asTheHookAsks, type Block, type DeliveryPayload, makeBlock, type TxInput } from '../emulator';
import { clarityValue } from './clarity';

export const ADDRESSES = ['ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM', 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG', 'SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7'];
const CONTRACT = 'SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.token-alex';
const ASSET = `${CONTRACT}::alex`;

const address = fc.constantFrom(...ADDRESSES);
/** A print's value, as the emulator takes it: a generated Clarity value's binary form. */
const printedHex = clarityValue.map(({ cv }) => `0x${Cl.serialize(cv)}`);
const unicode = fc.string({ unit: 'grapheme', maxLength: 24 });
const amount = fc.oneof(fc.nat({ max: 1_000_000_000 }), fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String));

/** One transaction of each kind the emulator knows (the 15 kinds of its TxInputSchema). */
export const txInput: fc.Arbitrary<TxInput> = fc.oneof(
	fc.record({ kind: fc.constant('stx_transfer' as const), sender: address, recipient: address, amount, memo: fc.option(unicode, { nil: undefined }) }),
	fc.record({ kind: fc.constant('stx_mint' as const), sender: address, recipient: address, amount }),
	fc.record({ kind: fc.constant('stx_burn' as const), sender: address, amount }),
	fc.record({ kind: fc.constant('stx_lock' as const), sender: address, amount }),
	fc.record({ kind: fc.constant('ft_transfer' as const), sender: address, recipient: address, assetIdentifier: fc.constant(ASSET), amount }),
	fc.record({ kind: fc.constant('ft_mint' as const), sender: address, recipient: address, assetIdentifier: fc.constant(ASSET), amount }),
	fc.record({ kind: fc.constant('ft_burn' as const), sender: address, assetIdentifier: fc.constant(ASSET), amount }),
	fc.record({ kind: fc.constant('nft_transfer' as const), sender: address, recipient: address, assetIdentifier: fc.constant(ASSET), value: fc.nat() }),
	fc.record({ kind: fc.constant('nft_mint' as const), sender: address, recipient: address, assetIdentifier: fc.constant(ASSET), value: fc.nat() }),
	fc.record({ kind: fc.constant('nft_burn' as const), sender: address, assetIdentifier: fc.constant(ASSET), value: fc.nat() }),
	fc.record({ kind: fc.constant('contract_call' as const), sender: address, contractIdentifier: fc.constant(CONTRACT), functionName: fc.constantFrom('swap', 'transfer', 'mint') }),
	fc.record({ kind: fc.constant('contract_deploy' as const), sender: address, contractIdentifier: fc.constant(CONTRACT), sourceCode: fc.option(unicode, { nil: undefined }) }),
	fc.record({ kind: fc.constant('contract_log' as const), sender: address, contractIdentifier: fc.constant(CONTRACT), value: fc.option(printedHex, { nil: undefined }) }),
	fc.record({ kind: fc.constant('coinbase' as const), sender: address }),
	fc.record({ kind: fc.constant('tenure_change' as const), sender: address, cause: fc.constantFrom('block_found' as const, 'extended' as const) }),
);

/** Mostly small blocks, some empty, some up to 2,000 transactions (a few generated ones repeated, so generation stays cheap). */
const transactions = fc.oneof(
	{ weight: 30, arbitrary: fc.array(txInput, { maxLength: 6 }) },
	{
		weight: 1,
		arbitrary: fc.tuple(fc.array(txInput, { minLength: 1, maxLength: 4 }), fc.integer({ min: 7, max: 2000 })).map(([pattern, count]) =>
			Array.from({ length: count }, (_, i) => pattern[i % pattern.length]),
		),
	},
);

/** Block times in seconds (as Hiro's docs show them), and some in milliseconds (as another public serializer writes them). */
const timestamp = fc.oneof(
	{ weight: 3, arbitrary: fc.constant(undefined) },
	{ weight: 1, arbitrary: fc.integer({ min: 1_600_000_000, max: 2_100_000_000 }) },
	{ weight: 1, arbitrary: fc.integer({ min: 1_600_000_000_000, max: 2_100_000_000_000 }) },
);

const block = fc.record({ height: fc.nat({ max: 10_000_000 }), timestamp, transactions }).map((input) => makeBlock(input));

const extraKey = fc.string({ minLength: 1, maxLength: 12 }).map((key) => `x_${key}`);

/** Unknown fields added at random places: (which object, by position in a walk of the payload; key; value). */
const extras = fc.array(fc.tuple(fc.nat(), extraKey, fc.jsonValue({ maxDepth: 2 })), { maxLength: 4 });

/** The first `limit` plain objects of the payload, in a fixed walk order. */
function objectsOf(value: unknown, limit: number, found: Array<Record<string, unknown>> = []): Array<Record<string, unknown>> {
	if (found.length >= limit) return found;
	if (Array.isArray(value)) for (const entry of value) objectsOf(entry, limit, found);
	else if (value && typeof value === 'object') {
		found.push(value as Record<string, unknown>);
		for (const entry of Object.values(value)) objectsOf(entry, limit, found);
	}
	return found;
}

/** The options a hook may set that change what a delivery carries (Clarity values decoded or hex alone, enrichments). */
const options = fc.record(
	{
		decode_clarity_values: fc.boolean(),
		include_block_metadata: fc.boolean(),
		include_block_signatures: fc.boolean(),
		include_contract_abi: fc.boolean(),
		include_contract_source_code: fc.boolean(),
		include_post_conditions: fc.boolean(),
	},
	{ requiredKeys: [] },
);

export const delivery: fc.Arbitrary<DeliveryPayload> = fc
	.record({
		uuid: fc.uuid({ version: 4 }),
		name: fc.option(unicode, { nil: undefined }),
		network: fc.constantFrom('testnet' as const, 'mainnet' as const),
		apply: fc.array(block, { maxLength: 3 }),
		rollback: fc.oneof({ weight: 3, arbitrary: fc.constant<Block[]>([]) }, { weight: 1, arbitrary: fc.array(block, { minLength: 1, maxLength: 2 }) }),
		extras,
		options,
		nftIds: fc.constantFrom('repr' as const, 'hex' as const),
	})
	.map(({ uuid, name, network, apply: applied, rollback: undone, extras: added, options: asked, nftIds }) => {
		// As a hook with these options gets it (test/emulator/options.ts).
		const apply = applied.map((b) => asTheHookAsks(structuredClone(b), asked, nftIds));
		const rollback = undone.map((b) => asTheHookAsks(structuredClone(b), asked, nftIds));
		// Through JSON, as a delivery reaches n8n: no object shared between parts (the block builder
		// shares constants, such as the STX currency, which extras must not touch).
		const payload = JSON.parse(
			JSON.stringify({ chainhook: { uuid, ...(name === undefined ? {} : { name }) }, event: { chain: 'stacks', network, apply, rollback } }),
		) as DeliveryPayload;
		// The first few hundred objects are candidates: enough to reach blocks, transactions and operations.
		const objects = objectsOf(payload, 400);
		for (const [at, key, value] of added) objects[at % objects.length][key] = value;
		return payload;
	});

/** What a mutation puts in place of a part: values of every wrong kind. */
const junk = fc.constantFrom<unknown>(null, 0, 1.5, -1, '', 'x', true, [], {}, [1], { hash: 1 });

type Json = Record<string, unknown>;
type Mutation = { name: string; apply: (payload: Json, pick: number, value: unknown) => boolean };

const txsOf = (payload: Json) => {
	const event = payload.event as { apply: Json[]; rollback: Json[] };
	return [...event.rollback, ...event.apply].flatMap((b) => b.transactions as Json[]);
};
const blocksOf = (payload: Json) => {
	const event = payload.event as { apply: Json[]; rollback: Json[] };
	return [...event.rollback, ...event.apply];
};
const notA = (predicate: (v: unknown) => boolean) => (value: unknown) => !predicate(value);
const isList = Array.isArray;
const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown) => typeof v === 'string';
const isInteger = (v: unknown) => Number.isSafeInteger(v);

/** Replaces `holder[key]` with `value` when that makes it wrong (`bad(value)`); undefined deletes it. */
function put(holder: Json | undefined, key: string, value: unknown, bad: (value: unknown) => boolean): boolean {
	if (!holder || !bad(value)) return false;
	if (value === undefined) delete holder[key];
	else holder[key] = value;
	return true;
}

const inTx = (name: string, edit: (tx: Json, value: unknown) => boolean): Mutation => ({
	name,
	apply: (payload, pick, value) => {
		const txs = txsOf(payload);
		return txs.length > 0 && edit(txs[pick % txs.length], value);
	},
});
const inBlock = (name: string, edit: (block: Json, value: unknown) => boolean): Mutation => ({
	name,
	apply: (payload, pick, value) => {
		const blocks = blocksOf(payload);
		return blocks.length > 0 && edit(blocks[pick % blocks.length], value);
	},
});

/** Each breaks one part the trigger reads; it reports false when it could not apply to this payload or value. */
export const MUTATIONS: Mutation[] = [
	{ name: 'body is not an object', apply: () => false },
	{ name: 'no chainhook', apply: (p, _, v) => put(p, 'chainhook', v ?? undefined, notA(isObject)) },
	{ name: 'chainhook.uuid wrong', apply: (p, _, v) => put(p.chainhook as Json, 'uuid', v, notA(isText)) },
	{ name: 'chainhook.name wrong', apply: (p, _, v) => v !== undefined && put(p.chainhook as Json, 'name', v, notA(isText)) },
	{ name: 'no event', apply: (p, _, v) => put(p, 'event', v, notA(isObject)) },
	{ name: 'event.network wrong', apply: (p, _, v) => put(p.event as Json, 'network', v === '' ? 'regtest' : v, (x) => x !== 'testnet' && x !== 'mainnet') },
	{ name: 'event.apply not a list', apply: (p, _, v) => put(p.event as Json, 'apply', v, notA(isList)) },
	{ name: 'event.apply missing', apply: (p) => put(p.event as Json, 'apply', undefined, () => true) },
	{ name: 'event.rollback not a list', apply: (p, _, v) => put(p.event as Json, 'rollback', v, notA(isList)) },
	{ name: 'a block not an object', apply: (p, pick, v) => blocksOf(p).length > 0 && !isObject(v) && replaceInList(p, 'block', pick, v) },
	inBlock('block_identifier wrong', (b, v) => put(b, 'block_identifier', v, notA(isObject))),
	inBlock('block_identifier.index wrong', (b, v) => put(b.block_identifier as Json, 'index', v, notA(isInteger))),
	inBlock('block_identifier.hash wrong', (b, v) => put(b.block_identifier as Json, 'hash', v, notA(isText))),
	inBlock('transactions not a list', (b, v) => put(b, 'transactions', v, notA(isList))),
	inBlock('timestamp wrong', (b, v) => v !== undefined && put(b, 'timestamp', v, notA(isInteger))),
	{ name: 'a transaction not an object', apply: (p, pick, v) => txsOf(p).length > 0 && !isObject(v) && replaceInList(p, 'tx', pick, v) },
	inTx('transaction_identifier wrong', (tx, v) => put(tx, 'transaction_identifier', v, notA(isObject))),
	inTx('transaction_identifier missing', (tx) => put(tx, 'transaction_identifier', undefined, () => true)),
	inTx('transaction_identifier.hash wrong', (tx, v) => put(tx.transaction_identifier as Json, 'hash', v, notA(isText))),
	inTx('operations not a list', (tx, v) => put(tx, 'operations', v, notA(isList))),
	inTx('operations missing', (tx) => put(tx, 'operations', undefined, () => true)),
	inTx('an operation not an object', (tx, v) => (tx.operations as unknown[]).length > 0 && !isObject(v) && (((tx.operations as unknown[])[0] = v), true)),
	inTx('metadata not an object', (tx, v) => v !== undefined && put(tx, 'metadata', v, notA(isObject))),
	inTx('metadata.nonce wrong', (tx, v) => v !== undefined && put(tx.metadata as Json, 'nonce', v, notA(isInteger))),
	inTx('metadata.type wrong', (tx, v) => v !== undefined && put(tx.metadata as Json, 'type', v, notA(isText))),
	inTx('metadata.sender_address wrong', (tx, v) => v !== undefined && put(tx.metadata as Json, 'sender_address', v, notA(isText))),
	inTx('metadata.position wrong', (tx, v) => v !== undefined && put(tx.metadata as Json, 'position', v, notA(isObject))),
];

/** Puts `value` in place of the pick-th block or transaction in its list. */
function replaceInList(payload: Json, what: 'block' | 'tx', pick: number, value: unknown): boolean {
	const lists = what === 'block' ? [(payload.event as Json).rollback, (payload.event as Json).apply] : blocksOf(payload).map((b) => b.transactions);
	const slots = (lists as unknown[][]).flatMap((list) => list.map((_, index) => [list, index] as const));
	if (slots.length === 0) return false;
	const [list, index] = slots[pick % slots.length];
	list[index] = value;
	return true;
}

/** A valid delivery with one part the trigger reads broken; `mutation` names what was done. */
export const mutatedDelivery: fc.Arbitrary<{ body: unknown; mutation: string }> = fc
	.tuple(delivery, fc.nat(MUTATIONS.length - 1), fc.nat(), junk)
	.map(([payload, which, pick, value]) => {
		if (which === 0) return { body: isObject(value) ? 'not a delivery' : value, mutation: MUTATIONS[0].name };
		const body = structuredClone(payload) as unknown as Json;
		// Take the first mutation, from the chosen one on, that applies to this payload and value.
		for (let i = 0; i < MUTATIONS.length - 1; i++) {
			const mutation = MUTATIONS[1 + ((which - 1 + i) % (MUTATIONS.length - 1))];
			if (mutation.apply(body, pick, value)) return { body, mutation: mutation.name };
		}
		return { body: value === null ? 42 : null, mutation: MUTATIONS[0].name };
	});
