/** Deliveries as the service posts them (the emulator's block builder), and the names the parts share. */
import { asTheHookAsks, type Block, makeBlock, matchingTransactions, type Operation, type TxInput } from '../../emulator';

export const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
export const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
export const API_KEY = 'bench-api-key';
export const SECRET = 'b3e7c0de'.repeat(8);
export const WRONG_SECRET = `${SECRET.slice(0, -1)}0`;

/**
 * How the bench's hooks are set up: Clarity values decoded and the block's metadata included, the
 * payload earlier runs measured (the emulator then sent both to every hook). `hex` is a hook with no
 * option set, the service's default: values as hex alone, no metadata.
 */
export type Encoding = 'decoded' | 'hex';
const OPTIONS: Record<Encoding, { decode_clarity_values?: boolean; include_block_metadata?: boolean }> = {
	decoded: { decode_clarity_values: true, include_block_metadata: true },
	hex: {},
};

/** What the service posts for a block of `txCount` STX transfers that all match the hook. */
export function delivery(hookUuid: string, hookName: string, height: number, txCount: number) {
	const transactions = Array.from({ length: txCount }, (_, i) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount: 1_000_000 + i }));
	return wrap(hookUuid, hookName, asTheHookAsks(makeBlock({ height, transactions }), OPTIONS.decoded, 'repr'));
}

function wrap(hookUuid: string, hookName: string, block: Block) {
	return {
		chainhook: { uuid: hookUuid, name: hookName },
		event: { chain: 'stacks', network: 'testnet', apply: [block], rollback: [] },
	};
}

/* A busy block of a DeFi hook (rows 2b-2e) ---------------------------------------------------------- */

const CAROL = 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC';
const DAVE = 'ST1SJ3DTE5DN7X54YDH5D64R3BCB6A2AG2ZQ8YPD5';
const USERS = [BOB, CAROL, DAVE];
const SBTC_CONTRACT = `${ALICE}.sbtc-token`;
const SBTC = `${SBTC_CONTRACT}::sbtc-token`;
const PUNKS = `${ALICE}.stacks-punks::punk`;
const DEX = `${ALICE}.amm-pool-v2-01`;
const STX_CURRENCY = { symbol: 'STX', decimals: 6 };
const SBTC_CURRENCY = { symbol: 'sbtc-token', decimals: 8, metadata: { asset_identifier: SBTC, token_type: 'ft' } };

/**
 * The trigger's `events` parameter of the busy block's hook, as a user sets it: every STX transfer,
 * sBTC transfers, the punks' transfers, and the DEX's prints. The service delivers the block's
 * transactions that any of them selects: all of the busy block's.
 */
export const DEFI_FILTERS = [
	{ type: 'stx_transfer' },
	{ type: 'ft_transfer', assetIdentifier: SBTC },
	{ type: 'nft_transfer', assetIdentifier: PUNKS },
	{ type: 'contract_log', contractIdentifier: DEX },
];
/** DEFI_FILTERS as the service takes them (eventFilters.ts, toEventFilters). */
const SERVICE_FILTERS = [
	{ type: 'stx_transfer' },
	{ type: 'ft_transfer', asset_identifier: SBTC },
	{ type: 'nft_transfer', asset_identifier: PUNKS },
	{ type: 'contract_log', contract_identifier: DEX },
] as const;

/** A transfer's debit and credit, as the emulator writes them (chain.ts, movement). */
function legs(from: string, to: string, quantity: number, currency: object): object[] {
	return [
		{ type: 'token_transfer', account: { address: from }, amount: { value: `-${quantity}`, currency } },
		{ type: 'token_transfer', account: { address: to }, amount: { value: String(quantity), currency } },
	];
}

/** The operations `extra` put before the operation at `at` (at the end when undefined), renumbered. */
function splice(operations: Operation[], extra: object[], at?: number): Operation[] {
	const status = operations.at(-1)?.status;
	const all: Array<Record<string, unknown>> = [...operations.slice(0, at), ...extra.map((op) => ({ ...op, status })), ...(at === undefined ? [] : operations.slice(at))];
	return all.map((op, index) => {
		const renumbered: Record<string, unknown> = { operation_identifier: { index } }; // first, as the emulator writes it
		for (const [key, value] of Object.entries(op)) if (key !== 'operation_identifier') renumbered[key] = value;
		return renumbered as unknown as Operation;
	});
}

interface Template {
	/** The transaction as the emulator's block builder takes it. */
	input: TxInput;
	/** Operations it adds to what the builder makes of `input`, and where. */
	extra?: { ops: object[]; at?: number };
	/** How many of its events DEFI_FILTERS select: the items of One Item per Event. */
	events: number;
}

/**
 * Transaction `i` of the busy block, in a cycle of 10: 3 STX transfers between wallets, 2 sBTC
 * transfers (SIP-010 `transfer`, one with a memo the token prints), 2 swaps on the DEX (an STX leg,
 * an sBTC leg and the pool's print), an NFT transfer, an sBTC transfer that failed its post-condition,
 * and liquidity added to the pool (two legs and a print). Every transaction pays a fee.
 */
function template(i: number): Template {
	const user = USERS[i % USERS.length];
	const other = USERS[(i + 1) % USERS.length];
	const sats = 10_000 + ((i * 7919) % 90_000);
	const micro = 1_000_000 + ((i * 104_729) % 9_000_000);
	const swapPrint = (action: string, dx: number, dy: number) =>
		`(tuple (action "${action}") (data (tuple (pool-id u1) (sender '${user}) (dx u${dx}) (dy u${dy}) (fee u${Math.floor(dx / 333)}) (reserve-x u${81_000_000_000 + i}) (reserve-y u${1_200_000_000 - i}))))`;
	const dexCall = (functionName: string, value: string, ops: object[]): Template => ({
		input: { kind: 'contract_log', sender: user, contractIdentifier: DEX, functionName, value },
		extra: { ops, at: 2 }, // after the fee and the contract call, before the print
		events: 3,
	});
	switch (i % 10) {
		case 0:
		case 1:
			return { input: { kind: 'stx_transfer', sender: user, recipient: other, amount: micro }, events: 1 };
		case 2:
			return { input: { kind: 'stx_transfer', sender: user, recipient: other, amount: micro, memo: `invoice ${i}` }, events: 1 };
		case 3:
			return { input: { kind: 'ft_transfer', sender: user, recipient: other, assetIdentifier: SBTC, amount: sats, decimals: 8, functionName: 'transfer' }, events: 1 };
		case 4: {
			const bytes = Buffer.from(`order-${i}`);
			const memo = `0x${bytes.toString('hex')}`;
			// The memo as a Clarity buffer: its length in 4 bytes, then its bytes.
			const hex = `0x02${bytes.length.toString(16).padStart(8, '0')}${memo.slice(2)}`;
			const print = { type: 'contract_log', metadata: { contract_identifier: SBTC_CONTRACT, topic: 'print', value: { hex, repr: memo } } };
			return {
				input: { kind: 'ft_transfer', sender: user, recipient: other, assetIdentifier: SBTC, amount: sats, decimals: 8, functionName: 'transfer' },
				extra: { ops: [print] },
				events: 1, // the token's print is not the DEX's
			};
		}
		case 5:
			return dexCall('swap-x-for-y', swapPrint('swap-x-for-y', micro, sats), [...legs(user, DEX, micro, STX_CURRENCY), ...legs(DEX, user, sats, SBTC_CURRENCY)]);
		case 6:
			return dexCall('swap-y-for-x', swapPrint('swap-y-for-x', sats, micro), [...legs(user, DEX, sats, SBTC_CURRENCY), ...legs(DEX, user, micro, STX_CURRENCY)]);
		case 7:
			return { input: { kind: 'nft_transfer', sender: user, recipient: other, assetIdentifier: PUNKS, value: i, functionName: 'transfer' }, events: 1 };
		case 8:
			return {
				input: { kind: 'ft_transfer', sender: user, recipient: other, assetIdentifier: SBTC, amount: sats, decimals: 8, functionName: 'transfer', status: 'abort_by_post_condition' },
				events: 1,
			};
		default:
			return dexCall('add-liquidity', swapPrint('add-liquidity', micro, sats), [...legs(user, DEX, micro, STX_CURRENCY), ...legs(user, DEX, sats, SBTC_CURRENCY)]);
	}
}

/** The busy block and what DEFI_FILTERS select of it, for the rows' notes. */
export const DEFI_BLOCK =
	'per 10 transactions 3 STX transfers, 2 sBTC transfers (one with a memo the token prints), 2 swaps on a DEX (an STX leg, an sBTC leg, ' +
	"the pool's print of a tuple), 1 NFT transfer, 1 sBTC transfer failed on its post-condition, 1 add-liquidity (2 legs, print), each with its fee " +
	'(test/tools/bench/payloads.ts)';
export const DEFI_EVENTS =
	'filters stx_transfer (any), ft_transfer (sBTC), nft_transfer (the collection), contract_log (the DEX); per 10 transactions 6 STX transfers, ' +
	'6 sBTC transfers, 1 NFT transfer and 3 prints decoded from their repr, of 34 events (not the fees, the contract calls, the memo print)';

/**
 * What the service posts to a DeFi hook (DEFI_FILTERS) for a busy block of `txCount` transactions
 * (templates above), and how many items One Item per Event makes of it, counted from the
 * templates, not by the code under test.
 */
export function defiDelivery(hookUuid: string, hookName: string, height: number, txCount: number, encoding: Encoding = 'decoded') {
	const templates = Array.from({ length: txCount }, (_, i) => template(i));
	const block = makeBlock({ height, transactions: templates.map((t) => t.input) });
	block.transactions.forEach((tx, i) => {
		const { extra } = templates[i];
		if (extra) tx.operations = splice(tx.operations, extra.ops, extra.at);
	});
	const delivered = matchingTransactions({ filters: { events: SERVICE_FILTERS as never } }, block).length;
	if (delivered !== txCount) throw new Error(`defiDelivery: the filters select ${delivered} of the block's ${txCount} transactions`);
	return { body: wrap(hookUuid, hookName, asTheHookAsks(block, OPTIONS[encoding], 'repr')), events: templates.reduce((sum, t) => sum + t.events, 0) };
}
