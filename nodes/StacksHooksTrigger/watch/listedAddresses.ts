/**
 * The addresses of a watch list as a delivery is matched against them: read from the hook that
 * delivered it (its filters are the list's, updated in place by each edit), kept in this process
 * for a minute, and read again at once when a delivery holds a transaction about none of them (an
 * address added since: the service delivered it because its filters now name it). A webhook
 * process of queue mode keeps its own copy.
 */
import type { INode, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { serviceFor } from '../../shared/api/service';
import { transactionEvents } from '../../shared/chainEvents';
import { getConnection } from '../../shared/transport/connection';
import type { Delivery } from '../delivery/shape';
import { WatchedAddresses } from './watchedAddresses';
import type { Watching, WatchParameters } from './watching';

const FRESH_MS = 60_000;

const kept = new Map<string, { at: number; kinds: string; watching: Watching }>();

/** The principals a watching hook's filters name. */
function principalsOf(filters: ReadonlyArray<Record<string, unknown>>): Set<string> {
	const found = new Set<string>();
	for (const filter of filters) {
		for (const value of [filter.sender, filter.receiver, filter.principal]) if (typeof value === 'string') found.add(value);
	}
	return found;
}

/** Does every transaction of the delivery hold an event about the list? */
function allAbout(watching: Watching, delivery: Delivery): boolean {
	const { list } = watching;
	return [...delivery.event.apply, ...delivery.event.rollback].every((block) =>
		block.transactions.every((tx) => transactionEvents(tx).some((event) => list!.of(event, tx).length > 0)),
	);
}

async function read(ctx: IWebhookFunctions, node: INode, uuid: string, params: WatchParameters): Promise<Watching> {
	const hook = await serviceFor(ctx, await getConnection(ctx)).read(uuid);
	if (!hook) throw new NodeOperationError(node, `The hook ${uuid} that sent this delivery is gone: its watch list could not be read`);
	const watching = { filters: [], list: new WatchedAddresses(principalsOf(hook.definition.filters.events), params.watchFor) };
	kept.set(uuid, { at: Date.now(), kinds: params.watchFor.join(','), watching });
	return watching;
}

/** What names the delivery's events: the addresses its hook watches now. */
export async function listedAddresses(ctx: IWebhookFunctions, node: INode, delivery: Delivery, params: WatchParameters): Promise<Watching> {
	const uuid = delivery.chainhook.uuid;
	const known = kept.get(uuid);
	if (known && known.kinds === params.watchFor.join(',') && Date.now() - known.at < FRESH_MS) {
		if (allAbout(known.watching, delivery)) return known.watching;
	}
	return await read(ctx, node, uuid, params);
}
