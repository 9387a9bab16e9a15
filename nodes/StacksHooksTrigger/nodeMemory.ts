/**
 * What the trigger keeps in memory in this n8n process, per node of a workflow, in one place.
 *
 * Each part of the trigger names what it keeps with a `Slot`, for example the health check's state or the
 * test delivery handed over to a test run. A slot is a Map by node key, and every slot is listed here. When
 * the workflow is deactivated (or deleted, which deactivates it first), `forgetNode` removes the node's entry
 * from every slot at once. So the memory holds the workflows active now, and nothing of those that were.
 *
 * Test events use the same node keys as production, since a workflow can be tested while it is active.
 * Their entries are taken when used, and dropped after a minute when not (../listening/handOver.ts).
 */
import type { IHookFunctions, INode, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

type NodeContext = IHookFunctions | ITriggerFunctions | IWebhookFunctions;

/** Every slot, so that a node's entries can all be removed at once. */
const slots = new Set<Slot<unknown>>();

/**
 * The key of the node `ctx` runs for: its workflow's id and its own id, since a workflow may hold several
 * triggers. Pass `node` when the caller already holds `ctx.getNode()`: n8n copies the whole node on each call.
 */
export function nodeKey(ctx: NodeContext, node: INode = ctx.getNode()): string {
	return `${ctx.getWorkflow().id ?? ''}\u0000${node.id}`;
}

/** One kind of entry the trigger keeps per node, such as the health check's state: a Map by node key. */
export class Slot<T> extends Map<string, T> {
	/** `what`: what the entries hold, in a few words. */
	constructor(readonly what: string) {
		super();
		slots.add(this as Slot<unknown>);
	}

	/** Removes every entry that `stale` holds true of, whatever the node: for entries that outlive no minute. */
	deleteWhere(stale: (value: T) => boolean): void {
		for (const [key, value] of this) if (stale(value)) this.delete(key);
	}
}

/** On deactivation: removes every entry of the node `ctx` runs for. */
export function forgetNode(ctx: NodeContext): void {
	const key = nodeKey(ctx);
	for (const slot of slots) slot.delete(key);
}

/** What this process keeps, by node key: what each slot holds of that node. The memory test reads it through n8n's inspector. */
export function nodesInMemory(): { nodes: Record<string, string[]> } {
	const all: Record<string, string[]> = {};
	for (const slot of slots) for (const key of slot.keys()) (all[key] ??= []).push(slot.what);
	return { nodes: all };
}
