/**
 * The addresses of a watch list as a delivery is matched against them. They are read from the hook that
 * delivered it (../../shared/watchList/listHook.ts, watchedListState): each edit of the list updates its filters
 * in place, with the list's remembered edits, by which each block is matched with the list at its height
 * (../../shared/watchList/history.ts).
 *
 * What was read is kept in this process under the hook's name, which every delivery carries. The name ends with
 * a digest of the list, and an edit changes both at once. So an edit is seen on the first delivery after it: an
 * address added a moment before is named, one removed is no longer. The last few lists are kept, for a delivery
 * matched before an edit and taken after it. One matched with a list this process never read is named with the
 * hook's list as it is now. A webhook process of queue mode keeps its own copies.
 */
import type { INode, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { HooksClient } from '../../shared/api/client';
import { ListAtHeights } from '../../shared/watchList/history';
import { watchedListState } from '../../shared/watchList/listHook';
import type { Delivery } from '../../shared/delivery';
import { nodeKey, Slot } from '../nodeMemory';
import { WatchedAddresses } from './watchedAddresses';
import type { Watching, WatchParameters } from './watching';

/** Per node, by hook name and kinds, the lists last read, newest last. */
const kept = new Slot<Map<string, Watching>>('watch lists read');
const KEPT_LISTS = 4;

/** What names the delivery's events: the addresses of the list its hook was matched with. */
export async function listedAddresses(ctx: IWebhookFunctions, node: INode, delivery: Delivery, params: WatchParameters): Promise<Watching> {
	const uuid = delivery.chainhook.uuid;
	const kinds = params.watchFor.join(',');
	const key = nodeKey(ctx, node);
	const lists = kept.get(key) ?? new Map<string, Watching>();
	const known = lists.get(`${uuid} ${delivery.chainhook.name ?? ''} ${kinds}`);
	if (known) return known;
	const service = await HooksClient.connect(ctx);
	const hook = await service.read(uuid);
	if (!hook) throw new NodeOperationError(node, `The hook ${uuid} that sent this delivery is gone: its watch list could not be read`);
	const list = await watchedListState(hook, service);
	const addresses = new Set(list.addresses);
	const history = new ListAtHeights(addresses, list.edits);
	const watching = { filters: [], list: new WatchedAddresses(addresses, params.watchFor, history) };
	lists.set(`${uuid} ${hook.definition.name} ${kinds}`, watching);
	if (lists.size > KEPT_LISTS) lists.delete(lists.keys().next().value!);
	kept.set(key, lists);
	return watching;
}
