/**
 * Test events ("Listen for test event") for a node that has both webhook() and trigger(). n8n runs the
 * execution of a test delivery in manual mode, and in manual mode its engine calls the node's trigger()
 * for its output instead of passing on what webhook() returned (n8n-core WorkflowExecute.runNode tries
 * poll, then trigger, then webhook). So webhook() hands a test delivery's items over here, and
 * trigger() in manual mode emits them: the test run shows exactly what webhook() produced.
 *
 * Both happen in the n8n process that received the test delivery, which is where n8n runs manual
 * executions unless OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true (queue mode); then the test run fails
 * with a message saying so. Production deliveries do not pass through here.
 */
import type { IHookFunctions, INodeExecutionData, ITriggerFunctions, ITriggerResponse, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { afterTurn } from '../../shared/turns';
import { nodeKey, Slot } from '../nodeMemory';

/** A hand-over not taken within this time is dropped (its execution never started). */
const KEEP_MS = 60_000;
/** After listening's set-up returned, the time n8n's answer to the editor gets before the test execution starts. */
const ANSWER_FIRST_MS = 500;

const handedOver = new Slot<{ data: INodeExecutionData[][]; at: number }>('test delivery handed over');
/** When each node last received a test delivery (a Sample Block replay waits for it: sampleBlock.ts). */
const arrivals = new Slot<number>('test delivery arrived');

/** webhook(), in manual mode: keeps the items the test execution is about to start with. */
export function handOverTestDelivery(ctx: IWebhookFunctions, data: INodeExecutionData[][]): void {
	const now = Date.now();
	handedOver.deleteWhere((entry) => now - entry.at > KEEP_MS);
	handedOver.set(nodeKey(ctx), { data, at: now });
}

/**
 * webhook(), in manual mode, for a test delivery that passed the checks: tells a Sample Block replay
 * waiting in this process that it arrived, then waits until that set-up has returned. n8n answers the
 * editor's "listen" request only once the set-up returned; a test execution that started before that
 * answer left the editor showing "Listening for test event" after the output had come.
 */
export async function receiveTestDelivery(ctx: IWebhookFunctions): Promise<void> {
	const now = Date.now();
	arrivals.deleteWhere((at) => now - at > KEEP_MS);
	const key = nodeKey(ctx);
	arrivals.set(key, now);
	// The set-up holds the node's turn (../turns.ts) until it returns.
	if (await afterTurn(key)) await sleep(ANSWER_FIRST_MS);
}

/** Whether this n8n process handed over a test delivery for the node at or after `since`. */
export function testDeliveryArrivedSince(ctx: IHookFunctions, since: number): boolean {
	return (arrivals.get(nodeKey(ctx)) ?? -Infinity) >= since;
}

/** trigger(), in manual mode: emits the test delivery's items. */
export function testEventResponse(ctx: ITriggerFunctions): ITriggerResponse {
	return {
		manualTriggerFunction: async () => {
			// Taken once: a second run of the test finds none.
			const key = nodeKey(ctx);
			const entry = handedOver.get(key);
			handedOver.delete(key);
			if (!entry) {
				throw new NodeOperationError(ctx.getNode(), 'The test delivery was received by another n8n process than the one running this test', {
					description:
						'n8n runs test executions on workers when OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true. Test this trigger with that setting off, or activate the workflow and look at its executions.',
				});
			}
			ctx.emit(entry.data);
		},
	};
}
