/**
 * Where a watch list is kept: at the service, as a hook of its own that is never enabled (a "list
 * hook", named `n8n watch list: <name>`), one `balance_change` filter per address, and the records of
 * its recent edits (history.ts), which its watching hooks hold too. It is the one
 * place both nodes reach with the credential, in every topology, and it outlives what n8n keeps:
 * a restart, the trigger's deactivation (which deletes only the trigger's own hook), a health
 * check registering that hook again. n8n keeps no store both reach: a community node may not call
 * n8n's Data Table helpers, and a trigger's static data is out of the action node's reach.
 *
 * A trigger watching a list says so in its hook's name (`… [watch list: deposits | stxReceived
 * stxSent | 3f9a0c1d]`): that is how an edit finds the hooks to update, with which kinds; the last part
 * is a digest of the list the hook's filters hold (its addresses and edits), which every delivery carries (the payload names
 * its hook): the trigger knows from it, with no request, whether the list it holds is the one the
 * service matched the delivery with.
 *
 * A list too large for one filter per address and kind (the service refused it) is watched by a hook
 * whose filters select the kinds for any address (kinds.ts, broadWatchFilters), its marker ending
 * `| matched in n8n]`: the trigger keeps the listed addresses' transactions of each delivery, and reads the
 * list from the list hook, not from its own filters. A typed list watched that way says so too
 * (` [addresses | <digest> | matched in n8n]`).
 */
import { createHash } from 'crypto';

import type { INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { EventFilter } from '../chainEvents';
import { BOOT_ADDRESSES, NETWORKS, type Network } from '../constants';
import type { Definition, Hook } from '../schemas';
import type { HooksClient } from '../api/client';
import { editFilters, lingering, type ListState, listStateIn } from './history';
import { broadWatchFilters, knownKinds, principalsOf, watchFilters, type WatchKind } from './kinds';

const PREFIX = 'n8n watch list: ';
const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

/** The parameter that names a list, in the action node's Watch List operations and the trigger. */
export const listNameProperty: INodeProperties = {
	displayName: 'Watch List',
	name: 'listName',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. deposits',
	description:
		'The name of the list, as a Stacks Hooks Trigger watching it names it. The list is kept at the service, as a hook of its own that never delivers.',
};

/** A list's name as a user typed it, trimmed; throws when it is not one. */
export function checkedListName(node: INode, raw: unknown, itemIndex?: number): string {
	const name = String(raw ?? '').trim();
	if (!NAME.test(name)) {
		throw new NodeOperationError(node, `"${name}" is not a watch list name`, {
			itemIndex,
			description: 'A name is 1 to 64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit, e.g. deposits.',
		});
	}
	return name;
}

export const listHookName = (name: string) => `${PREFIX}${name}`;

/**
 * A filter no event matches (an NFT of a contract that cannot exist), held by a hook whose list is empty:
 * the service's filters are OR-ed, and a definition needs one.
 */
export const matchNothing = (network: Network): EventFilter => ({ type: 'nft_burn', asset_identifier: `${BOOT_ADDRESSES[network]}.n8n-empty-watch-list::none` });

/** `filters`, or the filter that matches nothing when there are none. */
const orNothing = (filters: EventFilter[], network: Network) => (filters.length > 0 ? filters : [matchNothing(network)]);

/** Never posted to: the list hook is never enabled, and `.invalid` never resolves (RFC 2606). */
const NOWHERE = 'https://watch-list.invalid/';

/**
 * The definition of list `name` in state `list`: a filter per address, those lately removed after the listed ones
 * (history.ts, lingering), then the records of the edits, which name the addresses by their place among these.
 */
export function listDefinition(name: string, network: Network, list: ListState): Definition {
	const slots = selected(list);
	const events = orNothing([...slots.map((principal) => ({ type: 'balance_change', principal })), ...editFilters(network, slots, list.edits)], network);
	return { name: listHookName(name), version: '1', chain: 'stacks', network, filters: { events }, action: { type: 'http_post', url: `${NOWHERE}${encodeURIComponent(name)}` } } as Definition;
}

/** The list hook of `name` among the account's hooks (the oldest, should there be two). */
export function findListHook(hooks: readonly Hook[], name: string, network: Network): Hook | undefined {
	return hooks.find((hook) => hook.definition.name === listHookName(name) && hook.definition.network === network);
}

/** The addresses a list hook's filters name, in order: one `balance_change` filter each. */
function slotsOf(filters: ReadonlyArray<Record<string, unknown>>): string[] {
	const slots: string[] = [];
	for (const filter of filters) if (filter.type === 'balance_change' && typeof filter.principal === 'string') slots.push(filter.principal);
	return slots;
}

/** A list hook's state: its addresses in order (those lately removed left out) and its remembered edits. */
export const listStateOf = (hook: Hook): ListState => listStateIn(hook.definition.filters.events, slotsOf(hook.definition.filters.events));

/** The addresses a list hook holds, in order. */
export const addressesOf = (hook: Hook): string[] => [...listStateOf(hook).addresses];

/**
 * The list a watching hook is matched with, as the service holds it now: the one its own filters hold (one per
 * address and kind), or, for a hook matched in n8n, whose filters name no address, the one its list hook holds.
 * A list hook that is gone holds no address.
 */
export async function watchedListState(hook: Hook, service: HooksClient): Promise<ListState> {
	let filters = hook.definition.filters.events;
	let slots: string[];
	const watched = watchedListOf(hook.definition.name);
	if (watched?.inN8n) {
		const listHook = findListHook(await service.list(), watched.name, service.connection.network);
		if (!listHook) return { addresses: [], edits: [] };
		filters = listHook.definition.filters.events;
		slots = slotsOf(filters);
	} else slots = [...principalsOf(filters)];
	return listStateIn(filters, slots);
}

/** A short digest of a list's addresses, in order, and of its remembered edits. */
export function listDigest(list: ListState): string {
	const edits = list.edits.map((edit) => `${edit.listed ? '+' : '-'}${edit.address}@${edit.height}`);
	return createHash('sha256')
		.update([...list.addresses, ...(edits.length > 0 ? ['#', ...edits] : [])].join('\n'))
		.digest('hex')
		.slice(0, 8);
}

const IN_N8N = ' | matched in n8n';

/** What a watching hook's name ends with; `inN8n`: its filters select the kinds for any address. */
export const watchMarker = (name: string, kinds: readonly WatchKind[], list: ListState, inN8n = false) =>
	` [watch list: ${name} | ${kinds.join(' ')} | ${listDigest(list)}${inN8n ? IN_N8N : ''}]`;

/** What the name of a hook watching a typed list ends with when its filters select the kinds for any address. */
export const typedInN8nMarker = (addresses: readonly string[]) => ` [addresses | ${listDigest({ addresses, edits: [] })}${IN_N8N}]`;

const MARKER = / \[watch list: ([^|\]]+) \| ([^|\]]*) \| ([0-9a-f]{8})( \| matched in n8n)?\]$/;

export interface WatchedList {
	name: string;
	kinds: WatchKind[];
	/** listDigest of the addresses the hook watches. */
	digest: string;
	/** Its filters select the kinds for any address; the trigger matches the list. */
	inN8n: boolean;
}

/** The list a hook (by its name) watches, with which kinds; undefined for a hook watching no list. */
export function watchedListOf(hookName: string): WatchedList | undefined {
	const found = MARKER.exec(hookName);
	if (!found) return undefined;
	const kinds = knownKinds(found[2].split(' '));
	return kinds.length > 0 ? { name: found[1], kinds, digest: found[3], inN8n: found[4] !== undefined } : undefined;
}

/** Whether a hook (by its name) leaves the matching of its addresses to the trigger. */
export const matchedInN8n = (hookName: string) => hookName.endsWith(`${IN_N8N}]`);

/**
 * The name of a watching hook without what an edit or the list's size changes (the list's digest, how it is
 * matched): what stays the same through edits.
 */
export const withoutDigest = (hookName: string) =>
	hookName.replace(/ \[addresses \| [0-9a-f]{8} \| matched in n8n\]$/, '').replace(/ \| [0-9a-f]{8}( \| matched in n8n)?\]$/, ']');

/** The addresses a watching hook's filters select: the list's and those whose removal is recent (history.ts). */
const selected = (list: ListState) => [...list.addresses, ...lingering(list.addresses, list.edits)];

/**
 * A watching hook's filters matched in n8n for `list` (kinds.ts, broadWatchFilters), when they are fewer than its
 * filters of one per address and kind, `perAddress`; undefined otherwise (no address, or nothing to gain). They hold
 * no records of edits: the trigger reads the list, edits included, from the list's own hook.
 */
export function inN8nFilters(list: ListState, kinds: readonly WatchKind[], _network: Network, perAddress: readonly EventFilter[]): EventFilter[] | undefined {
	const addresses = selected(list);
	const broad = addresses.length > 0 ? broadWatchFilters(addresses, kinds) : [];
	return broad.length > 0 && broad.length < perAddress.length ? broad : undefined;
}

/** A watching hook's filters for `list`: one per address and kind, and the records of the list's remembered edits. */
export function watchingFilters(list: ListState, kinds: readonly WatchKind[], network: Network): EventFilter[] {
	const perAddress = watchFilters(selected(list), kinds);
	return orNothing([...perAddress, ...editFilters(network, [...principalsOf(perAddress as unknown as Array<Record<string, unknown>>)], list.edits)], network);
}

export const networkOf = (hook: Hook): Network | undefined => (Object.hasOwn(NETWORKS, hook.definition.network) ? (hook.definition.network as Network) : undefined);
