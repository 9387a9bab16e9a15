/**
 * The addresses of a watch list as a delivery is matched against them: read from the hook that
 * delivered it (its filters are the list's, updated in place by each edit, with the list's remembered
 * edits, by which each block is matched with the list at its height: ../../shared/watchList/history.ts;
 * for a hook matched in n8n, the addresses from the list's own hook, as its filters name none) and kept in this process
 * under the list's digest in the hook's name, which every delivery carries: an edit (which changes
 * both at once) is seen on the first delivery after it, an address added a moment before named, one
 * removed no longer. The last few lists are kept, for a delivery matched before an edit and taken after
 * it; one matched with a list this process never read is named with the hook's list as it is now. A
 * webhook process of queue mode keeps its own copies.
 */
import type { INode, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { HooksClient } from '../../shared/api/client';
import { ListAtHeights } from '../../shared/watchList/history';
import { findListHook, type ListState, listStateOf, watchedListOf, watchedStateOf } from '../../shared/watchList/listHook';
import type { Delivery } from '../../shared/delivery';
import { nodeKey, Slot } from '../nodeMemory';
import { WatchedAddresses } from './watchedAddresses';
import type { Watching, WatchParameters } from './watching';

/** Per node, by hook, the digest of its list and the kinds: the lists last read, newest last. */
const kept = new Slot<Map<string, Watching>>('watch lists read');
const KEPT_LISTS = 4;

/** What names the delivery's events: the addresses of the list its hook was matched with. */
export async function listedAddresses(ctx: IWebhookFunctions, node: INode, delivery: Delivery, params: WatchParameters): Promise<Watching> {
	const uuid = delivery.chainhook.uuid;
	const digest = watchedListOf(delivery.chainhook.name ?? '')?.digest;
	const kinds = params.watchFor.join(',');
	const key = nodeKey(ctx, node);
	const lists = kept.get(key) ?? new Map<string, Watching>();
	const known = digest === undefined ? undefined : lists.get(`${uuid} ${digest} ${kinds}`);
	if (known) return known;
	const service = await HooksClient.connect(ctx);
	const hook = await service.read(uuid);
	if (!hook) throw new NodeOperationError(node, `The hook ${uuid} that sent this delivery is gone: its watch list could not be read`);
	const watched = watchedListOf(hook.definition.name);
	let list: ListState;
	if (watched?.inN8n) {
		// Its filters select the kinds for any address: the list, and its edits, are the list hook's.
		const listHook = findListHook(await service.list(), watched.name, service.connection.network);
		list = listHook ? listStateOf(listHook) : { addresses: [], edits: [] };
	} else list = watchedStateOf(hook.definition.filters.events);
	const addresses = new Set(list.addresses);
	const watching = { filters: [], list: new WatchedAddresses(addresses, params.watchFor, new ListAtHeights(addresses, list.edits)) };
	lists.set(`${uuid} ${watched?.digest} ${kinds}`, watching);
	if (lists.size > KEPT_LISTS) lists.delete(lists.keys().next().value!);
	kept.set(key, lists);
	return watching;
}
