/**
 * A delivery from the service, as webhook() receives it: the consumer secret checked
 * (accountSecret.ts), then the shape (shape.ts), the blocks counted (../healthCheck/model/received.ts), then the
 * items made (../items/) and the answer chosen. A request with the secret and the check header is
 * the health check's own (../healthCheck/model/ownWebhook.ts), answered without an execution. Nothing unchecked starts an execution: a wrong or missing secret is answered 401, a body
 * that is not a delivery 400, and neither starts anything.
 */
import type { IDataObject, INode, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { Network } from '../../shared/constants';
import { answerCheck, isCheck, noteOwnUrl } from '../healthCheck/model/ownWebhook';
import { noteDelivery } from '../healthCheck/model/received';
import { deliveryToItems, type OutputMode, type RollbackMode } from '../items/deliveryItems';
import { handOverTestDelivery, receiveTestDelivery } from '../listening/handOver';
import { nodeKey } from '../nodeMemory';
import { listedAddresses } from '../watch/listedAddresses';
import { listedTransactionsOf } from '../watch/listedTransactions';
import { matchedInN8n } from '../../shared/watchList/listHook';
import { readWatchParameters, type Watching, watchingOf } from '../watch/watching';
import { isAuthentic } from './accountSecret';
import { PresentedSecrets, presentedSecrets } from './consumerSecret';
import { checkDeliveryShape } from './shape';

export async function receiveDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	// Refusals, and acceptances that start nothing, are answered here at once. An accepted delivery
	// that starts an execution is answered by n8n with the returned webhookResponse only once the
	// execution is saved and (in queue mode) queued: a 200 sent earlier would be lost with the
	// delivery if n8n stopped in between, and the service would not send it again.
	const res = ctx.getResponseObject();
	const answer = (status: number, body: IDataObject): IWebhookResponseData => {
		res.status(status).json(body);
		return { noWebhookResponse: true };
	};

	// No credential load and no request here unless the secret does not match (see accountSecret.ts).
	const staticData = ctx.getWorkflowStaticData('node');
	const keptBefore = staticData.consumerSecret;
	if (!(await isAuthentic(ctx, new PresentedSecrets(presentedSecrets(ctx.getHeaderData() as IDataObject))))) {
		return answer(401, { error: 'Unauthorized', details: 'Missing or wrong consumer secret' });
	}

	// The health check asking, through the trigger's own webhook, what n8n received (healthCheck/model/ownWebhook.ts).
	if (isCheck(ctx)) return answerCheck(ctx);

	const shape = checkDeliveryShape(ctx.getBodyData());
	if (!shape.ok) return answer(400, { error: 'Bad Request', details: `Not a hook delivery: ${shape.problem}` });
	// One copy of the node for the delivery (n8n copies it whole on each getNode()).
	const node = ctx.getNode();
	if (ctx.getMode() === 'manual') await receiveTestDelivery(ctx);
	else {
		noteDelivery(ctx, shape.delivery, node);
		noteOwnUrl(ctx);
	}

	const output = option<OutputMode>(ctx, node, 'output', 'transaction');
	// What the trigger watches is read only where it shapes the items: events are selected by it, a list names their addresses.
	const watch = option<string>(ctx, node, 'watch', 'filters');
	let watching: Watching | undefined;
	if (watch === 'list') watching = await listedAddresses(ctx, node, shape.delivery, readWatchParameters(ctx));
	// A typed list was checked at activation on the credential's network, which is the delivery's.
	else if (output === 'event' || watch === 'addresses') watching = watchingOf(node, readWatchParameters(ctx), shape.delivery.event.network as Network, nodeKey(ctx, node));
	// The service matched the blocks with more than the list at their heights: the kinds for any address (a list too large
	// for one filter per address), or addresses removed lately (a watch list's remembered edits). The trigger keeps the list's;
	// a hook of one filter per address of a list never edited selects exactly it.
	const list = watching?.list;
	const delivery = list && (list.variesByHeight || matchedInN8n(shape.delivery.chainhook.name ?? '')) ? listedTransactionsOf(shape.delivery, list) : shape.delivery;
	const items = deliveryToItems(delivery, output, option<RollbackMode>(ctx, node, 'rollbacks', 'include'), watching);
	const accepted = { received: true, items: items.length };
	// Nothing left to output (e.g. only rollbacks, ignored): no execution.
	if (items.length === 0) return answer(200, accepted);
	const workflowData = [ctx.helpers.returnJsonArray(items)];
	if (ctx.getMode() === 'manual') handOverTestDelivery(ctx, workflowData);
	// n8n saves what webhook() changed in the static data (here: a secret read again after a
	// rotation) only when the node has answered before the execution starts; this one delivery is
	// answered at once, every other after its execution is queued (or, responding when the workflow
	// finishes, after it has run: this one delivery, the first after a rotation, is then not held back).
	if (staticData.consumerSecret !== keptBefore) return { ...answer(200, accepted), workflowData };
	return { webhookResponse: accepted, workflowData };
}

/**
 * An options parameter read per delivery: as the node holds it when it is a plain value (n8n filled in
 * its default when it built the workflow), else through getNodeParameter, which resolves an expression.
 * getNodeParameter also looks the parameter up in the description each time: in a running n8n, more
 * than the rest of reading a delivery (npm run bench, part 1).
 */
function option<T extends string>(ctx: IWebhookFunctions, node: INode, name: string, fallback: T): T {
	const value = node.parameters[name];
	if (typeof value === 'string' && !value.startsWith('=')) return value as T;
	return ctx.getNodeParameter(name, fallback) as T;
}
