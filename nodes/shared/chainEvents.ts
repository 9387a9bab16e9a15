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
 * checked only to be objects (deliveryShape.ts), so every field is read
 * defensively: a field of the wrong type counts as absent.
 */

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
	/** An NFT's id as the service wrote it (a Clarity value, e.g. `u42`). */
	tokenValue?: string;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function field(object: unknown, key: string): unknown {
	return isObject(object) ? object[key] : undefined;
}

export const textField = (object: unknown, key: string): string | undefined => textOf(field(object, key));

export function accountOf(op: Operation): string | undefined {
	return textField(op.account, 'address');
}

/** The amount's value and currency of an operation that moves value, else undefined. */
export function amountOf(op: Operation): { value: string; currency: Json } | undefined {
	const value = textField(op.amount, 'value');
	const currency = field(op.amount, 'currency');
	return value !== undefined && isObject(currency) ? { value, currency } : undefined;
}

const MOVEMENTS: Record<string, Action | undefined> = { token_transfer: 'transfer', token_mint: 'mint', token_burn: 'burn', stx_lock: 'lock' };

function sameCurrency(a: Json, b: Json): boolean {
	const [ma, mb] = [field(a, 'metadata'), field(b, 'metadata')];
	return (
		a.symbol === b.symbol &&
		a.decimals === b.decimals &&
		field(ma, 'asset_identifier') === field(mb, 'asset_identifier') &&
		field(ma, 'token_type') === field(mb, 'token_type') &&
		field(ma, 'value') === field(mb, 'value')
	);
}

/** The operation after `from` that may be a transfer's credit: the next movement other than a fee. */
function nextMovement(operations: readonly Operation[], from: number): number {
	for (let i = from + 1; i < operations.length; i++) {
		const op = operations[i];
		if (op.type !== 'fee' && amountOf(op)) return i;
	}
	return -1;
}

/** The transaction's events, in the order of their first operation. */
export function transactionEvents(tx: ChainTransaction): ChainEvent[] {
	const { operations } = tx;
	const events: ChainEvent[] = [];
	const paired = new Set<number>();
	for (let i = 0; i < operations.length; i++) {
		if (paired.has(i)) continue;
		const op = operations[i];
		const type = textOf(op.type) ?? 'unknown';
		const action = MOVEMENTS[type];
		const amount = action ? amountOf(op) : undefined;
		if (!action || !amount) {
			events.push(type === 'fee' ? { type, operation: op, sender: accountOf(op) } : { type, operation: op });
			continue;
		}
		const meta = field(amount.currency, 'metadata');
		const tokenType = field(meta, 'token_type');
		const token: Token = tokenType === 'ft' || tokenType === 'nft' ? tokenType : 'stx';
		const event: ChainEvent = {
			type: `${token}_${action}`,
			operation: op,
			token,
			action,
			assetIdentifier: textField(meta, 'asset_identifier'),
			tokenValue: textField(meta, 'value'),
		};
		const address = accountOf(op);
		if (action === 'mint') event.receiver = address;
		else if (action !== 'transfer') event.sender = address;
		else if (!amount.value.startsWith('-')) event.receiver = address;
		else {
			event.sender = address;
			const next = nextMovement(operations, i);
			const credit = next >= 0 ? operations[next] : undefined;
			const creditAmount = credit && credit.type === 'token_transfer' ? amountOf(credit) : undefined;
			if (credit && creditAmount && !creditAmount.value.startsWith('-') && sameCurrency(amount.currency, creditAmount.currency)) {
				event.credit = credit;
				event.receiver = accountOf(credit);
				paired.add(next);
			}
		}
		events.push(event);
	}
	return events;
}

const equalsIfGiven = (wanted: string | undefined, actual: string | undefined) => wanted === undefined || wanted === actual;

/** Does the filter select this event of the transaction? Fields the filter leaves out match anything. */
export function eventMatches(filter: EventFilter, event: ChainEvent, tx: ChainTransaction): boolean {
	const sentBy = () => equalsIfGiven(filter.sender, textField(tx.metadata, 'sender_address'));
	const inContract = () => equalsIfGiven(filter.contract_identifier, textField(event.operation.metadata, 'contract_identifier'));
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
			const [token, action] = filter.type.split('_');
			return (
				event.token === token &&
				(action === 'event' || event.action === action) &&
				equalsIfGiven(filter.asset_identifier, event.assetIdentifier) &&
				equalsIfGiven(filter.sender, event.sender) &&
				equalsIfGiven(filter.receiver, event.receiver) &&
				(filter.value === undefined || event.tokenValue?.replace(/^u/, '') === String(filter.value))
			);
		}
		case 'contract_deploy':
		case 'contract_log':
			return event.type === filter.type && sentBy() && inContract();
		case 'contract_call':
			return (
				event.type === 'contract_call' &&
				sentBy() &&
				inContract() &&
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
			return [event.operation, event.credit].some((op) => op !== undefined && amountOf(op) !== undefined && accountOf(op) === filter.principal);
		default:
			return false;
	}
}

/** Does any of the filters (they are OR-ed) select any event of the transaction? */
export function transactionMatches(filters: readonly EventFilter[], tx: ChainTransaction): boolean {
	return transactionEvents(tx).some((event) => filters.some((filter) => eventMatches(filter, event, tx)));
}
