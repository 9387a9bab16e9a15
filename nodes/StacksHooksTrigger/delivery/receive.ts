/**
 * A delivery from the service, as webhook() receives it, in four steps:
 *
 * 1. The consumer secret is checked (../secret/accountSecret.ts). A wrong or missing one is answered 401.
 * 2. A request with the secret and the check header is the health check's own
 *    (../healthCheck/channel/ownWebhook.ts). It is answered without an execution.
 * 3. The body is checked to be a delivery (../../shared/delivery.ts). Anything else is answered 400.
 * 4. The delivery is noted for the health check (../healthCheck/channel/received.ts), its watched part is
 *    taken (../watch/watchedPart.ts), and it becomes items (../items/).
 *
 * Nothing unchecked starts an execution.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerCheck, isCheck } from '../healthCheck/channel/ownWebhook';
import { noteDelivery } from '../healthCheck/channel/received';
import { deliveryToItems, type OutputMode, type RollbackMode } from '../items/deliveryItems';
import { handOverTestDelivery, receiveTestDelivery } from '../listening/handOver';
import { deliveryOption } from '../parameters';
import { watchedPart } from '../watch/watchedPart';
import { isAuthentic } from '../secret/accountSecret';
import { PresentedSecrets, presentedSecrets } from '../secret/consumerSecret';
import { checkDeliveryShape } from '../../shared/delivery';

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

	// No credential load and no request here unless the secret does not match (see ../secret/accountSecret.ts).
	const staticData = ctx.getWorkflowStaticData('node');
	const keptBefore = staticData.consumerSecret;
	if (!(await isAuthentic(ctx, new PresentedSecrets(presentedSecrets(ctx.getHeaderData() as IDataObject))))) {
		return answer(401, { error: 'Unauthorized', details: 'Missing or wrong consumer secret' });
	}

	// The health check asking, through the trigger's own webhook, what n8n received (healthCheck/channel/ownWebhook.ts).
	if (isCheck(ctx)) return answerCheck(ctx);

	const shape = checkDeliveryShape(ctx.getBodyData());
	if (!shape.ok) return answer(400, { error: 'Bad Request', details: `Not a hook delivery: ${shape.problem}` });
	// One copy of the node for the delivery (n8n copies it whole on each getNode()).
	const node = ctx.getNode();
	if (ctx.getMode() === 'manual') await receiveTestDelivery(ctx);
	else {
		noteDelivery(ctx, shape.delivery, node);
	}

	const output = deliveryOption<OutputMode>(ctx, node, 'output', 'transaction');
	const watched = await watchedPart(ctx, node, shape.delivery, output === 'event');
	const items = deliveryToItems(watched.delivery, output, deliveryOption<RollbackMode>(ctx, node, 'rollbacks', 'include'), watched.watching);
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
