/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The trigger on real chain data: the corpus of test/corpus (SOURCES.md says where each file
 * comes from) turned into deliveries (toDelivery.ts) in every encoding the service may use
 * (Clarity values as hex alone or as `{hex, repr}`; NFT ids as reprs, as hex or as numbers),
 * posted through n8n-core's webhook context to the trigger with Trigger On filters that select
 * everything, and each output mode compared with a reading of the delivery written here, apart
 * from the product: events are found by pairing operations through `related_operations`, and
 * Clarity values are read from their hex with Hiro's decoder (stacks-encoding-native-js).
 *
 * Also: Hiro's "Payload anatomy" example is taken and read right; the published Clarity values
 * (clarity-values.json) read as their JSON; every address of the corpus passes the nodes'
 * principal check on its network, and fails it with one character changed.
 * And a real NFT transfer is selected by a filter's Token ID, and gives the same tokenId, whichever
 * way the service writes the id.
 */
import * as fs from 'fs';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import * as path from 'path';
import { isDeepStrictEqual } from 'util';
import { type ClarityValue, decodeClarityValue, decodeClarityValueToRepr } from 'stacks-encoding-native-js';

import { principalProblem } from '../../../nodes/shared/principal';
import {
	CORPUS_DIR,
	type ConvertOptions,
	type ConvertStats,
	type DeliveredBlock,
	type DeliveredTransaction,
	type Delivery,
	emptyStats,
	type Network,
	NODE_FILES,
	type Operation,
	readNodeBlocks,
	toBlock,
	toDelivery,
} from '../../corpus/toDelivery';
import { checkDelivery } from '../../emulator/schemas';
import type { DeliveryPayload } from '../../emulator/types';
import { expectedBlockFields, expectedEventTransactionFields, expectedTransactionFields } from '../../support/expectedItems';
import { activateTrigger, deliverToTrigger, triggerParameters, useEmulator } from '../../support/engine/fixtures';

useEmulator();
jest.setTimeout(60_000);

const HOOK = { uuid: '5d0c2f4e-8a1b-4c3d-9e2f-7a6b5c4d3e2f', name: 'corpus' };
/** Blocks per delivery. */
const BLOCKS_PER_DELIVERY = 5;
const OUTPUTS = ['event', 'transaction', 'block', 'delivery'] as const;
type Output = (typeof OUTPUTS)[number];

/** Trigger On: every event type, each tenure change cause. */
const EVERYTHING = {
	filter: [
		...['stx_event', 'ft_event', 'nft_event', 'contract_call', 'contract_deploy', 'contract_log', 'coinbase'].map((type) => ({ type })),
		...['block_found', 'extended'].map((cause) => ({ type: 'tenure_change', cause })),
	],
};
/** What those filters select: the event types below and every STX, FT and NFT movement. */
const SELECTED = new Set(['contract_call', 'contract_deploy', 'contract_log', 'coinbase', 'tenure_change']);
const selected = (eventType: string) => SELECTED.has(eventType) || /^(stx|ft|nft)_/.test(eventType);

// ---------------------------------------------------------------------------
// Clarity values, read here from their hex

type Json = string | boolean | null | Json[] | { [key: string]: Json };

/** A Clarity value as the JSON docs/items.md describes. */
function toJson(cv: ClarityValue): Json {
	switch (cv.type_id) {
		case 0:
		case 1:
			return cv.value;
		case 2:
			return cv.buffer.toLowerCase();
		case 3:
			return true;
		case 4:
			return false;
		case 5:
			return cv.address;
		case 6:
			return `${cv.address}.${cv.contract_name}`;
		case 7:
			return { ok: toJson(cv.value) };
		case 8:
			return { err: toJson(cv.value) };
		case 9:
			return null;
		case 10:
			return toJson(cv.value);
		case 11:
			return cv.list.map(toJson);
		case 12:
			return Object.fromEntries(Object.entries(cv.data).map(([key, value]) => [key, toJson(value)]));
		case 13:
		case 14:
			return cv.data;
		default:
			throw new Error(`no Clarity type ${(cv as { type_id: number }).type_id}`);
	}
}

/** The principals inside a Clarity value. */
function principalsIn(cv: ClarityValue, out: string[] = []): string[] {
	switch (cv.type_id) {
		case 5:
			out.push(cv.address);
			break;
		case 6:
			out.push(`${cv.address}.${cv.contract_name}`);
			break;
		case 7:
		case 8:
		case 10:
			principalsIn(cv.value, out);
			break;
		case 11:
			for (const item of cv.list) principalsIn(item, out);
			break;
		case 12:
			for (const item of Object.values(cv.data)) principalsIn(item, out);
			break;
	}
	return out;
}

/** Reads Clarity values, counting them: each result, print value, argument and NFT id, whatever its form. */
class Reader {
	values = 0;

	decode(hex: string): ClarityValue {
		this.values++;
		return decodeClarityValue(hex);
	}

	json(hex: string): Json {
		return toJson(this.decode(hex));
	}
}

/** A value as delivered: its hex alone, or `{hex, repr}`. */
const hexOf = (value: unknown): string => (typeof value === 'string' ? value : (value as { hex: string }).hex);
const reprOf = (value: unknown): string => (typeof value === 'string' ? decodeClarityValueToRepr(value) : (value as { repr: string }).repr);

/** A contract call's arguments: the hex of their Clarity list, or `[{hex, repr, name, type}]`. */
function argsOf(args: unknown, reader: Reader): Json[] {
	if (typeof args === 'string') {
		const list = decodeClarityValue(args);
		if (list.type_id !== 11) throw new Error(`args ${args} is not a list`);
		reader.values += list.list.length;
		return list.list.map(toJson);
	}
	return (args as Array<{ hex: string }>).map((arg) => reader.json(arg.hex));
}

/** An NFT id as delivered in each form: digits for an integer, else its repr. */
function tokenIdOf(value: string | number, form: ConvertOptions['nftIds'], reader: Reader): string {
	if (form !== 'hex') reader.values++;
	if (form === 'number') return typeof value === 'number' ? String(value) : /^u?(-?\d+)$/.exec(value)?.[1] ?? value;
	if (form === 'repr') return /^u?(-?\d+)$/.exec(String(value))?.[1] ?? String(value);
	const cv = reader.decode(String(value));
	return cv.type_id === 0 || cv.type_id === 1 ? cv.value : decodeClarityValueToRepr(String(value));
}

// ---------------------------------------------------------------------------
// The delivery, read here

/** The transaction's events: a debit and the credit whose related_operations name it are one, every other operation one of its own. */
function eventsOf(tx: DeliveredTransaction): Operation[][] {
	const byIndex = new Map(tx.operations.map((op) => [op.operation_identifier.index, op]));
	const creditOf = new Map<number, Operation>();
	for (const op of tx.operations) {
		const debit = op.related_operations?.[0]?.index;
		if (op.type === 'token_transfer' && debit !== undefined && byIndex.get(debit)?.amount?.value.startsWith('-')) creditOf.set(debit, op);
	}
	const credits = new Set(creditOf.values());
	return tx.operations.filter((op) => !credits.has(op)).map((op) => [op, ...(creditOf.has(op.operation_identifier.index) ? [creditOf.get(op.operation_identifier.index)!] : [])]);
}

const ACTIONS: Record<string, string | undefined> = { token_transfer: 'transfer', token_mint: 'mint', token_burn: 'burn' };
const unsigned = (value: string) => value.replace(/^-/, '');
const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The fields every item of a block starts with (the corpus's deliveries apply blocks only). */
const head = (delivery: Delivery, block: DeliveredBlock): IDataObject =>
	expectedBlockFields(delivery as unknown as DeliveryPayload, 'apply', block as unknown as DeliveryPayload['event']['apply'][number]);
const transactionOf = (tx: DeliveredTransaction) => tx as unknown as DeliveryPayload['event']['apply'][number]['transactions'][number];

/** Fields compared in tests of their own, so that a failure names the field. */
const OWN_TEST_FIELDS = ['value', 'valueRepr', 'tokenId', 'args', 'blockTime'] as const;

function expectedEvent(delivery: Delivery, block: DeliveredBlock, tx: DeliveredTransaction, ops: Operation[], form: ConvertOptions['nftIds'], reader: Reader): IDataObject {
	const [first, credit] = ops;
	const action = first.type === 'stx_lock' ? 'lock' : ACTIONS[first.type];
	const currency = first.amount?.currency;
	const token = action ? (currency?.metadata?.token_type ?? 'stx') : undefined;
	const meta = first.metadata ?? {};
	const isPrint = first.type === 'contract_log';
	const isCall = first.type === 'contract_call';
	const printing = tx.operations.find((op) => op.type === 'contract_call');
	const { metadata } = tx;
	return {
		...head(delivery, block),
		eventId: `${block.block_identifier.hash}:${tx.transaction_identifier.hash}:${first.operation_identifier.index}`,
		eventType: token ? `${token}_${action}` : first.type,
		assetIdentifier: token === 'stx' ? 'STX' : token ? currency!.metadata!.asset_identifier : null,
		contractIdentifier: token ? null : ((meta.contract_identifier as string | undefined) ?? null),
		functionName: isCall ? (meta.function_name as string) : isPrint ? ((printing?.metadata?.function_name as string | undefined) ?? null) : null,
		sender: action === 'mint' ? null : token ? first.account!.address : metadata.sender_address,
		recipient: action === 'mint' ? first.account!.address : action === 'transfer' ? (credit?.account?.address ?? null) : null,
		amount: token ? unsigned((credit ?? first).amount!.value) : null,
		decimals: token && token !== 'nft' ? currency!.decimals : null,
		tokenId: token === 'nft' ? tokenIdOf(currency!.metadata!.value!, form, reader) : null,
		topic: isPrint ? (meta.topic as string) : null,
		value: isPrint ? reader.json(hexOf(meta.value)) : null,
		valueHex: isPrint ? hexOf(meta.value) : null,
		valueRepr: isPrint ? reprOf(meta.value) : null,
		args: isCall ? argsOf(meta.args, reader) : null,
		operationIndex: first.operation_identifier.index,
		...expectedEventTransactionFields(transactionOf(tx)),
	};
}

function expectedTransaction(delivery: Delivery, block: DeliveredBlock, tx: DeliveredTransaction, reader: Reader): IDataObject {
	return {
		transactionId: `${block.block_identifier.hash}:${tx.transaction_identifier.hash}`,
		...head(delivery, block),
		...expectedTransactionFields(transactionOf(tx), reader.json(hexOf(tx.metadata.result))),
	};
}

const pick = (item: IDataObject, fields: readonly string[]) => Object.fromEntries(fields.map((field) => [field, item[field]]));
const omit = (item: IDataObject, fields: readonly string[]) => Object.fromEntries(Object.entries(item).filter(([field]) => !fields.includes(field)));

/** Items as JSON carries them (an item is JSON to a workflow): no undefined fields, plain objects and arrays. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

/**
 * Items compared one by one (same ids in the same order first), as a count of those that differ and
 * the first three: a readable failure, where a diff of a thousand items would not be.
 */
function expectSame(got: IDataObject[], wanted: IDataObject[], id: string, view: (item: IDataObject) => IDataObject): void {
	expect(got.map((item) => item[id])).toEqual(wanted.map((item) => item[id]));
	const differing = wanted.flatMap((item, i) => {
		const [g, w] = [view(got[i]), view(item)];
		return isDeepStrictEqual(asJson(g), asJson(w)) ? [] : [{ [id]: item[id], got: g, wanted: w }];
	});
	expect({ differing: differing.length, first: differing.slice(0, 3) }).toEqual({ differing: 0, first: [] });
}

// ---------------------------------------------------------------------------
// Posting

interface Posted {
	delivery: Delivery;
	/** Each output mode's answer status and items. */
	outputs: Record<Output, { status?: number; sent: unknown; items: IDataObject[] }>;
}

/** The delivery in each output mode, each time a copy of its own (what the trigger does to it is not read back here). */
async function post(delivery: Delivery, activated: IDataObject): Promise<Posted> {
	const outputs = {} as Posted['outputs'];
	for (const output of OUTPUTS) {
		const result = await deliverToTrigger(asJson(delivery), activated, triggerParameters({ events: EVERYTHING as unknown as INodeParameters, output }));
		outputs[output] = { status: result.status, sent: result.sentBody, items: result.response.workflowData?.[0].map((item) => item.json) ?? [] };
	}
	return { delivery, outputs };
}

/** The blocks, as JSON carries them, in deliveries of a few blocks. */
function deliveriesOf(blocks: DeliveredBlock[], network: Network): Delivery[] {
	const deliveries: Delivery[] = [];
	for (let at = 0; at < blocks.length; at += BLOCKS_PER_DELIVERY) {
		deliveries.push(JSON.parse(JSON.stringify(toDelivery(blocks.slice(at, at + BLOCKS_PER_DELIVERY), { ...HOOK, network }))) as Delivery);
	}
	return deliveries;
}

// ---------------------------------------------------------------------------
// The corpus files, in every encoding

const ENCODINGS: ConvertOptions[] = [false, true].flatMap((decoded) => (['repr', 'hex', 'number'] as const).map((nftIds) => ({ decoded, nftIds })));
const encodingName = ({ decoded, nftIds }: ConvertOptions) => `${decoded ? 'decoded' : 'hex'} values, NFT ids as ${nftIds}`;

interface Case {
	encoding: ConvertOptions;
	stats: ConvertStats;
	posted: Posted[];
	/** Per delivery, the items the reading expects. */
	expected: Array<Record<'event' | 'transaction', IDataObject[]>>;
	reader: Reader;
	/** Schema errors of the deliveries. */
	schemaErrors: string[];
}

describe.each(NODE_FILES)('corpus file $name ($network)', ({ name, network }) => {
	const cases = new Map<string, Case>();
	const caseOf = (encoding: ConvertOptions) => cases.get(encodingName(encoding))!;

	beforeAll(async () => {
		const activated = await activateTrigger();
		const bodies = readNodeBlocks(name);
		for (const encoding of ENCODINGS) {
			const stats = emptyStats();
			const blocks = bodies.map((body) => toBlock(body, encoding, stats));
			const reader = new Reader();
			const deliveries = deliveriesOf(blocks, network);
			const posted: Posted[] = [];
			for (const delivery of deliveries) posted.push(await post(delivery, activated));
			const expected = deliveries.map((delivery) => ({
				event: delivery.event.apply.flatMap((block) =>
					block.transactions.flatMap((tx) =>
						eventsOf(tx)
							.map((ops) => expectedEvent(delivery, block, tx, ops, encoding.nftIds, reader))
							.filter((item) => selected(item.eventType as string)),
					),
				),
				transaction: delivery.event.apply.flatMap((block) => block.transactions.map((tx) => expectedTransaction(delivery, block, tx, reader))),
			}));
			const schemaErrors = deliveries.flatMap((delivery) => checkDelivery(delivery).errors);
			cases.set(encodingName(encoding), { encoding, stats, posted, expected, reader, schemaErrors });
		}
	});

	afterAll(() => {
		for (const [label, { stats, posted, expected, reader }] of cases) {
			const blocks = posted.reduce((sum, p) => sum + p.delivery.event.apply.length, 0);
			const events = expected.reduce((sum, e) => sum + e.event.length, 0);
			const types = new Map<string, number>();
			for (const item of expected.flatMap((e) => e.event)) types.set(item.eventType as string, (types.get(item.eventType as string) ?? 0) + 1);
			const byType = [...types].sort(([a], [b]) => a.localeCompare(b)).map(([type, n]) => `${type} ${n}`).join(', ');
			const left = Object.entries(stats.unmapped).map(([type, n]) => `${type} ${n}`).join(', ') || 'none';
			console.log(
				`${name} (${label}): ${posted.length} deliveries, ${blocks} blocks, ${stats.transactions} transactions, ${events} events output (${byType}), ` +
					`${reader.values} Clarity values read; node events ${stats.events}, ${stats.uncommitted} not committed (left out), unmapped ${left}, ` +
					`${stats.readByStacksJs} transactions read by @stacks/transactions, ${stats.nftIdsNotNumbers} NFT ids not numbers`,
			);
		}
	});

	describe.each(ENCODINGS.map((encoding) => ({ encoding, label: encodingName(encoding) })))('$label', ({ encoding }) => {
		it('converts every transaction and event (raw_tx hashing to its txid), in deliveries the official schema accepts', () => {
			const { stats, schemaErrors } = caseOf(encoding);
			expect(stats.txidMismatches).toBe(0);
			expect(stats.unmapped).toEqual({});
			expect(stats.burnchainOps).toBe(0);
			// The schema wants an NFT id as a string: as a number, that is all it refuses.
			const refused = schemaErrors.filter((error) => !(encoding.nftIds === 'number' && /\.amount\.currency\.metadata\.value: Expected string$/.test(error)));
			expect(refused).toEqual([]);
		});

		it('One Item per Event: the selected events, paired through related_operations, in order, with their fields', () => {
			const { posted, expected } = caseOf(encoding);
			posted.forEach(({ outputs: { event } }, d) => {
				expect(event.status).toBe(200);
				expect(event.sent).toEqual({ received: true, items: expected[d].event.length });
				expectSame(event.items, expected[d].event, 'eventId', (item) => omit(item, OWN_TEST_FIELDS));
			});
		});

		const eventFields = (fields: string[], only: (item: IDataObject) => boolean) => () => {
			const { posted, expected } = caseOf(encoding);
			posted.forEach(({ outputs: { event } }, d) => {
				expectSame(event.items.filter(only), expected[d].event.filter(only), 'eventId', (item) => pick(item, fields));
			});
		};
		it("One Item per Event: a print's value (its Clarity value as JSON) and valueRepr", eventFields(['value', 'valueHex', 'valueRepr'], (item) => item.eventType === 'contract_log'));

		it("One Item per Event: an NFT's tokenId, the same in every id form", eventFields(['tokenId'], (item) => /^nft_/.test(item.eventType as string)));

		it("One Item per Event: a contract call's args, as JSON in order", eventFields(['args'], () => true));

		it('One Item per Transaction: every transaction, its fields and operations as sent', () => {
			const { posted, expected } = caseOf(encoding);
			posted.forEach(({ outputs: { transaction } }, d) => {
				expect(transaction.status).toBe(200);
				expect(transaction.sent).toEqual({ received: true, items: expected[d].transaction.length });
				expectSame(transaction.items, expected[d].transaction, 'transactionId', (item) => omit(item, ['result', 'blockTime']));
			});
		});

		it("One Item per Transaction: the transaction's result as JSON", () => {
			const { posted, expected } = caseOf(encoding);
			posted.forEach(({ outputs: { transaction } }, d) => {
				expectSame(transaction.items, expected[d].transaction, 'transactionId', (item) => pick(item, ['result']));
			});
		});

		it('One Item per Block and Whole Delivery: the counts and the block fields', () => {
			const { posted } = caseOf(encoding);
			for (const {
				delivery,
				outputs: { block, delivery: whole },
			} of posted) {
				const blocks = delivery.event.apply;
				expect(block.status).toBe(200);
				expect(block.sent).toEqual({ received: true, items: blocks.length });
				expect(block.items.map((item) => pick(item, ['blockId', 'blockHeight', 'blockHash', 'blockTimestamp', 'parentBlockHash', 'transactionCount']))).toEqual(
					blocks.map((b) => ({
						blockId: b.block_identifier.hash,
						blockHeight: b.block_identifier.index,
						blockHash: b.block_identifier.hash,
						blockTimestamp: b.timestamp,
						parentBlockHash: b.parent_block_identifier.hash,
						transactionCount: b.transactions.length,
					})),
				);
				expect(block.items.map((item) => (item.transactions as unknown[]).length)).toEqual(blocks.map((b) => b.transactions.length));
				const last = blocks[blocks.length - 1];
				expect(whole.status).toBe(200);
				expect(whole.sent).toEqual({ received: true, items: 1 });
				expect(whole.items).toHaveLength(1);
				expect(pick(whole.items[0], ['blockHeight', 'blockHash', 'blockTimestamp', 'chainhook', 'event'])).toEqual({
					blockHeight: last.block_identifier.index,
					blockHash: last.block_identifier.hash,
					blockTimestamp: last.timestamp,
					chainhook: delivery.chainhook,
					event: delivery.event,
				});
			}
		});

		it('blockTime: the block timestamp as an ISO 8601 instant, on every item', () => {
			const { posted } = caseOf(encoding);
			for (const { delivery, outputs } of posted) {
				const timeOf = new Map(delivery.event.apply.map((b) => [b.block_identifier.hash, isoTime(b.timestamp)]));
				const items = [...outputs.event.items, ...outputs.transaction.items, ...outputs.block.items, ...outputs.delivery.items];
				const wanted = items.map((item) => ({ ...item, blockTime: timeOf.get(item.blockHash as string) }));
				expectSame(items, wanted, 'blockHash', (item) => pick(item, ['blockTime']));
			}
		});
	});
});

// ---------------------------------------------------------------------------
// Hiro's Payload anatomy example

const readJson = <T>(file: string) => JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, file), 'utf8')) as T;

describe("Hiro's Payload anatomy example (hiro-docs/payload-anatomy.json)", () => {
	const example = readJson<Delivery>('hiro-docs/payload-anatomy.json');
	const [block] = example.event.apply;
	const [tx] = block.transactions;
	let activated: IDataObject;

	beforeAll(async () => {
		activated = await activateTrigger();
	});

	const postAs = (output: Output) => deliverToTrigger(example, activated, triggerParameters({ events: EVERYTHING as unknown as INodeParameters, output }));

	it('fails the official schema only where the docs differ from it: vm_error missing, execution_cost as strings', () => {
		const errors = checkDelivery(example).errors;
		const metadata = 'event.apply[0].transactions[0].metadata';
		expect(errors.filter((error) => !error.startsWith(`${metadata}.vm_error: `) && !/^event\.apply\[0\]\.transactions\[0\]\.metadata\.execution_cost\.\w+: Expected integer$/.test(error))).toEqual([]);
		expect(errors).toContain(`${metadata}.vm_error: Expected required property`);
		for (const field of ['read_count', 'read_length', 'runtime', 'write_count', 'write_length']) expect(errors).toContain(`${metadata}.execution_cost.${field}: Expected integer`);
	});

	it('is taken, its call, FT transfer and print output as events with their fields', async () => {
		const result = await postAs('event');
		expect(result.status).toBe(200);
		expect(result.sentBody).toEqual({ received: true, items: 3 });
		const items = result.response.workflowData![0].map((item) => item.json);
		const expected = eventsOf(tx)
			.map((ops) => expectedEvent(example, block, tx, ops, 'repr', new Reader()))
			.filter((item) => selected(item.eventType as string));
		expect(items.map((item) => omit(item, OWN_TEST_FIELDS))).toEqual(expected.map((item) => omit(item, OWN_TEST_FIELDS)));
		const [call, transfer, print] = items;
		expect(pick(call, ['eventType', 'contractIdentifier', 'functionName', 'sender'])).toEqual({
			eventType: 'contract_call',
			contractIdentifier: 'SP2C2YFP12AJZB4MABJBAJ55XECVS7E4PMMZ89YZR.arkadiko-token',
			functionName: 'transfer',
			sender: 'SPV2YDN4RZ506655KZK493YKM31JQPKJ9NN3QCX9',
		});
		// The page shows the debit only (operation 2; the credit, 3, is left out): no recipient to read.
		expect(pick(transfer, ['eventType', 'sender', 'recipient', 'amount', 'decimals', 'assetIdentifier'])).toEqual({
			eventType: 'ft_transfer',
			sender: 'SPV2YDN4RZ506655KZK493YKM31JQPKJ9NN3QCX9',
			recipient: null,
			amount: '10352515582',
			decimals: 0,
			assetIdentifier: 'SP2C2YFP12AJZB4MABJBAJ55XECVS7E4PMMZ89YZR.arkadiko-token::diko',
		});
		expect(pick(print, ['eventType', 'topic', 'value', 'valueHex', 'functionName'])).toEqual({
			eventType: 'contract_log',
			topic: 'print',
			value: null,
			valueHex: '0x09',
			functionName: 'transfer',
		});
	});

	it("reads the print 0x09 as none and the call's decoded args as JSON", async () => {
		const items = (await postAs('event')).response.workflowData![0].map((item) => item.json);
		const [call, , print] = items;
		expect(pick(print, ['value', 'valueRepr'])).toEqual({ value: null, valueRepr: 'none' });
		expect(call.args).toEqual(['10352515582', 'SPV2YDN4RZ506655KZK493YKM31JQPKJ9NN3QCX9', 'SPBM1X391HWMCVHKH6GK8XJRDR6B7REZQYQ8KBCK', null]);
		expect(call.blockTime).toBe(isoTime(1757977309));
	});

	it('outputs its transaction with the result (ok true) as JSON', async () => {
		const result = await postAs('transaction');
		expect(result.status).toBe(200);
		const [item] = result.response.workflowData![0].map((entry) => entry.json);
		expect(pick(item, ['txHash', 'txType', 'txStatus', 'sender', 'fee', 'nonce', 'position'])).toEqual({
			txHash: '0x09defc9a6cd9318b5c458389d4dd57597203ec539818aec0de3cfcfd7af0c2ab',
			txType: 'contract_call',
			txStatus: 'success',
			sender: 'SPV2YDN4RZ506655KZK493YKM31JQPKJ9NN3QCX9',
			fee: '3000',
			nonce: 6689,
			position: 0,
		});
		expect(item.result).toEqual({ ok: true });
	});
});

// ---------------------------------------------------------------------------
// Published Clarity values

interface Published {
	hex: string;
	repr: string;
	source: string;
}

describe('published Clarity values (clarity-values.json)', () => {
	const published = readJson<Published[]>('clarity-values.json');

	it("are 100 or more distinct pairs of every Clarity type, each printed by Hiro's decoder as published", () => {
		expect(new Set(published.map((entry) => entry.hex.toLowerCase())).size).toBe(published.length);
		expect(published.length).toBeGreaterThanOrEqual(100);
		expect(published.filter((entry) => decodeClarityValueToRepr(entry.hex) !== entry.repr)).toEqual([]);
		const types = new Set<number>();
		const visit = (cv: ClarityValue): void => {
			types.add(cv.type_id);
			if (cv.type_id === 7 || cv.type_id === 8 || cv.type_id === 10) visit(cv.value);
			if (cv.type_id === 11) cv.list.forEach(visit);
			if (cv.type_id === 12) Object.values(cv.data).forEach(visit);
		};
		published.forEach((entry) => visit(decodeClarityValue(entry.hex)));
		expect([...types].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
		// A string-utf8 with characters beyond ASCII.
		expect(published.some((entry) => /u"[^"]*\\u\{/.test(entry.repr))).toBe(true);
	});

	/** A real transaction of the corpus whose operations are replaced by its call and one print of each published value. */
	function printing(decoded: boolean): Delivery {
		const [body] = readNodeBlocks('testnet-107605');
		const block = toBlock(body, { decoded, nftIds: 'repr' });
		const tx = block.transactions.find((candidate) => candidate.metadata.type === 'contract_call')!;
		const call = tx.operations.find((op) => op.type === 'contract_call')!;
		const prints: Operation[] = published.map((entry, i) => ({
			operation_identifier: { index: i + 1 },
			type: 'contract_log',
			status: tx.metadata.status,
			metadata: { contract_identifier: call.metadata!.contract_identifier, topic: 'print', value: decoded ? { hex: entry.hex, repr: entry.repr } : entry.hex },
		}));
		const only = { ...tx, operations: [{ ...call, operation_identifier: { index: 0 } }, ...prints] };
		return JSON.parse(JSON.stringify(toDelivery([{ ...block, transactions: [only] }], { ...HOOK, network: 'testnet' }))) as Delivery;
	}

	it.each([
		['as {hex, repr}', true],
		['as hex alone', false],
	])('printed %s, read as their JSON', async (_label, decoded) => {
		const activated = await activateTrigger();
		const delivery = printing(decoded as boolean);
		expect(checkDelivery(delivery).errors).toEqual([]);
		const result = await deliverToTrigger(delivery, activated, triggerParameters({ events: { filter: [{ type: 'contract_log' }] }, output: 'event' }));
		expect(result.status).toBe(200);
		const items = result.response.workflowData![0].map((item) => item.json);
		expect(items.map((item) => pick(item, ['value', 'valueHex', 'valueRepr']))).toEqual(
			published.map((entry) => ({ value: toJson(decodeClarityValue(entry.hex)), valueHex: entry.hex, valueRepr: entry.repr })),
		);
		console.log(`published Clarity values printed ${_label as string}: ${items.length} read`);
	});
});

// ---------------------------------------------------------------------------
// Addresses

const C32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The principal with the `i`-th choice of one character of its address changed to the next c32 character. */
function misspelt(principal: string, i: number): string {
	const dot = principal.indexOf('.');
	const address = dot < 0 ? principal : principal.slice(0, dot);
	const at = 1 + (i % (address.length - 1));
	const next = C32[(C32.indexOf(address[at]) + 1) % C32.length];
	return `${address.slice(0, at)}${next}${address.slice(at + 1)}${dot < 0 ? '' : principal.slice(dot)}`;
}

/** Every address of a delivery: accounts, senders, sponsors, contracts, assets' contracts, principals inside values. */
function addressesOf(delivery: Delivery): string[] {
	const found: string[] = [];
	const values = (value: unknown) => {
		if (value !== undefined && value !== null) principalsIn(decodeClarityValue(hexOf(value)), found);
	};
	for (const block of [...delivery.event.apply, ...delivery.event.rollback]) {
		for (const tx of block.transactions) {
			found.push(tx.metadata.sender_address);
			if (tx.metadata.sponsor_address) found.push(tx.metadata.sponsor_address);
			values(tx.metadata.result);
			for (const op of tx.operations) {
				if (op.account) found.push(op.account.address);
				const meta = op.metadata ?? {};
				for (const field of ['contract_identifier', 'locked_address', 'alt_recipient']) if (typeof meta[field] === 'string') found.push(meta[field] as string);
				if (op.type === 'contract_log') values(meta.value);
				if (op.type === 'contract_call') {
					if (typeof meta.args === 'string') values(meta.args);
					else for (const arg of meta.args as Array<{ hex: string }>) values(arg.hex);
				}
				const currency = op.amount?.currency.metadata;
				if (currency) {
					found.push(currency.asset_identifier.split('::')[0]);
					if (currency.token_type === 'nft') values(String(currency.value));
				}
			}
		}
	}
	return found;
}

describe('addresses of the corpus', () => {
	const all = new Map<string, Network>();
	for (const { name, network } of NODE_FILES) {
		const blocks = readNodeBlocks(name).map((body) => toBlock(body, { decoded: false, nftIds: 'hex' }));
		for (const address of addressesOf(toDelivery(blocks, { ...HOOK, network }))) all.set(address, network);
	}
	for (const address of addressesOf(readJson<Delivery>('hiro-docs/payload-anatomy.json'))) all.set(address, 'mainnet');
	// The published values' principals: on the network their version says.
	for (const entry of readJson<Published[]>('clarity-values.json')) {
		for (const principal of principalsIn(decodeClarityValue(entry.hex))) all.set(principal, /^S[PM]/.test(principal) ? 'mainnet' : 'testnet');
	}

	it("pass the nodes' principal check on their network, and fail it with one character changed", () => {
		const entries = [...all];
		expect(entries.filter(([address, network]) => principalProblem(address, network) !== undefined)).toEqual([]);
		const changed = entries.map(([address, network], i) => [misspelt(address, i), network] as const);
		expect(changed.filter(([address]) => all.has(address))).toEqual([]);
		expect(changed.filter(([address, network]) => principalProblem(address, network) === undefined)).toEqual([]);
		const count = (network: Network) => entries.filter(([, n]) => n === network).length;
		const contracts = entries.filter(([address]) => address.includes('.')).length;
		console.log(`addresses: ${entries.length} distinct (${count('mainnet')} mainnet, ${count('testnet')} testnet, ${contracts} contracts), each passes on its network and fails with one character changed`);
	});
});

// ---------------------------------------------------------------------------
// A real NFT transfer, selected by its id

describe("a real NFT transfer, by a filter's Token ID", () => {
	/** The corpus's NFT transfers whose id is a uint, each with the block it is in (NFT ids as reprs). */
	const transfers = NODE_FILES.flatMap(({ name, network }) =>
		readNodeBlocks(name).flatMap((body) => {
			const block = toBlock(body, { decoded: false, nftIds: 'repr' });
			return block.transactions.flatMap((tx) =>
				tx.operations
					.filter((op) => op.type === 'token_transfer' && op.amount?.currency.metadata?.token_type === 'nft' && /^u\d+$/.test(String(op.amount.currency.metadata.value)))
					.filter((op) => op.amount!.value.startsWith('-'))
					.map((op) => ({ name, network, body, asset: op.amount!.currency.metadata!.asset_identifier!, id: String(op.amount!.currency.metadata!.value).slice(1) })),
			);
		}),
	);
	let activated: IDataObject;

	beforeAll(async () => {
		activated = await activateTrigger();
	});

	it('is in the corpus: a mainnet transfer with an integer id', () => {
		expect(transfers.filter((transfer) => transfer.network === 'mainnet').length).toBeGreaterThan(0);
	});

	it.each(['repr', 'hex', 'number'] as const)('with its id written as a %s: selected by its id, not by another, and the same tokenId', async (nftIds) => {
		for (const { body, network, asset, id } of transfers) {
			const delivery = JSON.parse(JSON.stringify(toDelivery([toBlock(body, { decoded: false, nftIds })], { ...HOOK, network }))) as Delivery;
			const byId = async (value: string) => {
				const events = { filter: [{ type: 'nft_transfer', assetIdentifier: asset, value }] };
				const result = await deliverToTrigger(delivery, activated, triggerParameters({ events: events as unknown as INodeParameters, output: 'event' }));
				expect(result.status).toBe(200);
				return result.response.workflowData?.[0].map((item) => item.json) ?? [];
			};
			const selectedItems = await byId(id);
			expect(selectedItems.map((item) => pick(item, ['eventType', 'assetIdentifier', 'tokenId']))).toEqual([{ eventType: 'nft_transfer', assetIdentifier: asset, tokenId: id }]);
			expect(await byId(String(BigInt(id) + 1n))).toEqual([]);
		}
		console.log(`NFT transfers with integer ids, ids written as ${nftIds}: ${transfers.length} selected by their Token ID (${transfers.map((t) => `${t.id} in ${t.name}`).join(', ')})`);
	});
});
