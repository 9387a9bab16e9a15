/**
 * What can happen to a watched address, from one table: each kind a user picks under "Watch For",
 * and the service's filters that select it for one address (one filter per address and kind, three
 * for mints and burns: STX, tokens, NFTs). The trigger's matching of its list (StacksHooksTrigger/watch/watchedAddresses.ts)
 * says the same in its own way, and a property checks the two agree (test/suites/engine/watchList.property.test.ts).
 */
import type { INodeProperties } from 'n8n-workflow';

import type { EventFilter } from '../chainEvents';
import { isEditFilter } from './history';

export type WatchKind =
	| 'stxReceived'
	| 'stxSent'
	| 'ftReceived'
	| 'ftSent'
	| 'nftReceived'
	| 'nftSent'
	| 'minted'
	| 'burned'
	| 'balanceChanges'
	| 'contractCalls';

interface KindRow {
	value: WatchKind;
	name: string;
	description: string;
	filters: (address: string) => EventFilter[];
}

const KINDS: KindRow[] = [
	{ value: 'balanceChanges', name: 'Balance Changes', description: 'Any change to its STX or token balances, fees and locks included', filters: (a) => [{ type: 'balance_change', principal: a }] },
	{ value: 'burned', name: 'Burned From It', description: 'STX, tokens or NFTs burned from the address', filters: (a) => [{ type: 'stx_burn', sender: a }, { type: 'ft_burn', sender: a }, { type: 'nft_burn', sender: a }] },
	{ value: 'contractCalls', name: 'Contract Calls It Made', description: 'Public functions of contracts the address called', filters: (a) => [{ type: 'contract_call', sender: a }] },
	{ value: 'ftReceived', name: 'Tokens Received', description: 'Fungible tokens (SIP-010) transferred to the address', filters: (a) => [{ type: 'ft_transfer', receiver: a }] },
	{ value: 'ftSent', name: 'Tokens Sent', description: 'Fungible tokens (SIP-010) transferred from the address', filters: (a) => [{ type: 'ft_transfer', sender: a }] },
	{ value: 'minted', name: 'Minted To It', description: 'STX, tokens or NFTs minted to the address', filters: (a) => [{ type: 'stx_mint', receiver: a }, { type: 'ft_mint', receiver: a }, { type: 'nft_mint', receiver: a }] },
	{ value: 'nftReceived', name: 'NFTs Received', description: 'Non-fungible tokens (SIP-009) transferred to the address', filters: (a) => [{ type: 'nft_transfer', receiver: a }] },
	{ value: 'nftSent', name: 'NFTs Sent', description: 'Non-fungible tokens (SIP-009) transferred from the address', filters: (a) => [{ type: 'nft_transfer', sender: a }] },
	{ value: 'stxReceived', name: 'STX Received', description: 'STX transferred to the address', filters: (a) => [{ type: 'stx_transfer', receiver: a }] },
	{ value: 'stxSent', name: 'STX Sent', description: 'STX transferred from the address', filters: (a) => [{ type: 'stx_transfer', sender: a }] },
];

const ROWS = new Map(KINDS.map((row) => [row.value, row]));

export const watchForProperty: INodeProperties = {
	displayName: 'Watch For',
	name: 'watchFor',
	type: 'multiOptions',
	options: KINDS.map(({ name, value, description }) => ({ name, value, description })),
	// Transfers in and out, of STX, tokens and NFTs: what a deposit or treasury address is watched for.
	default: ['stxReceived', 'stxSent', 'ftReceived', 'ftSent', 'nftReceived', 'nftSent'],
	required: true,
	description: 'What happening to an address on the list starts the workflow',
};

export const DEFAULT_WATCH_KINDS = watchForProperty.default as WatchKind[];

/** The kinds among `values` that exist, each once, in the table's order; unknown values are left out. */
export function knownKinds(values: readonly unknown[]): WatchKind[] {
	return KINDS.map((row) => row.value).filter((kind) => values.includes(kind));
}

/** The service's filters for every address and kind, address by address. */
export function watchFilters(addresses: readonly string[], kinds: readonly WatchKind[]): EventFilter[] {
	const rows = kinds.map((kind) => ROWS.get(kind)!);
	const filters: EventFilter[] = [];
	for (const address of addresses) for (const row of rows) filters.push(...row.filters(address));
	return filters;
}

/**
 * The filters of a hook that selects the kinds for any address and leaves the matching of the list to the
 * trigger: each kind's filters without their sender or receiver (optional fields), each once; a filter that
 * names the address in a field the service requires (`balance_change`'s principal: no other filter selects
 * fees) stays one per address.
 */
export function broadWatchFilters(addresses: readonly string[], kinds: readonly WatchKind[]): EventFilter[] {
	const filters: EventFilter[] = [];
	const seen = new Set<string>();
	for (const kind of kinds) {
		const row = ROWS.get(kind)!;
		for (const filter of row.filters('')) {
			if ('principal' in filter) {
				for (const address of addresses) filters.push({ ...filter, principal: address });
				continue;
			}
			const broad: EventFilter = { ...filter };
			delete broad.sender;
			delete broad.receiver;
			const key = JSON.stringify(broad);
			if (!seen.has(key)) filters.push(broad);
			seen.add(key);
		}
	}
	return filters;
}

/** How many filters one address costs with these kinds. */
export const filtersPerAddress = (kinds: readonly WatchKind[]) => kinds.reduce((sum, kind) => sum + ROWS.get(kind)!.filters('').length, 0);

/** The principals a watching hook's filters name (the addresses watchFilters made them of), each once; not its recorded edits. */
export function principalsOf(filters: ReadonlyArray<Record<string, unknown>>): Set<string> {
	const found = new Set<string>();
	for (const filter of filters) {
		if (isEditFilter(filter)) continue;
		for (const value of [filter.sender, filter.receiver, filter.principal]) if (typeof value === 'string') found.add(value);
	}
	return found;
}
