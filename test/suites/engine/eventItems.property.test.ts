/* eslint-disable no-console -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Properties of the trigger's "One Item per Event" output, through n8n-core's webhook context,
 * over generated blocks of every event type (every transaction kind the emulator builds, failed
 * ones, contract calls with several effects, prints of generated Clarity values) and generated
 * Trigger On filters (the `events` parameter as n8n saves it, so they go through toEventFilters):
 * the items are exactly the events the service's filter semantics select, in order, each field
 * equal to its source in the raw operation, transaction and block. The test splits operations
 * into events itself, and reads the fields itself; the emulator's matcher is the oracle of which
 * events are selected. Each delivery comes in one of the encodings the service may use: Clarity
 * values decoded (`{hex, repr}`) or as hex alone, NFT ids as reprs or as hex. The Clarity readers
 * themselves are clarity.property.test.ts's.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { eventFilterSchema, EVENT_TYPES, toEventFilters } from '../../../nodes/shared/eventFilters';
import { reprOf } from '../../emulator/clarity';
import { asTheHookAsks, type Block, checkDelivery, type DeliveryPayload, type EventFilter, makeBlock, matchingTransactions, type Transaction, type TxInput } from '../../emulator';
import { expectedJson, type Printed, printedValue } from '../../support/clarity';
import { Cl } from '@stacks/transactions';
import { activateTrigger, deliverToTrigger, triggerParameters, useEmulator } from '../../support/engine/fixtures';
import { expectedBlockFields, expectedEventTransactionFields } from '../../support/expectedItems';
import { propertyParameters, replayHint } from '../../support/properties';

useEmulator();
jest.setTimeout(5 * 60_000);

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

/** A print's value: a generated Clarity value (its binary form given to the emulator), or the emulator's default. */
const printValue: fc.Arbitrary<Printed | undefined> = fc.oneof({ weight: 4, arbitrary: printedValue }, { weight: 1, arbitrary: fc.constant(undefined) });
/** A call's arguments, as the service sends them decoded. */
const callArgs = fc.array(printedValue.map(({ hex, repr }) => ({ name: 'arg', type: 'any', hex, repr })), { maxLength: 3 });

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
	.map(({ printed, ...input }) => ({ input: { ...input, value: printed?.hex }, print: printed }));

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
	args: maybe(callArgs),
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
	/** Its contract calls with several effects. */
	joined: number;
}

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;

const block: fc.Arbitrary<GeneratedBlock> = fc
	// A hash of its own: blocks of one height (a reorganisation's) are told apart by it.
	.record({ height: fc.nat({ max: 1_000_000 }), hash: fc.uint8Array({ minLength: 32, maxLength: 32 }), transactions: fc.array(transaction, { maxLength: 8 }) })
	.map(({ height, hash, transactions }) => ({
		block: buildBlock(height, hex(hash), transactions),
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
	/** How the service encodes it: Clarity values decoded or as hex alone (the default), NFT ids as reprs or hex. */
	decode: fc.boolean(),
	nftIds: fc.constantFrom('repr' as const, 'hex' as const),
	/** Prints whose value is made something that is not a Clarity value (by position among the delivery's prints). */
	garbled: fc.array(fc.nat(), { maxLength: 2 }),
});

/** A value that is not a Clarity value (0xff is no Clarity type), in the delivery's encoding. */
const notClarity = (decode: boolean) => (decode ? { hex: '0xff00', repr: 'not a value' } : '0xff00');

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
	metadata?: Record<string, unknown>;
}

/** A Clarity value as it came: `{hex, repr}` or the hex alone. */
interface SentValue {
	hex: string;
	repr?: string;
}
const sentValue = (value: unknown): SentValue => (typeof value === 'string' ? { hex: value } : (value as SentValue));

/** What a print, a result or an argument reads as: its JSON and repr from the Stacks libraries; null when it is not a Clarity value. */
function expectedValue(value: unknown): { json: IDataObject[string]; repr: string | null } {
	const { hex, repr } = sentValue(value);
	try {
		return { json: expectedJson(hex) as IDataObject[string], repr: repr ?? reprOf(hex) };
	} catch {
		return { json: null, repr: repr ?? null };
	}
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
function expectedItem(head: IDataObject, tx: Transaction, ops: RawOp[]): IDataObject {
	const [first] = ops;
	const action = ACTIONS[first.type];
	const currency = first.amount?.currency;
	const token = action ? (currency!.metadata?.token_type ?? 'stx') : undefined;
	const debit = action === 'transfer' ? ops.find(isDebit) : undefined;
	const credit = action === 'transfer' ? ops.find((op) => !isDebit(op)) : undefined;
	const isFee = first.type === 'fee';
	const isPrint = first.type === 'contract_log';
	const print = isPrint ? expectedValue(first.metadata!.value) : undefined;
	const nft = token === 'nft' ? String(currency!.metadata!.value) : undefined;
	const args = first.metadata?.args;
	const metadata = tx.metadata;
	return {
		...head,
		// The contract of the id (README, "What an item looks like"), written out here on its own.
		eventId: `${head.blockHash as string}:${tx.transaction_identifier.hash}:${first.operation_identifier.index}`,
		...expectedEventTransactionFields(tx),
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
		// The emulator's ids are uints: `u42`, or its binary form.
		tokenId: nft === undefined ? null : nft.startsWith('0x') ? String((Cl.deserialize(nft) as { value: bigint }).value) : nft.replace(/^u/, ''),
		args: first.type !== 'contract_call' ? null : typeof args === 'string' ? (expectedJson(args) as IDataObject[]) : (args as unknown[]).map((arg) => expectedValue(arg).json),
		topic: isPrint ? (first.metadata!.topic as string) : null,
		value: print ? print.json : null,
		valueHex: print ? sentValue(first.metadata!.value).hex : null,
		valueRepr: print ? print.repr : null,
	};
}

/** The emulator's matcher on a copy of the transaction that holds only this event's operations. */
const selects = (filters: EventFilter[], block: Block, tx: Transaction, positions: number[]) =>
	matchingTransactions({ filters: { events: filters } }, { ...block, transactions: [{ ...tx, operations: positions.map((i) => tx.operations[i]) }] }).length === 1;

describe('One Item per Event', () => {
	const RUNS = 300;
	let activated: IDataObject;

	beforeAll(async () => {
		activated = await activateTrigger();
	});

	const post = (body: unknown, parameters: INodeParameters) => deliverToTrigger(body, activated, parameters);

	it(`outputs, for ${RUNS} generated deliveries and filter sets, exactly the selected events, in order, each field from its source`, async () => {
		const byType = new Map<string, number>();
		const seen = { deliveries: 0, events: 0, items: 0, failed: 0, empty: 0, multiEffect: 0, filters: 0, unpaired: 0, apart: 0, hexPrints: 0, decodedPrints: 0, notClarity: 0, hexIds: 0 };
		await fc.assert(
			fc.asyncProperty(delivery, events, fc.constantFrom('include' as const, 'ignore' as const), async (generated, trigger, rollbacks) => {
				// In the delivery's encoding, as the emulator shapes it (its metadata kept), then through JSON, as it reaches n8n.
				const options = { decode_clarity_values: generated.decode, include_block_metadata: true };
				const encoded = (blocks: GeneratedBlock[]) => blocks.map((b) => asTheHookAsks(structuredClone(b.block), options, generated.nftIds));
				const payload = JSON.parse(
					JSON.stringify({
						chainhook: { uuid: generated.uuid, ...(generated.name === undefined ? {} : { name: generated.name }) },
						event: { chain: 'stacks', network: generated.network, apply: encoded(generated.apply), rollback: encoded(generated.rollback) },
					}),
				) as DeliveryPayload;
				const printOps = [...payload.event.rollback, ...payload.event.apply].flatMap((b) => b.transactions.flatMap((tx) => tx.operations.filter((op) => op.type === 'contract_log')));
				for (const at of generated.garbled) if (printOps.length > 0) (printOps[at % printOps.length].metadata as IDataObject).value = notClarity(generated.decode);
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
							if (selects(filters, b, tx, positions)) expected.push(expectedItem(head, tx, positions.map((i) => raw(tx)[i])));
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
				for (const item of items) {
					byType.set(item.eventType as string, (byType.get(item.eventType as string) ?? 0) + 1);
					if (item.valueHex === '0xff00') seen.notClarity++;
					else if (item.eventType === 'contract_log') seen[generated.decode ? 'decodedPrints' : 'hexPrints']++;
					if (item.tokenId !== null && generated.nftIds === 'hex') seen.hexIds++;
				}
			}),
			propertyParameters(RUNS),
		);
		const types = [...byType].sort(([a], [b]) => a.localeCompare(b)).map(([type, n]) => `${type} ${n}`).join(', ');
		console.log(
			`event items: ${seen.deliveries} deliveries, ${seen.events} events, ${seen.filters} filters, ${seen.items} items (${types}); ` +
				`${seen.failed} of failed transactions, ${seen.multiEffect} multi-effect calls, ${seen.unpaired} transfer operations without their pair, ` +
				`${seen.apart} pairs not side by side, ${seen.empty} deliveries without an item; prints: ${seen.hexPrints} as hex alone, ${seen.decodedPrints} decoded, ` +
				`${seen.notClarity} not a Clarity value; ${seen.hexIds} NFT ids as hex; ${replayHint()}`,
		);
		// Every event type was output at some point, events of failed transactions among them.
		const everyType = [...EVENT_TYPES.map((type) => type.value).filter((type) => !type.endsWith('_event') && type !== 'balance_change'), 'stx_lock', 'fee'];
		expect(everyType.filter((type) => !byType.has(type))).toEqual([]);
		expect(seen.failed).toBeGreaterThan(0);
		// Both encodings, and values that do not read, reached the output.
		expect([seen.hexPrints, seen.decodedPrints, seen.notClarity, seen.hexIds].every((n) => n > 0)).toBe(true);
	});
});
