/**
 * What the trigger keeps in memory in this n8n process is kept per node of a workflow: whose turn it
 * is (hook/turns.ts), when the consumer secret was last read again (delivery/accountSecret.ts) and a
 * test delivery handed over to its test run (listening/handOver.ts). This is the one key they share,
 * so all speak of the same node.
 */
import type { IHookFunctions, INode, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

/**
 * The key of the node `ctx` runs for: its workflow's id and its own id (a workflow may hold several
 * triggers). `node` is `ctx.getNode()` when the caller already holds it: n8n copies the whole node,
 * parameters and all, on each call.
 */
export function nodeKey(ctx: IHookFunctions | ITriggerFunctions | IWebhookFunctions, node: INode = ctx.getNode()): string {
	return `${ctx.getWorkflow().id ?? ''}\u0000${node.id}`;
}
