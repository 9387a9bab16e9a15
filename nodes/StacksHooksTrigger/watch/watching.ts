/**
 * What the trigger watches: events matching its Trigger On filters, or what happens (Watch For) to the
 * addresses of a list typed in the node, or of a watch list kept at the service and edited by the
 * Stacks Hooks node (../../shared/watchList/). Read from the node's parameters when n8n runs it
 * (activation, trigger(), each delivery), turned into the hook's filters (at activation and when the
 * health check registers the hook again) and into what selects and names the events of each
 * delivery. A typed list is checked once per change of its text: a delivery does not parse 10,000
 * lines. A watch list is read from the hook itself, which its edits update in place
 * (listedAddresses.ts).
 */
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkedPrincipals, linesOf } from '../../shared/watchList/addressList';
import type { EventFilter } from '../../shared/chainEvents';
import type { Network } from '../../shared/constants';
import { toEventFilters, triggerOnProperty } from '../../shared/eventFilters';
import { DEFAULT_WATCH_KINDS, knownKinds, watchFilters, watchForProperty, type WatchKind } from '../../shared/watchList/kinds';
import { checkedListName, findListHook, inN8nFilters, listNameProperty, listStateOf, typedInN8nMarker, watchingFilters, watchMarker } from '../../shared/watchList/listHook';
import type { HooksClient } from '../../shared/api/client';
import { evaluatedTip } from '../../shared/watchList/edit';
import type { ListState } from '../../shared/watchList/history';
import { Slot } from '../nodeMemory';
import { WatchedAddresses } from './watchedAddresses';

type WatchMode = 'filters' | 'addresses' | 'list';

const WATCHING_ADDRESSES = { watch: ['addresses', 'list'] };

/** The trigger's parameters that say what it watches, in the order the editor shows them. */
export const watchProperties: INodeProperties[] = [
	{
		displayName: 'Watch',
		name: 'watch',
		type: 'options',
		options: [
			{ name: 'Addresses on a Watch List', value: 'list', description: 'What happens to any address of a watch list that workflows edit with the Stacks Hooks node (Watch List)' },
			{ name: 'Addresses Typed Here', value: 'addresses', description: 'What happens to any address of a list typed below: transfers in and out, mints, burns, calls' },
			{ name: 'Events Matching Filters', value: 'filters', description: 'Chain events matching one of the filters under Trigger On' },
		],
		default: 'filters',
	},
	{ ...triggerOnProperty, displayOptions: { show: { watch: ['filters'] } } },
	{
		displayName: 'Addresses',
		name: 'addresses',
		type: 'string',
		typeOptions: { rows: 8 },
		default: '',
		required: true,
		placeholder: 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM\nST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG.my-vault',
		description:
			"The addresses to watch, one per line: Stacks addresses of the credential's network, or contracts (ADDRESS.contract-name). Blank lines, lines starting with # and repeats are left out. Each item names the addresses it is about under `watched`.",
		displayOptions: { show: { watch: ['addresses'] } },
	},
	{
		...listNameProperty,
		description:
			"The list's name. Workflows add and remove its addresses with the Stacks Hooks node (Watch List); the hook follows each edit in place, within seconds. The list is kept at the service and outlives this workflow's deactivation.",
		displayOptions: { show: { watch: ['list'] } },
	},
	{ ...watchForProperty, displayOptions: { show: WATCHING_ADDRESSES } },
];

/** The parameters as the node holds them, read while n8n runs it (the health check runs outside any run). */
export interface WatchParameters {
	watch: WatchMode;
	events: IDataObject;
	addresses: string;
	listName: string;
	watchFor: WatchKind[];
}

type ParameterReader = { getNodeParameter(name: string, fallback: unknown): unknown };

export function readWatchParameters(ctx: ParameterReader): WatchParameters {
	const mode = ctx.getNodeParameter('watch', 'filters');
	const watch: WatchMode = mode === 'addresses' || mode === 'list' ? mode : 'filters';
	if (watch === 'filters') return { watch, events: ctx.getNodeParameter('events', {}) as IDataObject, addresses: '', listName: '', watchFor: [] };
	const kinds = ctx.getNodeParameter('watchFor', DEFAULT_WATCH_KINDS);
	return {
		watch,
		events: {},
		addresses: watch === 'addresses' ? String(ctx.getNodeParameter('addresses', '') ?? '') : '',
		listName: watch === 'list' ? String(ctx.getNodeParameter('listName', '') ?? '') : '',
		watchFor: knownKinds(Array.isArray(kinds) ? kinds : []),
	};
}

/** What the trigger watches, as the hook's filters and, for a list, what names each event's addresses. */
export interface Watching {
	filters: EventFilter[];
	list?: WatchedAddresses;
}

/** The last list each node watched, by its text and kinds: parsed again only when they change. */
const lastList = new Slot<{ text: string; kinds: string; network: Network; watching: Watching }>('typed address list');

/**
 * `key`: the node's (../nodeMemory.ts), under which the parsed list is kept. Throws, naming each bad line,
 * when the list holds an entry that is not a principal of `network`, and when it or Watch For is empty.
 */
export function watchingOf(node: INode, params: WatchParameters, network: Network, key: string): Watching {
	if (params.watch === 'list') throw new NodeOperationError(node, 'A watch list is read from the service (hookFilters), not from the parameters');
	if (params.watch === 'addresses') {
		const kinds = params.watchFor.join(',');
		const kept = lastList.get(key);
		if (kept && kept.text === params.addresses && kept.kinds === kinds && kept.network === network) return kept.watching;
		checkedKinds(node, params);
		const addresses = checkedPrincipals(node, linesOf(params.addresses), network, 'the address list');
		const watching = { filters: watchFilters(addresses, params.watchFor), list: new WatchedAddresses(new Set(addresses), params.watchFor) };
		lastList.set(key, { text: params.addresses, kinds, network, watching });
		return watching;
	}
	return { filters: toEventFilters(params.events) as unknown as EventFilter[] };
}

function checkedKinds(node: INode, params: WatchParameters): WatchKind[] {
	if (params.watchFor.length === 0) {
		throw new NodeOperationError(node, 'Watch For is empty', { description: 'Pick at least one kind of event to watch the addresses for.' });
	}
	return params.watchFor;
}

/** A watch list as the trigger read it to shape its hook: its name, and the chain's tip then (undefined before any block). */
export interface ListRead {
	name: string;
	tip: number | undefined;
}

/** A hook's filters, and what its name ends with. */
export interface HookShape {
	filters: EventFilter[];
	nameSuffix: string;
}

/**
 * The hook's filters, and what its name ends with: for a watch list, the list's addresses as the service
 * keeps them (none yet: a filter that matches nothing, until the first is added) and the marker by which
 * an edit of the list finds this hook. Watching addresses, also `inN8n`: the shape the hook takes when the
 * service refuses one filter per address and kind as too large (filters selecting the kinds for any address,
 * the trigger matching the list; ../../shared/watchList/listHook.ts), when it has fewer filters.
 */
export async function hookFilters(node: INode, params: WatchParameters, service: HooksClient, key: string): Promise<HookShape & { inN8n?: HookShape; listRead?: ListRead }> {
	const { network } = service.connection;
	let shape: HookShape;
	let list: ListState;
	let inN8nSuffix: string;
	let listRead: ListRead | undefined;
	if (params.watch !== 'list') {
		const watching = watchingOf(node, params, network, key);
		if (!watching.list) return { filters: watching.filters, nameSuffix: '' };
		list = { addresses: [...watching.list.addresses], edits: [] };
		shape = { filters: watching.filters, nameSuffix: '' };
		inN8nSuffix = typedInN8nMarker(list.addresses);
	} else {
		const kinds = checkedKinds(node, params);
		const name = checkedListName(node, params.listName);
		const hooks = await service.list();
		const listHook = findListHook(hooks, name, network);
		// With the list's remembered edits: a hook registered again (the health check) replays heights before them.
		list = listHook ? listStateOf(listHook) : { addresses: [], edits: [] };
		shape = { filters: watchingFilters(list, kinds, network), nameSuffix: watchMarker(name, kinds, list) };
		inN8nSuffix = watchMarker(name, kinds, list, true);
		listRead = { name, tip: evaluatedTip(hooks, network) };
	}
	const broad = inN8nFilters(list, params.watchFor, network, shape.filters);
	const withRead = listRead ? { ...shape, listRead } : shape;
	return broad ? { ...withRead, inN8n: { filters: broad, nameSuffix: inN8nSuffix } } : withRead;
}
