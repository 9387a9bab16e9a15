/* eslint-disable no-console -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Properties of the trigger's "One Item per Event" output, through n8n-core's webhook context,
 * over generated blocks of every event type (every transaction kind the emulator builds, failed
 * ones, contract calls with several effects, prints of generated Clarity values) and generated
 * Trigger On filters (the `events` parameter as n8n saves it, so they go through toEventFilters):
 * the items are exactly the events the service's filter semantics select, in order, each field
 * equal to its source in the raw operation, transaction and block. The test splits operations
 * into events itself, and reads the fields itself; the emulator's matcher is the oracle of which
 * events are selected.
 *
 * And of the Clarity reader behind the items' `value`: generated Clarity values printed as the
 * service prints them (Hiro's decoder, stacks-encoding-native-js, `repr_string`: the Display of
 * the Stacks node) read back as the JSON the README describes; text that is not such a value is
 * undefined.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { type ClarityJson, clarityToJson } from '../../../nodes/StacksHooksTrigger/items/clarityValue';
import { eventFilterSchema, EVENT_TYPES, toEventFilters } from '../../../nodes/shared/eventFilters';
import { type Block, checkDelivery, type DeliveryPayload, type EventFilter, makeBlock, matchingTransactions, type Transaction, type TxInput } from '../../emulator';
import { activateTrigger, deliverToTrigger, triggerParameters, useEmulator } from '../../support/engine/fixtures';
import { expectedBlockFields } from '../../support/deliveryArbitraries';
import { propertyParameters, replayHint } from '../../support/properties';

useEmulator();
jest.setTimeout(5 * 60_000);

// ---------------------------------------------------------------------------
// Clarity values, printed as the service prints them

interface Printed {
	repr: string;
	json: ClarityJson;
}

const hex = (bytes: Iterable<number>) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/** Rust's std::ascii::escape_default of one byte, as the service escapes string characters. */
function escapeDefault(byte: number): string {
	const named: Record<number, string> = { 0x09: '\\t', 0x0d: '\\r', 0x0a: '\\n', 0x5c: '\\\\', 0x27: "\\'", 0x22: '\\"' };
	if (named[byte] !== undefined) return named[byte];
	return byte >= 0x20 && byte <= 0x7e ? String.fromCharCode(byte) : `\\x${hex([byte])}`;
}

/** The UTF-8 bytes of one character. */
function utf8(char: string): number[] {
	const code = char.codePointAt(0)!;
	if (code < 0x80) return [code];
	if (code < 0x800) return [0xc0 | (code >> 6), 0x80 | (code & 0x3f)];
	if (code < 0x10000) return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
	return [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
}

/** string-ascii: every byte escaped as escape_default escapes it. */
const asciiRepr = (text: string) => `"${Array.from(text, (char) => escapeDefault(char.charCodeAt(0))).join('')}"`;
/** string-utf8: one-byte characters escaped as in ASCII, others as `\u{<their UTF-8 bytes in hex>}`. */
const utf8Repr = (text: string) =>
	`u"${Array.from(text, (char) => {
		const bytes = utf8(char);
		return bytes.length > 1 ? `\\u{${hex(bytes)}}` : escapeDefault(bytes[0]);
	}).join('')}"`;

const C32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const c32Text = (length: number) => fc.string({ unit: fc.constantFrom(...C32), minLength: length, maxLength: length });
const standardPrincipal = fc.tuple(fc.constantFrom('P', 'M', 'T', 'N'), c32Text(39)).map(([version, rest]) => `S${version}${rest}`);
const contractName = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,39}$/);
/** ClarityName, as tuple keys are. */
const tupleKey = fc.oneof(
	{ weight: 10, arbitrary: fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_!?+<>=/*-]{0,11}$/) },
	{ weight: 1, arbitrary: fc.constantFrom('-', '+', '=', '/', '*', '<', '>', '<=', '>=') },
);

/** ASCII strings hold letters, digits, punctuation and whitespace (tab, newline, form feed, return, space). */
const asciiChar = fc.oneof(
	{ weight: 1, arbitrary: fc.constantFrom('"', '\\', "'", '\t', '\n', '\r', '\f', '(', ')', ' ') },
	{ weight: 4, arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)) },
);
const utf8Char = fc.oneof(
	{ weight: 2, arbitrary: asciiChar },
	{ weight: 1, arbitrary: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)) },
	{ weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
	{ weight: 1, arbitrary: fc.constantFrom('é', '€', '😀', '中', 'ß', '\u00a0', '\u{10ffff}') },
);

const leaf: fc.Arbitrary<Printed> = fc.oneof(
	fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }).map((n) => ({ repr: `u${n}`, json: String(n) })),
	fc.bigInt({ min: -(2n ** 127n), max: 2n ** 127n - 1n }).map((n) => ({ repr: String(n), json: String(n) })),
	fc.boolean().map((b) => ({ repr: String(b), json: b })),
	fc.constant({ repr: 'none', json: null }),
	fc.uint8Array({ maxLength: 34 }).map((bytes) => ({ repr: `0x${hex(bytes)}`, json: `0x${hex(bytes)}` })),
	fc.string({ unit: asciiChar, maxLength: 24 }).map((text) => ({ repr: asciiRepr(text), json: text })),
	fc.string({ unit: utf8Char, maxLength: 16 }).map((text) => ({ repr: utf8Repr(text), json: text })),
	fc.tuple(standardPrincipal, fc.option(contractName, { nil: undefined })).map(([address, name]) => {
		const principal = name === undefined ? address : `${address}.${name}`;
		return { repr: `'${principal}`, json: principal };
	}),
);

/** A Clarity value as the service prints it, and the JSON it should read as. */
const clarityValue: fc.Arbitrary<Printed> = fc.letrec<{ value: Printed }>((tie) => ({
	value: fc.oneof(
		{ depthSize: 'small', maxDepth: 5 },
		leaf,
		tie('value').map((v) => ({ repr: `(some ${v.repr})`, json: v.json })),
		tie('value').map((v) => ({ repr: `(ok ${v.repr})`, json: { ok: v.json } })),
		tie('value').map((v) => ({ repr: `(err ${v.repr})`, json: { err: v.json } })),
		fc.array(tie('value'), { maxLength: 4 }).map((items) => ({
			repr: `(list${items.map((v) => ` ${v.repr}`).join('')})`,
			json: items.map((v) => v.json),
		})),
		fc.uniqueArray(fc.tuple(tupleKey, tie('value')), { selector: ([key]) => key, minLength: 1, maxLength: 4 }).map((entries) => {
			// A tuple's fields in the order of its BTreeMap: by the names' bytes.
			const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
			return {
				repr: `(tuple${sorted.map(([key, v]) => ` (${key} ${v.repr})`).join('')})`,
				json: Object.fromEntries(sorted.map(([key, v]) => [key, v.json])),
			};
		}),
	),
})).value;

/** Text that is not a Clarity value as the service prints one. */
const NOT_CLARITY = [
	'',
	'   ',
	'hello world',
	'null',
	'undefined',
	'1.5',
	'-',
	'u-1',
	'0xZZ',
	"'SP",
	'(tuple (a u1)',
	'(tuple (a u1)) (b u2)',
	'(tuple a u1)',
	'(list u1 u2',
	'(some u1 u2)',
	'(some)',
	'(ok)',
	'(foo u1)',
	'"unterminated',
	'u"unterminated',
	'"a" "b"',
	'u1 u2',
	')',
	'(',
	'{a: u1',
	'{"a": 1}',
];

describe('the Clarity reader (clarityToJson)', () => {
	const RUNS = 2000;

	it(`reads ${RUNS.toLocaleString('en')} generated Clarity values, printed as the service prints them, as their JSON`, () => {
		const seen = { values: 0, longest: 0, escapes: 0, extended: 0 };
		fc.assert(
			fc.property(clarityValue, ({ repr, json }) => {
				expect(clarityToJson(repr)).toEqual(json);
				// With space around it, as a field may hold it.
				expect(clarityToJson(` ${repr}\n`)).toEqual(json);
				seen.values++;
				seen.longest = Math.max(seen.longest, repr.length);
				if (/\\[x'"\\]/.test(repr)) seen.escapes++;
				if (repr.includes('\\u{')) seen.extended++;
			}),
			propertyParameters(RUNS),
		);
		console.log(
			`Clarity values: ${seen.values} read back, longest repr ${seen.longest} characters, ${seen.escapes} with escapes, ` +
				`${seen.extended} with characters beyond ASCII; ${replayHint()}`,
		);
	});

	it(`reads ${RUNS.toLocaleString('en')} printed values cut short or followed by more text as no value`, () => {
		fc.assert(
			fc.property(clarityValue, fc.constantFrom(' u1', ' x', ')', ' (ok u1)', '"'), ({ repr }, more) => {
				// A form or a string without its last character is unterminated.
				if (/[)"]$/.test(repr)) expect(clarityToJson(repr.slice(0, -1))).toBeUndefined();
				expect(clarityToJson(repr + more)).toBeUndefined();
			}),
			propertyParameters(RUNS),
		);
		console.log(`Clarity values cut short or followed by more: all undefined; ${replayHint()}`);
	});

	it.each(NOT_CLARITY.map((text) => [text]))('reads %j, which is not a Clarity value, as undefined', (text) => {
		expect(clarityToJson(text)).toBeUndefined();
	});
});

// ---------------------------------------------------------------------------
// One Item per Event, over generated blocks and filters

const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
const CAROL = 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC';
const SENDERS = [ALICE, BOB, CAROL];
/** Recipients may be contracts. */
const PRINCIPALS = [...SENDERS, `${BOB}.vault`];
const FTS = [`${BOB}.gold::gold`, `${CAROL}.silver::silver`];
const NFTS = [`${BOB}.punks::punk`, `${ALICE}.badges::badge`];
const CONTRACTS = [`${BOB}.market`, `${CAROL}.dao`];
const FUNCTIONS = ['swap', 'transfer', 'list-item'];
const NFT_IDS = [0, 1, 42];

const sender = fc.constantFrom(...SENDERS);
const recipient = fc.constantFrom(...PRINCIPALS);
const amount = fc.oneof(fc.nat({ max: 1_000_000 }), fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String));
const nftId = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...NFT_IDS) }, { weight: 1, arbitrary: fc.nat() });
const status = fc.oneof(
	{ weight: 4, arbitrary: fc.constant(undefined) },
	{ weight: 1, arbitrary: fc.constantFrom('success' as const, 'abort_by_response' as const, 'abort_by_post_condition' as const) },
);
const fee = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(0, 1, 180_000) });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
/** The call a token movement or print happens in (the emulator's default when not given). */
const call = { contractIdentifier: maybe(fc.constantFrom(...CONTRACTS)), functionName: maybe(fc.constantFrom(...FUNCTIONS)) };
const common = { sender, status, fee };

/** A print's value: a generated Clarity value, text that is not one, or the emulator's default. */
const printValue: fc.Arbitrary<Printed | undefined> = fc.oneof(
	{ weight: 4, arbitrary: clarityValue },
	{ weight: 1, arbitrary: fc.constantFrom(...NOT_CLARITY).map((repr) => ({ repr, json: null })) },
	{ weight: 1, arbitrary: fc.constant(undefined) },
);

interface GeneratedTx {
	input: TxInput;
	print?: Printed;
}

const plain = <T extends TxInput>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<GeneratedTx> => arbitrary.map((input) => ({ input }));

/** A print (three times as likely as another effect: their values are what the Clarity reader gets to read here). */
const print: fc.Arbitrary<GeneratedTx> = fc
	.record({
		kind: fc.constant('contract_log' as const),
		...common,
		contractIdentifier: fc.constantFrom(...CONTRACTS),
		functionName: maybe(fc.constantFrom(...FUNCTIONS)),
		topic: maybe(fc.constantFrom('print', 'event')),
		printed: printValue,
	})
	.map(({ printed, ...input }) => ({ input: { ...input, value: printed?.repr }, print: printed }));

/** What happens inside a call: movements of STX and tokens, and prints. */
const effect: fc.Arbitrary<GeneratedTx> = fc.oneof(
	plain(fc.record({ kind: fc.constant('stx_transfer' as const), ...common, recipient, amount })),
	plain(fc.record({ kind: fc.constant('stx_mint' as const), ...common, ...call, recipient, amount })),
	plain(fc.record({ kind: fc.constant('stx_burn' as const), ...common, ...call, amount })),
	plain(fc.record({ kind: fc.constant('stx_lock' as const), ...common, ...call, amount, unlockHeight: maybe(fc.nat({ max: 10_000 })) })),
	plain(
		fc.record({
			kind: fc.constant('ft_transfer' as const),
			...common,
			...call,
			recipient,
			assetIdentifier: fc.constantFrom(...FTS),
			amount,
			decimals: maybe(fc.nat({ max: 18 })),
		}),
	),
	plain(fc.record({ kind: fc.constant('ft_mint' as const), ...common, ...call, recipient, assetIdentifier: fc.constantFrom(...FTS), amount })),
	plain(fc.record({ kind: fc.constant('ft_burn' as const), ...common, ...call, assetIdentifier: fc.constantFrom(...FTS), amount })),
	plain(fc.record({ kind: fc.constant('nft_transfer' as const), ...common, ...call, recipient, assetIdentifier: fc.constantFrom(...NFTS), value: nftId })),
	plain(fc.record({ kind: fc.constant('nft_mint' as const), ...common, ...call, recipient, assetIdentifier: fc.constantFrom(...NFTS), value: nftId })),
	plain(fc.record({ kind: fc.constant('nft_burn' as const), ...common, ...call, assetIdentifier: fc.constantFrom(...NFTS), value: nftId })),
	print,
	print,
	print,
);

const contractCall = fc.record({
	kind: fc.constant('contract_call' as const),
	...common,
	contractIdentifier: fc.constantFrom(...CONTRACTS),
	functionName: fc.constantFrom(...FUNCTIONS),
});

/** One transaction of each of the emulator's 15 kinds. */
const single: fc.Arbitrary<GeneratedTx> = fc.oneof(
	// Weighed so that every event type reaches the output in a few hundred runs.
	{ weight: 7, arbitrary: effect },
	{ weight: 1, arbitrary: plain(contractCall) },
	{ weight: 2, arbitrary: plain(fc.record({ kind: fc.constant('contract_deploy' as const), ...common, contractIdentifier: fc.constantFrom(...CONTRACTS) })) },
	{ weight: 1, arbitrary: plain(fc.record({ kind: fc.constant('coinbase' as const), ...common })) },
	{
		weight: 2,
		arbitrary: plain(fc.record({ kind: fc.constant('tenure_change' as const), ...common, cause: maybe(fc.constantFrom('block_found' as const, 'extended' as const)) })),
	},
);

/** A transaction: one the emulator builds, or a contract call whose effects are several (built apart, then joined). */
interface GeneratedTransaction {
	parts: GeneratedTx[];
	/** Effect operations left out (by position among them, modulo their count): a debit without its credit, and so on. */
	drops: number[];
	/** An effect operation moved (from, to; modulo their count): a print between a debit and its credit, a credit first. */
	move?: [number, number];
}

/**
 * A transaction: one the emulator builds, or a contract call whose effects are several (built
 * apart, then joined), some with an effect operation left out, so that a debit is followed by
 * what is not its credit (another currency's credit, a mint, a print).
 */
const transaction: fc.Arbitrary<GeneratedTransaction> = fc.oneof(
	{ weight: 2, arbitrary: single.map((tx) => ({ parts: [tx], drops: [] })) },
	{
		weight: 1,
		arbitrary: fc
			.tuple(
				plain(contractCall),
				fc.array(effect, { minLength: 1, maxLength: 4 }),
				fc.oneof(fc.constant<number[]>([]), fc.array(fc.nat(), { minLength: 1, maxLength: 2 })),
				fc.option(fc.tuple(fc.nat(), fc.nat()), { nil: undefined }),
			)
			.map(([head, effects, drops, move]) => ({ parts: [head, ...effects], drops, move })),
	},
);

type Op = Transaction['operations'][number];

/** The block of these transactions: each built by the emulator; a multi-effect call gets its effects' operations. */
function buildBlock(height: number, hash: string, transactions: GeneratedTransaction[]): Block {
	const built = makeBlock({ height, hash, transactions: transactions.flatMap(({ parts }) => parts.map((tx) => tx.input)) });
	let next = 0;
	const joined = transactions.map(({ parts, drops, move }) => {
		const [head, ...others] = built.transactions.slice(next, next + parts.length);
		next += parts.length;
		if (others.length === 0) return head;
		const effects = others.flatMap((tx) => tx.operations.filter((op) => op.type !== 'fee' && op.type !== 'contract_call'));
		const dropped = new Set(drops.map((at) => at % effects.length));
		const kept = effects.length > dropped.size ? effects.filter((_, at) => !dropped.has(at)) : effects;
		if (move) kept.splice(move[1] % kept.length, 0, ...kept.splice(move[0] % kept.length, 1));
		const operations = [...head.operations, ...kept].map(
			(op, index) => ({ ...op, operation_identifier: { index }, status: op.type === 'fee' ? 'success' : head.metadata.status }) as Op,
		);
		return { ...head, operations };
	});
	const positioned = joined.map((tx, index) => ({ ...tx, metadata: { ...tx.metadata, position: { ...tx.metadata.position, index } } }));
	return { ...built, transactions: positioned, metadata: { ...built.metadata!, tx_count: positioned.length } };
}

interface GeneratedBlock {
	block: Block;
	prints: Printed[];
	/** Its contract calls with several effects. */
	joined: number;
}

const block: fc.Arbitrary<GeneratedBlock> = fc
	// A hash of its own: blocks of one height (a reorganisation's) are told apart by it.
	.record({ height: fc.nat({ max: 1_000_000 }), hash: fc.uint8Array({ minLength: 32, maxLength: 32 }), transactions: fc.array(transaction, { maxLength: 8 }) })
	.map(({ height, hash, transactions }) => ({
		block: buildBlock(height, `0x${hex(hash)}`, transactions),
		prints: transactions.flatMap(({ parts }) => parts.flatMap((tx) => (tx.print ? [tx.print] : []))),
		joined: transactions.filter(({ parts }) => parts.length > 1).length,
	}));

// The Trigger On filters as n8n saves them: any field may be set (toEventFilters keeps the type's), some empty or padded.
const padded = (values: readonly string[]) =>
	fc.oneof(
		{ weight: 4, arbitrary: fc.constantFrom(...values) },
		{ weight: 1, arbitrary: fc.constantFrom(...values).map((v) => ` ${v} `) },
		{ weight: 4, arbitrary: fc.constant('') },
	);
const filterEntry = fc
	.record(
		{
			// Contract Log weighs more, so that prints reach the output.
			type: fc.constantFrom(...EVENT_TYPES.map((type) => type.value), 'contract_log', 'contract_log'),
			sender: padded([...SENDERS, CONTRACTS[0]]),
			receiver: padded(PRINCIPALS),
			assetIdentifier: padded([...FTS, ...NFTS]),
			contractIdentifier: padded([...CONTRACTS, FTS[0].split('::')[0]]),
			functionName: padded([...FUNCTIONS, 'emit', 'mint', 'stack-stx']),
			value: padded(['0', '1', '42', '7']),
			cause: fc.constantFrom('block_found', 'extended'),
			principal: fc.constantFrom(...PRINCIPALS),
		},
		{ requiredKeys: ['type', 'cause', 'principal'] },
	)
	.map((entry) => entry as IDataObject);
const events = fc.array(filterEntry, { minLength: 1, maxLength: 4 }).map((filter) => ({ filter }));

const delivery = fc.record({
	uuid: fc.uuid({ version: 4 }),
	name: maybe(fc.constantFrom('payments', 'market watch')),
	network: fc.constantFrom('testnet' as const, 'mainnet' as const),
	apply: fc.array(block, { minLength: 1, maxLength: 3 }),
	rollback: fc.oneof({ weight: 3, arbitrary: fc.constant<GeneratedBlock[]>([]) }, { weight: 1, arbitrary: fc.array(block, { minLength: 1, maxLength: 2 }) }),
});

// Reading the raw delivery, independently of chainEvents.ts and eventItems.ts.

interface RawCurrency {
	symbol: string;
	decimals: number;
	metadata?: { asset_identifier: string; token_type: 'ft' | 'nft'; value?: string };
}
interface RawOp {
	type: string;
	operation_identifier: { index: number };
	account?: { address: string };
	amount?: { value: string; currency: RawCurrency };
	metadata?: Record<string, unknown> & { value?: { hex: string; repr: string } };
}

const raw = (tx: Transaction) => tx.operations as unknown as RawOp[];
const isDebit = (op: RawOp) => op.amount!.value.startsWith('-');
const sameCurrency = (a: RawOp, b: RawOp) => JSON.stringify(a.amount!.currency) === JSON.stringify(b.amount!.currency);

/**
 * The transaction's events, each as the positions of its operations: a transfer's debit and its
 * credit are one event, every other operation one of its own. The credit is the next operation
 * that moves value, fees aside, when that is a transfer into an account of the same currency.
 */
function eventsOf(tx: Transaction): number[][] {
	const ops = raw(tx);
	const found: number[][] = [];
	const credits = new Set<number>();
	ops.forEach((op, i) => {
		if (credits.has(i)) return;
		const next = op.type === 'token_transfer' && isDebit(op) ? ops.findIndex((later, j) => j > i && later.type !== 'fee' && later.amount !== undefined) : -1;
		const credit = ops[next];
		if (credit?.type === 'token_transfer' && !isDebit(credit) && sameCurrency(op, credit)) {
			credits.add(next);
			found.push([i, next]);
		} else found.push([i]);
	});
	return found;
}

const ACTIONS: Record<string, string | undefined> = { token_transfer: 'transfer', token_mint: 'mint', token_burn: 'burn', stx_lock: 'lock' };

/** The item an event must give, every field read from its source. */
function expectedItem(head: IDataObject, tx: Transaction, ops: RawOp[], prints: Map<string, ClarityJson>): IDataObject {
	const [first] = ops;
	const action = ACTIONS[first.type];
	const currency = first.amount?.currency;
	const token = action ? (currency!.metadata?.token_type ?? 'stx') : undefined;
	const debit = action === 'transfer' ? ops.find(isDebit) : undefined;
	const credit = action === 'transfer' ? ops.find((op) => !isDebit(op)) : undefined;
	const isFee = first.type === 'fee';
	const isPrint = first.type === 'contract_log';
	const print = first.metadata?.value;
	if (isPrint) expect(prints.has(print!.repr)).toBe(true);
	const metadata = tx.metadata;
	return {
		...head,
		// The contract of the id (README, "What an item looks like"), written out here on its own.
		eventId: `${head.blockHash as string}:${tx.transaction_identifier.hash}:${first.operation_identifier.index}`,
		txHash: tx.transaction_identifier.hash,
		txIndex: metadata.position.index,
		txType: metadata.type,
		txStatus: metadata.status,
		txSucceeded: metadata.status === 'success',
		txSender: metadata.sender_address,
		eventType: token ? `${token}_${action}` : first.type,
		operationIndex: first.operation_identifier.index,
		assetIdentifier: token === 'stx' ? 'STX' : token ? currency!.metadata!.asset_identifier : null,
		contractIdentifier: token ? null : ((first.metadata?.contract_identifier as string | undefined) ?? null),
		// A call's function; a print's: the function of the call in its transaction that printed it.
		functionName:
			first.type === 'contract_call'
				? (first.metadata!.function_name as string)
				: isPrint
					? ((tx.operations.find((op) => op.type === 'contract_call')?.metadata?.function_name as string | undefined) ?? null)
					: null,
		// A movement's: the debited account (none for a mint); a fee's: its payer; any other event's: the transaction's.
		sender: action === 'mint' ? null : action === 'transfer' ? (debit?.account!.address ?? null) : token || isFee ? first.account!.address : metadata.sender_address,
		recipient: action === 'mint' ? first.account!.address : (credit?.account!.address ?? null),
		amount: token || isFee ? (credit ?? first).amount!.value.replace(/^-/, '') : null,
		decimals: (token && token !== 'nft') || isFee ? currency!.decimals : null,
		tokenId: token === 'nft' ? currency!.metadata!.value!.replace(/^u/, '') : null,
		topic: isPrint ? (first.metadata!.topic as string) : null,
		value: isPrint ? (prints.get(print!.repr) as IDataObject[string]) : null,
		valueHex: isPrint ? print!.hex : null,
		valueRepr: isPrint ? print!.repr : null,
	};
}

/** The emulator's matcher on a copy of the transaction that holds only this event's operations. */
const selects = (filters: EventFilter[], block: Block, tx: Transaction, positions: number[]) =>
	matchingTransactions({ filters: { events: filters } }, { ...block, transactions: [{ ...tx, operations: positions.map((i) => tx.operations[i]) }] }).length === 1;

const EMULATED_PRINT: Printed = { repr: '(tuple (event "emulated"))', json: { event: 'emulated' } };

describe('One Item per Event', () => {
	const RUNS = 300;
	let activated: IDataObject;

	beforeAll(async () => {
		activated = await activateTrigger();
	});

	const post = (body: unknown, parameters: INodeParameters) => deliverToTrigger(body, activated, parameters);

	it(`outputs, for ${RUNS} generated deliveries and filter sets, exactly the selected events, in order, each field from its source`, async () => {
		const byType = new Map<string, number>();
		const seen = { deliveries: 0, events: 0, items: 0, failed: 0, empty: 0, multiEffect: 0, filters: 0, unpaired: 0, apart: 0 };
		await fc.assert(
			fc.asyncProperty(delivery, events, fc.constantFrom('include' as const, 'ignore' as const), async (generated, trigger, rollbacks) => {
				const prints = new Map<string, ClarityJson>([[EMULATED_PRINT.repr, EMULATED_PRINT.json]]);
				for (const print of [...generated.apply, ...generated.rollback].flatMap((b) => b.prints)) prints.set(print.repr, print.json);
				// Through JSON, as a delivery reaches n8n.
				const payload = JSON.parse(
					JSON.stringify({
						chainhook: { uuid: generated.uuid, ...(generated.name === undefined ? {} : { name: generated.name }) },
						event: { chain: 'stacks', network: generated.network, apply: generated.apply.map((b) => b.block), rollback: generated.rollback.map((b) => b.block) },
					}),
				) as DeliveryPayload;
				expect(checkDelivery(payload).errors).toEqual([]);
				// The filters the trigger registers: each one the service accepts.
				const filters = toEventFilters(trigger) as unknown as EventFilter[];
				for (const filter of filters) expect(eventFilterSchema.safeParse(filter).error).toBeUndefined();

				const blocks = [
					...(rollbacks === 'include' ? payload.event.rollback.map((b) => ['rollback', b] as const) : []),
					...payload.event.apply.map((b) => ['apply', b] as const),
				];
				const expected: IDataObject[] = [];
				for (const [direction, b] of blocks) {
					const head = expectedBlockFields(payload, direction, b);
					for (const tx of b.transactions) {
						for (const positions of eventsOf(tx)) {
							seen.events++;
							if (positions.length === 1 && tx.operations[positions[0]].type === 'token_transfer') seen.unpaired++;
							if (positions.length === 2 && positions[1] > positions[0] + 1) seen.apart++;
							if (selects(filters, b, tx, positions)) expected.push(expectedItem(head, tx, positions.map((i) => raw(tx)[i]), prints));
						}
					}
				}

				const result = await post(payload, triggerParameters({ events: trigger as unknown as INodeParameters, output: 'event', rollbacks }));
				expect(result.status).toBe(200);
				expect(result.sentBody).toEqual({ received: true, items: expected.length });
				const items = result.response.workflowData?.[0].map((item) => item.json) ?? [];
				if (expected.length === 0) expect(result.response.workflowData).toBeUndefined();
				// Selection and order first (a readable failure), then every field.
				const key = (item: IDataObject) => `${item.direction} ${item.blockHash} ${item.txHash} #${item.operationIndex}`;
				expect(items.map(key)).toEqual(expected.map(key));
				expect(items).toEqual(expected);
				// The transactions with items are the ones the emulator (the service) would deliver.
				for (const [direction, b] of blocks) {
					const withItems = new Set(items.filter((item) => item.direction === direction && item.blockHash === b.block_identifier.hash).map((item) => item.txHash));
					const delivered = matchingTransactions({ filters: { events: filters } }, b).map((tx) => tx.transaction_identifier.hash);
					expect([...withItems].sort()).toEqual([...new Set(delivered)].sort());
				}

				seen.deliveries++;
				seen.items += items.length;
				seen.filters += filters.length;
				if (items.length === 0) seen.empty++;
				seen.failed += items.filter((item) => item.txSucceeded === false).length;
				seen.multiEffect += [...generated.apply, ...generated.rollback].reduce((sum, b) => sum + b.joined, 0);
				for (const item of items) byType.set(item.eventType as string, (byType.get(item.eventType as string) ?? 0) + 1);
			}),
			propertyParameters(RUNS),
		);
		const types = [...byType].sort(([a], [b]) => a.localeCompare(b)).map(([type, n]) => `${type} ${n}`).join(', ');
		console.log(
			`event items: ${seen.deliveries} deliveries, ${seen.events} events, ${seen.filters} filters, ${seen.items} items (${types}); ` +
				`${seen.failed} of failed transactions, ${seen.multiEffect} multi-effect calls, ${seen.unpaired} transfer operations without their pair, ` +
				`${seen.apart} pairs not side by side, ${seen.empty} deliveries without an item; ${replayHint()}`,
		);
		// Every event type was output at some point, events of failed transactions among them.
		const everyType = [...EVENT_TYPES.map((type) => type.value).filter((type) => !type.endsWith('_event') && type !== 'balance_change'), 'stx_lock', 'fee'];
		expect(everyType.filter((type) => !byType.has(type))).toEqual([]);
		expect(seen.failed).toBeGreaterThan(0);
	});
});
