/**
 * The one way a delivery enters watch/: the part of it the trigger watches, and what names the addresses
 * of its events. The caller (../delivery/receive.ts) turns the answer into items (../items/).
 *
 * - Trigger On filters: the delivery as it came. With One Item per Event, the filters pick the events.
 * - An address list typed in the node: parsed once per text (watching.ts). It names each event's addresses.
 * - A watch list: read from the hook that sent the delivery (listedAddresses.ts).
 *
 * Sometimes the service matched the blocks with more than the list held at their heights. That happens
 * with filters for any address (a list too large for one filter per address), and with addresses removed
 * lately (a watch list remembers its edits). Then only the listed transactions are kept
 * (listedTransactions.ts). A hook of one filter per address of a list never edited selects exactly the list.
 */
import type { INode, IWebhookFunctions } from 'n8n-workflow';

import type { Network } from '../../shared/constants';
import type { Delivery } from '../../shared/delivery';
import { matchedInN8n } from '../../shared/watchList/listHook';
import { nodeKey } from '../nodeMemory';
import { deliveryOption } from '../parameters';
import { listedAddresses } from './listedAddresses';
import { listedTransactionsOf } from './listedTransactions';
import { readWatchParameters, type Watching, watchingOf } from './watching';

export interface WatchedPart {
	/** The delivery, cut down to the listed transactions when the service matched more. */
	delivery: Delivery;
	/** What the trigger watches, when the items need it: the filters that pick events, the list that names addresses. */
	watching?: Watching;
}

/** `eventItems`: the caller makes one item per event, which the filters pick. */
export async function watchedPart(ctx: IWebhookFunctions, node: INode, delivery: Delivery, eventItems: boolean): Promise<WatchedPart> {
	const watch = deliveryOption<string>(ctx, node, 'watch', 'filters');
	if (watch !== 'list' && watch !== 'addresses' && !eventItems) return { delivery };
	const params = readWatchParameters(ctx);
	const watching =
		watch === 'list'
			? await listedAddresses(ctx, node, delivery, params)
			: // A typed list was checked at activation on the credential's network, which is the delivery's.
				watchingOf(node, params, delivery.event.network as Network, nodeKey(ctx, node));
	const list = watching.list;
	const listedOnly = list && (list.variesByHeight || matchedInN8n(delivery.chainhook.name ?? ''));
	return { delivery: listedOnly ? listedTransactionsOf(delivery, list) : delivery, watching };
}
