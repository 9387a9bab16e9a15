/**
 * The events of a Stacks transaction, and which of them an event filter
 * selects: the service's filter semantics, in one place. The trigger's
 * "One Item per Event" output emits the events its own filters select, and
 * the test emulator (which stands in for the service) delivers a transaction
 * when any of its events is selected, both through `eventMatches`.
 *
 * A transaction's operations become events in order: a transfer's debit and
 * the credit that follows it (same currency) are one event; every other
 * operation is an event of its own. Operations come from a delivery and were
 * checked only to be objects (shared/delivery.ts), so every field is read
 * defensively: a field of the wrong type counts as absent.
 */

import { nftIdOf } from './clarity/sent';

type Json = Readonly<Record<string, unknown>>;

export type Operation = Json;

export interface ChainTransaction {
	readonly operations: readonly Operation[];
	readonly metadata?: Json;
}

/** An event filter as the service takes it (eventFilters.ts builds and checks them). */
export interface EventFilter {
	type: string;
	sender?: string;
	receiver?: string;
	asset_identifier?: string;
	contract_identifier?: string;
	function_name?: string;
	value?: number;
	cause?: string;
	principal?: string;
}

export type Token = 'stx' | 'ft' | 'nft';
export type Action = 'transfer' | 'mint' | 'burn' | 'lock';

export interface ChainEvent {
	/** The filter type's spelling: stx_transfer, ft_mint, nft_burn, stx_lock, contract_log, ...; `fee` for a fee. */
	type: string;
	/** The event's (first) operation: a transfer's debit. */
	operation: Operation;
	/** A transfer's credit, when it has one. */
	credit?: Operation;
	/** Set for movements of STX or tokens (not for fees). */
	token?: Token;
	action?: Action;
	sender?: string;
	receiver?: string;
	/** ADDRESS.contract::asset of an FT or NFT. */
	assetIdentifier?: string;
	/** An NFT's id as text, whichever way the service wrote it (clarity/sent.ts: `u42`, its hex or 42 are `42`). */
	tokenId?: string;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** The value when it is an object (not an array), else undefined: its fields then read by name. */
export const asRecord = (value: unknown): Json | undefined => (isObject(value) ? value : undefined);

export function field(object: unknown, key: string): unknown {
	return isObject(object) ? object[key] : undefined;
}

export const textField = (object: unknown, key: string): string | undefined => textOf(field(object, key));

// The hot paths below read fields by name (`object.key`), not through field(): a key passed in
// makes every read a generic lookup, which a 2,000-transaction block feels (npm run bench, 2d).

export function accountOf(op: Operation): string | undefined {
	const account = op.account;
	return isObject(account) ? textOf(account.address) : undefined;
}

/** The amount's value of an operation that moves value (one with a value and a currency), else undefined. */
export function movedValue(op: Operation): string | undefined {
	const amount = op.amount;
	if (!isObject(amount) || !isObject(amount.currency)) return undefined;
	return textOf(amount.value);
}

/** The amount's currency of an operation movedValue() gives a value of. */
const movedCurrency = (op: Operation): Json => (op.amount as Json).currency as Json;

// A Map, not an object literal: an operation typed "constructor" or "toString" must not find an inherited member.
const MOVEMENTS = new Map<string, Action>([
	['token_transfer', 'transfer'],
	['token_mint', 'mint'],
	['token_burn', 'burn'],
	['stx_lock', 'lock'],
]);

/** `${token}_${action}`, without building the string for every event. */
const EVENT_TYPE_NAMES: Record<Token, Record<Action, string>> = {
	stx: { transfer: 'stx_transfer', mint: 'stx_mint', burn: 'stx_burn', lock: 'stx_lock' },
	ft: { transfer: 'ft_transfer', mint: 'ft_mint', burn: 'ft_burn', lock: 'ft_lock' },
	nft: { transfer: 'nft_transfer', mint: 'nft_mint', burn: 'nft_burn', lock: 'nft_lock' },
};

/** A currency's metadata (an FT's or NFT's), when it is an object. */
function metadataOf(currency: Json): Json | undefined {
	const metadata = currency.metadata;
	return isObject(metadata) ? metadata : undefined;
}

function sameCurrency(a: Json, b: Json): boolean {
	const ma = metadataOf(a);
	const mb = metadataOf(b);
	return (
		a.symbol === b.symbol &&
		a.decimals === b.decimals &&
		ma?.asset_identifier === mb?.asset_identifier &&
		ma?.token_type === mb?.token_type &&
		ma?.value === mb?.value
	);
}

/** The operation after `from` that may be a transfer's credit: the next movement other than a fee. */
function nextMovement(operations: readonly Operation[], from: number): number {
	for (let i = from + 1; i < operations.length; i++) {
		const op = operations[i];
		if (op.type !== 'fee' && movedValue(op) !== undefined) return i;
	}
	return -1;
}

/**
 * The transaction's events, in the order of their first operation. Every event is one object
 * literal of the same shape (absent fields undefined), and nothing else is allocated per
 * operation: a 2,000-transaction block feels it (npm run bench, 2d-2e).
 */
export function transactionEvents(tx: ChainTransaction): ChainEvent[] {
	const { operations } = tx;
	const events: ChainEvent[] = [];
	// The credit paired with a debit is the next movement after it, and nothing between them can
	// pair, so at most one credit is ahead at a time.
	let paired = -1;
	for (let i = 0; i < operations.length; i++) {
		if (i === paired) continue;
		const op = operations[i];
		const type = textOf(op.type) ?? 'unknown';
		const action = MOVEMENTS.get(type);
		const value = action ? movedValue(op) : undefined;
		if (!action || value === undefined) {
			const sender = type === 'fee' ? accountOf(op) : undefined;
			events.push({ type, operation: op, credit: undefined, token: undefined, action: undefined, sender, receiver: undefined, assetIdentifier: undefined, tokenId: undefined });
			continue;
		}
		const currency = movedCurrency(op);
		const meta = metadataOf(currency);
		const tokenType = meta?.token_type;
		const token: Token = tokenType === 'ft' || tokenType === 'nft' ? tokenType : 'stx';
		const address = accountOf(op);
		let sender: string | undefined;
		let receiver: string | undefined;
		let credit: Operation | undefined;
		if (action === 'mint') receiver = address;
		else if (action !== 'transfer') sender = address;
		else if (!value.startsWith('-')) receiver = address;
		else {
			sender = address;
			const next = nextMovement(operations, i);
			if (next >= 0) {
				const candidate = operations[next];
				const creditValue = candidate.type === 'token_transfer' ? movedValue(candidate) : undefined;
				if (creditValue !== undefined && !creditValue.startsWith('-') && sameCurrency(currency, movedCurrency(candidate))) {
					credit = candidate;
					receiver = accountOf(candidate);
					paired = next;
				}
			}
		}
		events.push({
			type: EVENT_TYPE_NAMES[token][action],
			operation: op,
			credit,
			token,
			action,
			sender,
			receiver,
			assetIdentifier: textOf(meta?.asset_identifier),
			tokenId: token === 'nft' ? nftIdOf(meta?.value) : undefined,
		});
	}
	return events;
}

const equalsIfGiven = (wanted: string | undefined, actual: string | undefined) => wanted === undefined || wanted === actual;

/** The token and action a token filter's type names ('event': any action). */
const TOKEN_FILTERS: Record<string, readonly [Token, Action | 'event'] | undefined> = {
	stx_transfer: ['stx', 'transfer'],
	stx_mint: ['stx', 'mint'],
	stx_burn: ['stx', 'burn'],
	ft_transfer: ['ft', 'transfer'],
	ft_mint: ['ft', 'mint'],
	ft_burn: ['ft', 'burn'],
	ft_event: ['ft', 'event'],
	nft_transfer: ['nft', 'transfer'],
	nft_mint: ['nft', 'mint'],
	nft_burn: ['nft', 'burn'],
	nft_event: ['nft', 'event'],
};

/** Does the operation move value in or out of the principal's balance? */
const movesBalanceOf = (op: Operation | undefined, principal: string | undefined) =>
	op !== undefined && movedValue(op) !== undefined && accountOf(op) === principal;

/**
 * Does the filter select this event of the transaction? Fields the filter leaves out match
 * anything. No closure or array per call: it runs for every event and filter of a delivery.
 */
export function eventMatches(filter: EventFilter, event: ChainEvent, tx: ChainTransaction): boolean {
	switch (filter.type) {
		case 'stx_event':
			// No criteria of its own: any movement of STX (transfer, mint, burn, lock).
			return event.token === 'stx';
		case 'stx_transfer':
		case 'stx_mint':
		case 'stx_burn':
		case 'ft_transfer':
		case 'ft_mint':
		case 'ft_burn':
		case 'ft_event':
		case 'nft_transfer':
		case 'nft_mint':
		case 'nft_burn':
		case 'nft_event': {
			// The type names the token and the action ('event': any action).
			const named = TOKEN_FILTERS[filter.type]!;
			return (
				event.token === named[0] &&
				(named[1] === 'event' || event.action === named[1]) &&
				equalsIfGiven(filter.asset_identifier, event.assetIdentifier) &&
				equalsIfGiven(filter.sender, event.sender) &&
				equalsIfGiven(filter.receiver, event.receiver) &&
				(filter.value === undefined || event.tokenId === String(filter.value))
			);
		}
		case 'contract_deploy':
		case 'contract_log':
			return (
				event.type === filter.type &&
				equalsIfGiven(filter.sender, textField(tx.metadata, 'sender_address')) &&
				equalsIfGiven(filter.contract_identifier, textField(event.operation.metadata, 'contract_identifier'))
			);
		case 'contract_call':
			return (
				event.type === 'contract_call' &&
				equalsIfGiven(filter.sender, textField(tx.metadata, 'sender_address')) &&
				equalsIfGiven(filter.contract_identifier, textField(event.operation.metadata, 'contract_identifier')) &&
				equalsIfGiven(filter.function_name, textField(event.operation.metadata, 'function_name'))
			);
		case 'coinbase':
			return event.type === 'coinbase';
		case 'tenure_change': {
			// The node reports extensions by what ran out (extended_runtime, ...); the filter has one `extended`.
			const cause = textField(event.operation.metadata, 'cause');
			return event.type === 'tenure_change' && filter.cause !== undefined && cause?.startsWith(filter.cause) === true;
		}
		case 'balance_change':
			// Any operation of the event that moves value in or out of the principal's balance, fees included.
			return movesBalanceOf(event.operation, filter.principal) || movesBalanceOf(event.credit, filter.principal);
		default:
			return false;
	}
}

/** Does any of the filters (they are OR-ed) select this event of the transaction? A loop, as it runs for every event. */
export function anyFilterMatches(filters: readonly EventFilter[], event: ChainEvent, tx: ChainTransaction): boolean {
	for (let f = 0; f < filters.length; f++) if (eventMatches(filters[f], event, tx)) return true;
	return false;
}

/** For a print: the public function whose call printed it (its transaction's call), or null. */
export function printingFunction(tx: ChainTransaction): string | null {
	const { operations } = tx;
	for (let i = 0; i < operations.length; i++) {
		if (operations[i].type === 'contract_call') return textOf(asRecord(operations[i].metadata)?.function_name) ?? null;
	}
	return null;
}

/** Does any of the filters (they are OR-ed) select any event of the transaction? */
export function transactionMatches(filters: readonly EventFilter[], tx: ChainTransaction): boolean {
	return transactionEvents(tx).some((event) => anyFilterMatches(filters, event, tx));
}
