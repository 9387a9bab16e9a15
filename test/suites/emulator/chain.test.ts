/** Block builders and filter matching, without HTTP. */
import {
	checkBlock,
	checkDefinition,
	makeBlock,
	matchingTransactions,
	type EventFilter,
	type TxInput,
} from '../../emulator/index';
import fc from 'fast-check';

import { transactionEvents, transactionMatches } from '../../../nodes/shared/chainEvents';
import { clarityPair } from '../../emulator/clarity';
import { expectedJson, printedValue } from '../../support/clarity';
import { propertyParameters } from '../../support/properties';
import { ALICE, BOB, CAROL, definition, events, FT, NFT, TOKEN } from './helpers';

const ALL_KINDS: TxInput[] = [
	{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 10, memo: 'rent' },
	{ kind: 'stx_mint', sender: ALICE, recipient: BOB, amount: 10 },
	{ kind: 'stx_burn', sender: ALICE, amount: 10 },
	{ kind: 'stx_lock', sender: ALICE, amount: '1000000000', unlockHeight: 900 },
	{
		kind: 'ft_transfer',
		sender: ALICE,
		recipient: BOB,
		assetIdentifier: FT,
		amount: 3,
		decimals: 8,
	},
	{ kind: 'ft_mint', sender: ALICE, recipient: BOB, assetIdentifier: FT, amount: 3 },
	{ kind: 'ft_burn', sender: ALICE, assetIdentifier: FT, amount: 3 },
	{ kind: 'nft_transfer', sender: ALICE, recipient: BOB, assetIdentifier: NFT, value: 42 },
	{ kind: 'nft_mint', sender: ALICE, recipient: BOB, assetIdentifier: NFT, value: 42 },
	{ kind: 'nft_burn', sender: ALICE, assetIdentifier: NFT, value: 42 },
	{ kind: 'contract_call', sender: ALICE, contractIdentifier: TOKEN, functionName: 'claim' },
	{
		kind: 'contract_deploy',
		sender: ALICE,
		contractIdentifier: `${ALICE}.vault`,
		sourceCode: '(define-public (f) (ok u1))',
	},
	{
		kind: 'contract_log',
		sender: ALICE,
		contractIdentifier: TOKEN,
		value: '(tuple (action "claim"))',
	},
	{ kind: 'coinbase', sender: ALICE },
	{ kind: 'tenure_change', sender: ALICE, cause: 'extended' },
];

describe('makeBlock', () => {
	it('builds every kind of transaction in the shape the service publishes', () => {
		const block = makeBlock({ height: 5, transactions: ALL_KINDS });
		expect(checkBlock(block)).toEqual({ ok: true, errors: [] });
		expect(block.transactions.map((tx) => tx.metadata.type)).toEqual([
			'token_transfer',
			...Array(9).fill('contract_call'),
			'contract_call',
			'contract_deploy',
			'contract_call',
			'coinbase',
			'tenure_change',
		]);
		expect(block.metadata?.tx_count).toBe(ALL_KINDS.length);
	});

	it('derives identifiers from height and position, and chains parents', () => {
		const a = makeBlock({ height: 5, transactions: ALL_KINDS });
		expect(makeBlock({ height: 5, transactions: ALL_KINDS })).toEqual(a);
		const next = makeBlock({ height: 6, transactions: ALL_KINDS });
		expect(next.parent_block_identifier).toEqual(a.block_identifier);
		const hashes = [...a.transactions, ...next.transactions].map(
			(tx) => tx.transaction_identifier.hash,
		);
		expect(new Set(hashes).size).toBe(hashes.length);
		const fork = makeBlock({ height: 5, hash: '0xf0', transactions: ALL_KINDS });
		expect(fork.transactions[0].transaction_identifier.hash).not.toBe(
			a.transactions[0].transaction_identifier.hash,
		);
	});

	it('numbers nonces per sender unless given', () => {
		const block = makeBlock({
			height: 1,
			transactions: [
				{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1 },
				{ kind: 'stx_transfer', sender: BOB, recipient: ALICE, amount: 1 },
				{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1 },
				{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1, nonce: 9 },
			],
		});
		expect(block.transactions.map((tx) => tx.metadata.nonce)).toEqual([0, 0, 1, 9]);
	});
});

describe("a print's value, given as a repr or as hex (clarityPair)", () => {
	it('reads 1,000 generated values as Hiro prints them back to their value: the same repr, the same JSON', () => {
		fc.assert(
			fc.property(printedValue, ({ hex, repr, json }) => {
				expect(clarityPair(hex)).toEqual({ hex, repr });
				// A buffer's repr looks like hex, and is taken as a binary form (clarity.ts).
				if (repr.startsWith('0x')) return;
				const pair = clarityPair(repr);
				expect(pair.repr).toBe(repr);
				expect(expectedJson(pair.hex)).toEqual(json);
			}),
			propertyParameters(1000),
		);
	});

	it('reads tuple keys with dashes, Clarity 2 tuple literals, and escapes', () => {
		expect(clarityPair('{pool-id: u1, memo: "a\\"b"}').repr).toBe('(tuple (memo "a\\"b") (pool-id u1))');
		expect(clarityPair('u"caf\\u{c3a9}"').hex).toBe(`0x0e00000005${Buffer.from('café').toString('hex')}`);
	});

	it('refuses hex that is no Clarity value, rather than hang in the native decoder', () => {
		expect(() => clarityPair('0x4347edac')).toThrow(/"0x4347edac" is neither a Clarity value's repr nor its binary form: .*Clarity Type: 67/);
	});
});

describe('the service\'s filter semantics (chainEvents.ts), on blocks the emulator builds', () => {
	const block = makeBlock({ height: 5, transactions: ALL_KINDS });
	const kindsMatching = (filter: EventFilter) =>
		block.transactions
			.filter((tx) => transactionMatches([filter], tx))
			.map((tx) => ALL_KINDS[tx.metadata.position.index].kind);

	it.each<[EventFilter, string[]]>([
		[{ type: 'stx_transfer' }, ['stx_transfer']],
		[{ type: 'stx_transfer', sender: ALICE, receiver: BOB }, ['stx_transfer']],
		[{ type: 'stx_transfer', receiver: CAROL }, []],
		[{ type: 'stx_mint', receiver: BOB }, ['stx_mint']],
		[{ type: 'stx_burn', sender: BOB }, []],
		[{ type: 'stx_event' }, ['stx_transfer', 'stx_mint', 'stx_burn', 'stx_lock']],
		[{ type: 'ft_transfer', asset_identifier: FT, sender: ALICE, receiver: BOB }, ['ft_transfer']],
		[{ type: 'ft_mint', receiver: BOB }, ['ft_mint']],
		[{ type: 'ft_burn', asset_identifier: `${CAROL}.other::coin` }, []],
		[{ type: 'ft_event', asset_identifier: FT }, ['ft_transfer', 'ft_mint', 'ft_burn']],
		[{ type: 'nft_transfer', value: 42 }, ['nft_transfer']],
		[{ type: 'nft_transfer', value: 43 }, []],
		[{ type: 'nft_mint', asset_identifier: NFT, receiver: BOB }, ['nft_mint']],
		[{ type: 'nft_burn', sender: ALICE }, ['nft_burn']],
		[{ type: 'nft_event', asset_identifier: NFT }, ['nft_transfer', 'nft_mint', 'nft_burn']],
		[
			{ type: 'contract_call', contract_identifier: TOKEN, function_name: 'claim' },
			['contract_call'],
		],
		[
			{ type: 'contract_call', contract_identifier: TOKEN },
			['ft_transfer', 'ft_mint', 'ft_burn', 'contract_call', 'contract_log'],
		],
		[{ type: 'contract_call', sender: BOB }, []],
		[
			{ type: 'contract_deploy', contract_identifier: `${ALICE}.vault`, sender: ALICE },
			['contract_deploy'],
		],
		[{ type: 'contract_log', contract_identifier: TOKEN }, ['contract_log']],
		[{ type: 'coinbase' }, ['coinbase']],
		[{ type: 'tenure_change', cause: 'extended' }, ['tenure_change']],
		[{ type: 'tenure_change', cause: 'block_found' }, []],
		[{ type: 'balance_change', principal: CAROL }, []],
	])('%j matches %j', (filter, expected) => {
		expect(kindsMatching(filter)).toEqual(expected);
	});

	it('matches balance changes of a principal, fees included', () => {
		const kinds = kindsMatching({ type: 'balance_change', principal: BOB });
		expect(kinds).toEqual([
			'stx_transfer',
			'stx_mint',
			'ft_transfer',
			'ft_mint',
			'nft_transfer',
			'nft_mint',
		]);
		expect(kindsMatching({ type: 'balance_change', principal: ALICE })).toHaveLength(
			ALL_KINDS.length - 2,
		);
	});

	it.each(['constructor', 'toString', 'poison_microblock'])('takes an operation of type %s, amount or not, as an event of its own that moves nothing', (type) => {
		const amount = { value: '-5', currency: { symbol: 'STX', decimals: 6 } };
		const tx = { operations: [{ operation_identifier: { index: 0 }, type, status: 'success', account: { address: ALICE }, amount }], metadata: { sender_address: ALICE } };
		expect(transactionEvents(tx)).toEqual([expect.objectContaining({ type, token: undefined, action: undefined })]);
		expect(transactionMatches([{ type: 'stx_event' }, { type: 'stx_transfer' }], tx)).toBe(false);
	});

	it('keeps the transactions matching any filter of a definition, in block order', () => {
		const filters = events({ type: 'coinbase' }, { type: 'stx_burn' }, { type: 'coinbase' });
		const matched = matchingTransactions({ filters }, block).map(
			(tx) => tx.metadata.position.index,
		);
		expect(matched).toEqual([2, 13]);
	});
});

describe('checkDefinition', () => {
	it('accepts a definition the service takes, with every option', () => {
		const options = {
			enable_on_registration: true,
			decode_clarity_values: true,
			expire_after_occurrences: 3,
		};
		expect(checkDefinition({ ...definition(), options })).toEqual({ ok: true, errors: [] });
	});

	it('names each problem by its path', () => {
		const result = checkDefinition({
			...definition({ filters: events({ type: 'nft_event', value: 'one' } as never) }),
			options: { enable_on_registration: 'yes' },
		});
		expect(result.ok).toBe(false);
		expect(result.errors).toEqual([
			expect.stringMatching(/^filters\.events\[0\]\.value: /),
			expect.stringMatching(/^options\.enable_on_registration: /),
		]);
	});

	it('takes an http webhook only when asked to', () => {
		const body = definition({
			action: { type: 'http_post', url: 'http://localhost:5678/webhook' },
		});
		expect(checkDefinition(body).errors).toEqual(['action.url: must use https']);
		expect(checkDefinition(body, { allowHttp: true }).ok).toBe(true);
	});
});
