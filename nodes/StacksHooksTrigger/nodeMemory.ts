/**
 * What the trigger keeps in memory in this n8n process, per node of a workflow, in one place.
 *
 * Each part of the trigger names what it keeps with a `Slot`, for example the health check's state or the
 * test delivery handed over to a test run. The entries themselves all live in one map here, by node. When
 * the workflow is deactivated (or deleted, which deactivates it first), `forgetNode` removes every entry of
 * the node at once. So the memory holds the workflows active now, and nothing of those that were.
 *
 * Test events use the same node keys as production, since a workflow can be tested while it is active.
 * Their entries are taken when used, and dropped after a minute when not (../listening/handOver.ts).
 */
import type { IHookFunctions, INode, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

type NodeContext = IHookFunctions | ITriggerFunctions | IWebhookFunctions;

/** Every node's entries, by node key, then by slot. */
const nodes = new Map<string, Map<Slot<unknown>, unknown>>();

/**
 * The key of the node `ctx` runs for: its workflow's id and its own id, since a workflow may hold several
 * triggers. Pass `node` when the caller already holds `ctx.getNode()`: n8n copies the whole node on each call.
 */
export function nodeKey(ctx: NodeContext, node: INode = ctx.getNode()): string {
	return `${ctx.getWorkflow().id ?? ''}\u0000${node.id}`;
}

/** One kind of entry the trigger keeps per node, such as the health check's state. */
export class Slot<T> {
	/** `what`: what the entries hold, in a few words. */
	constructor(readonly what: string) {}

	get(key: string): T | undefined {
		return nodes.get(key)?.get(this) as T | undefined;
	}

	set(key: string, value: T): T {
		let entries = nodes.get(key);
		if (!entries) nodes.set(key, (entries = new Map()));
		entries.set(this, value);
		return value;
	}

	/** Removes the node's entry; true when there was one. */
	delete(key: string): boolean {
		const entries = nodes.get(key);
		const had = entries?.delete(this) ?? false;
		if (entries?.size === 0) nodes.delete(key);
		return had;
	}

	/** Removes every node's entry that `stale` holds true of: for entries that outlive no minute, whatever the node. */
	deleteWhere(stale: (value: T) => boolean): void {
		for (const [key, entries] of nodes) if (entries.has(this) && stale(entries.get(this) as T)) this.delete(key);
	}

	/** The node's entry, removed as it is read. */
	take(key: string): T | undefined {
		const value = this.get(key);
		this.delete(key);
		return value;
	}
}

/** On deactivation: removes every entry of the node `ctx` runs for. */
export function forgetNode(ctx: NodeContext): void {
	nodes.delete(nodeKey(ctx));
}

/** What this process keeps, by node key: what each slot holds of that node. The memory test reads it through n8n's inspector. */
export function nodesInMemory(): { nodes: Record<string, string[]> } {
	const all: Record<string, string[]> = {};
	for (const [key, entries] of nodes) all[key] = [...entries.keys()].map((slot) => slot.what);
	return { nodes: all };
}
