/**
 * What the trigger watches: events matching its Trigger On filters, or what happens to the
 * addresses of a list it holds (Watch For). Read from the node's parameters when n8n runs it
 * (activation, trigger(), each delivery), turned into the hook's filters (at activation and when the
 * health check registers the hook again) and into what selects and names the events of each
 * delivery. The list is checked once per change of its text: a delivery does not parse 10,000 lines.
 */
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkedPrincipals, linesOf } from '../../shared/addressList';
import type { EventFilter } from '../../shared/chainEvents';
import type { Network } from '../../shared/constants';
import { toEventFilters, triggerOnProperty } from '../../shared/eventFilters';
import { DEFAULT_WATCH_KINDS, knownKinds, watchFilters, watchForProperty, type WatchKind } from './kinds';
import { WatchedAddresses } from './watchedAddresses';

type WatchMode = 'filters' | 'addresses';

const WATCH_LIST = { watch: ['addresses'] };

/** The trigger's parameters that say what it watches, in the order the editor shows them. */
export const watchProperties: INodeProperties[] = [
	{
		displayName: 'Watch',
		name: 'watch',
		type: 'options',
		options: [
			{ name: 'Addresses on a List', value: 'addresses', description: 'What happens to any address of a list: transfers in and out, mints, burns, calls' },
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
		displayOptions: { show: WATCH_LIST },
	},
	{ ...watchForProperty, displayOptions: { show: WATCH_LIST } },
];

/** The parameters as the node holds them, read while n8n runs it (the health check runs outside any run). */
export interface WatchParameters {
	watch: WatchMode;
	events: IDataObject;
	addresses: string;
	watchFor: WatchKind[];
}

type ParameterReader = { getNodeParameter(name: string, fallback: unknown): unknown };

export function readWatchParameters(ctx: ParameterReader): WatchParameters {
	const watch = ctx.getNodeParameter('watch', 'filters') === 'addresses' ? 'addresses' : 'filters';
	if (watch === 'filters') return { watch, events: ctx.getNodeParameter('events', {}) as IDataObject, addresses: '', watchFor: [] };
	const kinds = ctx.getNodeParameter('watchFor', DEFAULT_WATCH_KINDS);
	return {
		watch,
		events: {},
		addresses: String(ctx.getNodeParameter('addresses', '') ?? ''),
		watchFor: knownKinds(Array.isArray(kinds) ? kinds : []),
	};
}

/** What the trigger watches, as the hook's filters and, for a list, what names each event's addresses. */
export interface Watching {
	filters: EventFilter[];
	list?: WatchedAddresses;
}

/** The last list each node watched, by its text and kinds: parsed again only when they change. */
const lastList = new Map<string, { text: string; kinds: string; network: Network; watching: Watching }>();

/**
 * `key`: the node's (../nodeKey.ts), under which the parsed list is kept. Throws, naming each bad line,
 * when the list holds an entry that is not a principal of `network`, and when it or Watch For is empty.
 */
export function watchingOf(node: INode, params: WatchParameters, network: Network, key: string): Watching {
	if (params.watch === 'filters') return { filters: toEventFilters(params.events) as unknown as EventFilter[] };
	const kinds = params.watchFor.join(',');
	const kept = lastList.get(key);
	if (kept && kept.text === params.addresses && kept.kinds === kinds && kept.network === network) return kept.watching;
	if (params.watchFor.length === 0) {
		throw new NodeOperationError(node, 'Watch For is empty', { description: 'Pick at least one kind of event to watch the addresses for.' });
	}
	const addresses = checkedPrincipals(node, linesOf(params.addresses), network, 'the address list');
	const watching = { filters: watchFilters(addresses, params.watchFor), list: new WatchedAddresses(new Set(addresses), params.watchFor) };
	lastList.set(key, { text: params.addresses, kinds, network, watching });
	return watching;
}
