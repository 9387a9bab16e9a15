/**
 * Which addresses of the trigger's list an event is about, and in which direction: what each item of
 * a watch-list trigger names (`watched`), so a workflow routes by customer without a lookup. A few
 * set lookups per event, whatever the size of the list, where the hook's filters (kinds.ts) are one per
 * address and kind: a 10,000-address list is 60,000 filters, which no item may loop over.
 */
import type { ChainEvent, ChainTransaction, Operation } from '../../shared/chainEvents';
import { accountOf, movedValue, textField, transactionEvents } from '../../shared/chainEvents';
import type { ListAtHeights } from '../../shared/watchList/history';
import type { WatchKind } from '../../shared/watchList/kinds';

export type WatchDirection = 'in' | 'out';

export interface Watched {
	address: string;
	direction: WatchDirection;
}

const SENT = { stx: 'stxSent', ft: 'ftSent', nft: 'nftSent' } as const;
const RECEIVED = { stx: 'stxReceived', ft: 'ftReceived', nft: 'nftReceived' } as const;

export class WatchedAddresses {
	private readonly kinds: ReadonlySet<WatchKind>;
	private readonly byHeight = new Map<number, WatchedAddresses>();

	/**
	 * `addresses`: the list now; `history`: its remembered edits (../../shared/watchList/history.ts), by which
	 * `at(height)` is the list at a height; `height`: the height this one is the list at.
	 */
	constructor(
		readonly addresses: ReadonlySet<string>,
		kinds: readonly WatchKind[],
		private readonly history?: ListAtHeights,
		private readonly height?: number,
	) {
		this.kinds = new Set(kinds);
	}

	get size(): number {
		return this.addresses.size;
	}

	/** Whether edits are remembered: the list is then not the same at every height, and the hook's filters select more than it. */
	get variesByHeight(): boolean {
		return this.history?.edited === true;
	}

	/** The list as it was at `height`: what a block of that height, applied or undone, is matched with. */
	at(height: number): WatchedAddresses {
		if (!this.variesByHeight || this.height !== undefined) return this;
		let list = this.byHeight.get(height);
		if (!list) {
			// A list kept for many deliveries (listedAddresses.ts) keeps the heights of the last few.
			if (this.byHeight.size >= 64) this.byHeight.clear();
			list = new WatchedAddresses(this.addresses, [...this.kinds], this.history, height);
			this.byHeight.set(height, list);
		}
		return list;
	}

	private listed(address: string): boolean {
		return this.history && this.height !== undefined ? this.history.has(address, this.height) : this.addresses.has(address);
	}

	/** The listed addresses `event` is about for the kinds watched, each address and direction once; empty when none. */
	of(event: ChainEvent, tx: ChainTransaction): Watched[] {
		const found: Watched[] = [];
		const { token, action } = event;
		if (token !== undefined) {
			if (action === 'transfer') {
				if (this.kinds.has(SENT[token])) this.add(found, event.sender, 'out');
				if (this.kinds.has(RECEIVED[token])) this.add(found, event.receiver, 'in');
			} else if (action === 'mint' && this.kinds.has('minted')) this.add(found, event.receiver, 'in');
			else if (action === 'burn' && this.kinds.has('burned')) this.add(found, event.sender, 'out');
		}
		if (event.type === 'contract_call' && this.kinds.has('contractCalls')) this.add(found, textField(tx.metadata, 'sender_address'), 'out');
		if (this.kinds.has('balanceChanges')) {
			this.addBalance(found, event, event.operation);
			if (event.credit !== undefined) this.addBalance(found, event, event.credit);
		}
		return found;
	}

	/** The listed addresses any event of the transactions is about, each address and direction once (a transaction's or a block's item). */
	ofTransactions(transactions: readonly ChainTransaction[]): Watched[] {
		const found: Watched[] = [];
		for (const tx of transactions) {
			for (const event of transactionEvents(tx)) for (const watched of this.of(event, tx)) this.add(found, watched.address, watched.direction);
		}
		return found;
	}

	/**
	 * An operation that moves value in or out of a listed balance (the service's balance_change): out when
	 * it is a debit, or the event's sender's (a burn, a lock, a fee); in otherwise (a credit, a mint).
	 */
	private addBalance(found: Watched[], event: ChainEvent, op: Operation): void {
		const value = movedValue(op);
		if (value === undefined) return;
		const account = accountOf(op);
		const out = op !== event.credit && (value.startsWith('-') || (event.sender === account && event.receiver !== account));
		this.add(found, account, out ? 'out' : 'in');
	}

	private add(found: Watched[], address: string | undefined, direction: WatchDirection): void {
		if (address === undefined || !this.listed(address)) return;
		for (const seen of found) if (seen.address === address && seen.direction === direction) return;
		found.push({ address, direction });
	}
}
