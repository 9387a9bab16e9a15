/**
 * The health check's state in the process that runs it (the main, or the leader of several): the gap
 * state (../planning/gapState.ts) as the last check left it, begun from what the static data kept, and the consumer
 * secret it calls the trigger's webhook with.
 *
 * Also read by webhook() in the same process (received.ts): in regular mode the process that takes the
 * deliveries is the one that runs the check, so which heights the check is replaying is known here,
 * in memory, without the static data (which only a call to the trigger's own webhook brings up to date,
 * and which n8n may not be able to make: ownWebhook.ts).
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import { nodeKey, Slot } from '../../nodeMemory';
import { emptyState, type GapState, isGapState } from '../planning/gapState';

export interface CheckState {
	state: GapState;
	secret?: string;
	/**
	 * What the state was begun from, until a check plans: `nothing` when the static data kept no gap state
	 * (../planning/gapState.ts, `lifeUnknown`), `kept` when it kept one (`startedSinceKept`).
	 */
	begunFrom?: 'nothing' | 'kept';
	/** Where the trigger's webhook answered the last call (ownWebhook.ts): tried first at the next. */
	via?: string;
}

const states = new Slot<CheckState>('health check state');

/** The gap state as n8n loaded it with the workflow (kept by the last check that reached the trigger's webhook). */
function keptGapState(ctx: ITriggerFunctions): GapState | undefined {
	const value = ctx.getWorkflowStaticData('node').gaps;
	return isGapState(value) ? value : undefined;
}

/** The node's check state in this process, begun from what the static data kept. */
export function checkState(ctx: ITriggerFunctions): CheckState {
	const key = nodeKey(ctx);
	let kept = states.get(key);
	if (!kept) {
		const state = keptGapState(ctx);
		kept = state ? { state, begunFrom: 'kept' } : { state: emptyState(), begunFrom: 'nothing' };
		states.set(key, kept);
	}
	return kept;
}

/**
 * When n8n closes the trigger: the check's state goes with it. The next trigger() of the node begins again
 * from what the static data kept, as it does after a restart.
 */
export function forgetCheckState(ctx: ITriggerFunctions): void {
	states.delete(nodeKey(ctx));
}

/**
 * Whether `state` is still the node `key`'s (../../nodeMemory.ts): false once the workflow was deactivated (the lifecycle's delete forgets
 * the node) or n8n closed the trigger. A check then neither repairs nor replays, and the loop ends.
 */
export function isCurrent(key: string, state: CheckState): boolean {
	return states.get(key) === state;
}

/** The gap state of the check this process runs for the node (nodeKey), if it runs one. */
export function runningGapState(key: string): GapState | undefined {
	return states.get(key)?.state;
}
